# Quin board firmware, boot stage: runs once at power-up or hard reset.
# Turn on the second USB serial port ("data") so the wire protocol has a port
# of its own and the REPL console stays free for debugging.
import usb_cdc

usb_cdc.enable(console=True, data=True)
