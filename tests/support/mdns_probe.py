"""Run inside a network namespace of its own (`unshare --net`): start `quin serve` as on the Pi
(every interface, mDNS on), resolve its name with an independent mDNS client (python-zeroconf's
resolver, not the project's code), and print what was seen as JSON.

Only loopback exists in the namespace, so no packet leaves it.
"""

import json
import subprocess
import sys
import time
import urllib.request

from tests.support.quin_cmd import QUIN  # the checkout is on its path (test_mdns.py sets PYTHONPATH)
from zeroconf import AddressResolverIPv4, IPVersion, Zeroconf

ROOT, DATA = sys.argv[1], sys.argv[2]
EXTRA = sys.argv[3:]


def resolve(zc, name, timeout_ms=3000):
    resolver = AddressResolverIPv4(name + ".")
    return resolver.parsed_addresses() if resolver.request(zc, timeout_ms) else []


def main():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    proc = subprocess.Popen([*QUIN, "serve", "--port", "0", "--data-dir", DATA, "--no-qr", "--show-links", *EXTRA],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = {"lines": []}
    try:
        while not any("black seat" in line for line in seen["lines"]):
            line = proc.stdout.readline()
            if not line:
                seen["stderr"] = proc.stderr.read()
                break
            seen["lines"].append(line.rstrip())
        port = next(line for line in seen["lines"] if "status page" in line).rsplit(":", 1)[1].strip("/ ")
        zc = Zeroconf(ip_version=IPVersion.V4Only)
        try:
            seen["resolved"] = resolve(zc, "quin.local")
            seen["service"] = None
            info = zc.get_service_info("_http._tcp.local.", "Quin._http._tcp.local.", timeout=3000)
            if info:
                seen["service"] = {"port": info.port, "server": info.server, "addresses": info.parsed_addresses()}
            key = subprocess.run([*QUIN, "links", "--no-qr", "--data-dir", DATA], cwd=ROOT, capture_output=True,
                                 text=True, timeout=30)
            seen["links"] = key.stdout
            host_line = next(line for line in seen["lines"] if "host page" in line)
            host_url = host_line.split(": ", 1)[1].strip().replace("quin.local", "127.0.0.1")
            with urllib.request.urlopen(host_url, timeout=10) as response:
                seen["host_page"] = response.read().decode()
        finally:
            proc.terminate()
            proc.communicate(timeout=15)
            seen["returncode"] = proc.returncode
            time.sleep(1.5)  # goodbye packets leave the name in caches for one second
            seen["after_stop"] = resolve(zc, "quin.local", 1000)
            zc.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
