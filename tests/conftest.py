import os

# No test announces anything on this machine's network: a `quin serve` a test starts on every
# interface stays off mDNS (tests/host/system/test_mdns.py turns it on inside a network namespace).
os.environ["QUIN_MDNS"] = "off"
