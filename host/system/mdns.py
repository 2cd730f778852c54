"""The status page by name: `quin serve` announces itself over mDNS (python-zeroconf).

Phones and the TV on the same network then open ``http://quin.local:8000/``
without anyone knowing the Pi's address: zeroconf answers queries for the
name's address and publishes the page as an ``_http._tcp`` service called
"Quin".  When mDNS cannot run (no multicast here, ``--no-mdns``, a server
listening on loopback only), :func:`announce` returns None and a reason, and
the caller prints and encodes the IP address instead.

A second board on the same network that already answers for ``quin.local``
is not shadowed: the name becomes ``quin-2.local`` (and so on).
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading

NAME = "quin"
SERVICE_TYPE = "_http._tcp.local."
INSTANCE = "Quin"
CONFLICT_WAIT_MS = 300  # how long to listen for another device answering for the name
MAX_SUFFIX = 9


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), else 127.0.0.1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_addresses() -> list[str]:
    """The IPv4 addresses of this machine's interfaces, loopback left out (first: the LAN address)."""
    import ifaddr  # zeroconf's own dependency

    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ipaddress.ip_address(ip.ip).is_loopback and ip.ip not in found:
                found.append(ip.ip)
    lan = lan_address()
    return sorted(found, key=lambda a: a != lan)


class Announcement:
    """A registered (or registering) name; :meth:`close` withdraws it."""

    def __init__(self, zc, info, hostname: str):
        self.hostname = hostname  # e.g. "quin.local"
        self.addresses = info.parsed_addresses()
        self.error = ""
        self._zc = zc
        self._info = info
        self._registered = threading.Event()
        # Probing and announcing take about a second: the server is ready meanwhile.
        self._thread = threading.Thread(target=self._register, name="quin-mdns", daemon=True)
        self._thread.start()

    def _register(self) -> None:
        try:
            self._zc.register_service(self._info, allow_name_change=True)
            self._registered.set()
        except Exception as exc:  # noqa: BLE001 - the web server runs on; say why the name is missing
            self.error = str(exc) or type(exc).__name__
            print(f"quin: mDNS could not announce {self.hostname}: {self.error}", file=sys.stderr, flush=True)

    def wait(self, timeout: float) -> bool:
        """True once the name is announced."""
        return self._registered.wait(timeout)

    def close(self) -> None:
        self._thread.join(5)
        try:
            if self._registered.is_set():
                self._zc.unregister_service(self._info)  # goodbye packets: caches forget the name now
        except Exception:  # noqa: BLE001 - closing down; nothing to tell anyone
            pass
        finally:
            self._zc.close()


def announce(port: int, host: str = "0.0.0.0", name: str = NAME) -> tuple[Announcement | None, str]:
    """Announce ``name``.local for the server on ``host``:``port``: (announcement, "") or (None, why not)."""
    if is_loopback(host):
        return None, "the server listens on loopback only"
    try:
        from zeroconf import IPVersion, ServiceInfo, Zeroconf
    except ImportError:
        return None, "python-zeroconf is not installed"
    everywhere = host in ("", "0.0.0.0")
    addresses = (local_addresses() if everywhere else [host]) or [lan_address()]
    try:
        kwargs = {} if everywhere else {"interfaces": [host]}
        zc = Zeroconf(ip_version=IPVersion.V4Only, **kwargs)
    except Exception as exc:  # noqa: BLE001 - OSError from the sockets, zeroconf's own errors
        return None, f"mDNS is not available here ({exc})"
    try:
        hostname = _free_name(zc, name, addresses)
        info = ServiceInfo(
            SERVICE_TYPE,
            f"{INSTANCE}.{SERVICE_TYPE}",
            addresses=[socket.inet_aton(a) for a in addresses],
            port=port,
            server=hostname + ".",
            properties={"path": "/"},
        )
    except Exception as exc:  # noqa: BLE001 - a bad name, a failing query: fall back to the address
        zc.close()
        return None, f"mDNS is not available here ({exc})"
    return Announcement(zc, info, hostname), ""


def _free_name(zc, name: str, ours: list[str]) -> str:
    """``name``.local unless another device answers for it; then name-2.local, name-3.local, ..."""
    from zeroconf import AddressResolverIPv4

    for n in range(1, MAX_SUFFIX + 1):
        candidate = f"{name}.local" if n == 1 else f"{name}-{n}.local"
        resolver = AddressResolverIPv4(candidate + ".")
        if not resolver.request(zc, CONFLICT_WAIT_MS):
            return candidate
        if set(resolver.parsed_addresses()) & set(ours):
            return candidate  # it is this machine (avahi answering for a Pi called "quin")
    return f"{name}-{MAX_SUFFIX}.local"
