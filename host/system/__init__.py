"""The Pi as an appliance: the systemd service and udev rule (`quin setup`), the
mDNS name phones reach it by, and who holds the board's serial port."""
