"""What a state-changing request must show before any route sees it: our name, our page, JSON.

Any web page a guest opens on the table's network can make their browser send
requests to the server.  So every request that may change something (any
method but GET, HEAD and OPTIONS) is refused unless

- its ``Host`` is a name this server answers to (a 400): an IP address, or one
  of :func:`allowed_hosts` (localhost, the configured address, the mDNS name,
  this machine's name, ``--allow-host`` names).  A page on
  ``http://evil.example`` whose name is made to resolve to the Pi (DNS
  rebinding) sends ``Host: evil.example``; an IP address in ``Host`` is the
  origin the browser really talks to, so it cannot be rebound;
- it comes from one of the server's own pages (a 403): ``Sec-Fetch-Site``,
  when sent, is ``same-origin`` (or ``none``: typed by the user), and
  ``Origin``, when sent, is the very scheme, name and port of ``Host``.
  Tools such as curl send neither and are let through: they are not a
  browser a guest's page can drive;
- its body is declared JSON, ``Content-Type: application/json`` (a 415): a
  cross-site form or a "simple" fetch cannot send that type without the
  browser asking first, and this server answers no such question (no CORS).

The seat token, host key and board key (``X-Seat-Token``, ``X-Host-Key``,
``X-Board-Key`` headers) come on top: they say *who* may act; these checks
say the request was not forged by another site.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from flask import current_app, request

from engine.errors import quoted

from .errors import ApiError

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOCAL_NAMES = frozenset({"localhost"})


def allowed_hosts(*names: str | None) -> frozenset[str]:
    """The host names the server answers to: localhost, this machine's name, and ``names`` (lower case)."""
    out = set(LOCAL_NAMES)
    try:
        own = socket.gethostname().strip().lower().rstrip(".")
    except OSError:  # pragma: no cover - no hostname at all
        own = ""
    if own:
        out.add(own)
        out.add(own.split(".", 1)[0] + ".local")
    for name in names:
        if name:
            out.add(_host_name(name) or name.lower())
    out.discard("")
    return frozenset(out)


def _split_host(host: str) -> tuple[str, int | None] | None:
    """A ``Host`` value as (name or address, lower case, no trailing dot; port or None); None if malformed."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        end = host.find("]")
        if end < 0:
            return None
        name, rest = host[1:end], host[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port = rest[1:]
    else:
        name, _, port = host.partition(":")
        name = name.rstrip(".")
    if port and not (port.isascii() and port.isdigit() and len(port) <= 5):
        return None
    return name, int(port) if port else None


def _host_name(host: str) -> str | None:
    split = _split_host(host)
    return split[0] if split else None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(host: str, names: frozenset[str]) -> bool:
    name = _host_name(host)
    if not name:
        return False
    return _is_address(name) or name in names


def _same_origin(origin: str, host: str) -> bool:
    """Is ``origin`` (scheme://name[:port]) the origin of a page served to this ``Host``?"""
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        return False
    split = _split_host(host)
    if not split or not split[0]:
        return False
    default = 80 if parts.scheme == "http" else 443
    return (parts.hostname.rstrip("."), port or default) == (split[0], split[1] or default)


def check_request() -> None:
    """Flask ``before_request``: refuse a forged state-changing request before its route runs."""
    if request.method in SAFE_METHODS or request.routing_exception is not None:
        return  # a read; or no such route (its own 404 or 405 says so)
    host = request.environ.get("HTTP_HOST")
    if host is not None:
        names = current_app.config.get("ALLOWED_HOSTS") or allowed_hosts()
        if not host_allowed(host, names):
            raise ApiError(400, f"this server does not answer to the name {quoted(host)}: "
                                "open it by its own address or name")
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site.lower() not in ("same-origin", "none"):
        raise ApiError(403, "refused: the request was sent by another web site's page")
    origin = request.headers.get("Origin")
    if origin is not None and not (host is not None and _same_origin(origin, host)):
        raise ApiError(403, "refused: the request was sent by another web site's page")
    if request.mimetype != "application/json":
        raise ApiError(415, "a change is sent as JSON (Content-Type: application/json)")
