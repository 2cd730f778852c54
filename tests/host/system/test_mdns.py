"""The status page by name: `quin serve` announces quin.local over mDNS, and the printed
address, the host page's join codes and `quin links` use it; without mDNS, the IP address.

`quin serve` listens on every interface here, as on the Pi, so the test runs it in a network
namespace of its own (`unshare --net`, loopback only): no announcement leaves this machine.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROBE = ROOT / "tests" / "support" / "mdns_probe.py"


def in_own_network(tmp_path, *extra):
    unshare = shutil.which("unshare")
    assert unshare and shutil.which("ip"), "unshare (util-linux) and ip (iproute2) are needed: see tools/test.sh"
    env = {k: v for k, v in os.environ.items() if k != "QUIN_MDNS"}  # tests/conftest.py turns mDNS off
    # the probe imports tests.support: the checkout on its path (a script's own folder is first there)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    done = subprocess.run([unshare, "--net", sys.executable, str(PROBE), str(ROOT), str(tmp_path / "data"), *extra],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def urls(seen):
    out = {}
    for line in seen["lines"]:
        if "http://" in line:
            name, _, url = line.strip().partition(":")
            out.setdefault(name.strip(), url.strip().split()[0])  # the first "by address" is the status page's
    return out


def test_serve_announces_quin_local_and_every_link_uses_it(tmp_path):
    seen = in_own_network(tmp_path)
    printed = urls(seen)
    port = int(printed["status page"].rstrip("/").rsplit(":", 1)[1])
    assert printed["status page"] == f"http://quin.local:{port}/"
    assert printed["white seat"].startswith(f"http://quin.local:{port}/seat/")
    assert printed["by address"] == f"http://127.0.0.1:{port}/"  # the fallback, for devices without mDNS
    assert seen["resolved"] == ["127.0.0.1"]
    assert seen["service"] == {"port": port, "server": "quin.local.", "addresses": ["127.0.0.1"]}
    assert f"http://quin.local:{port}/seat/" in seen["host_page"]  # the join codes on the host page
    assert f"http://quin.local:{port}/seat/" in seen["links"]  # `quin links` prints what serve announced
    assert seen["returncode"] == 0
    assert seen["after_stop"] == []  # withdrawn when the server stops


def test_without_mdns_every_link_uses_the_address(tmp_path):
    seen = in_own_network(tmp_path, "--no-mdns")
    printed = urls(seen)
    port = int(printed["status page"].rstrip("/").rsplit(":", 1)[1])
    assert printed["status page"] == f"http://127.0.0.1:{port}/"
    assert "  (no mDNS name: --no-mdns)" in seen["lines"]
    assert seen["resolved"] == [] and seen["service"] is None
    assert f"http://127.0.0.1:{port}/seat/" in seen["host_page"] and "quin.local" not in seen["host_page"]
    assert f"http://127.0.0.1:{port}/seat/" in seen["links"]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_only_is_not_announced(host):
    from host.system import mdns

    assert mdns.announce(8000, host) == (None, "the server listens on loopback only")
