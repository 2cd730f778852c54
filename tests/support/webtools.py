"""Helpers for the web tests: the real server (``host.web.server``) in a thread, and a small SSE client."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from host.web.server import WebServer

#: the viewport the browser tests use for phone pages
PHONE = {"width": 390, "height": 844}
QUIN_JS = Path(__file__).resolve().parents[2] / "host" / "web" / "static" / "quin.js"


def with_quin_js(browser, js: str, arg):
    """``js`` (a function of ``arg``) evaluated in a blank page of ``browser`` holding the pages'
    shared script, host/web/static/quin.js (its ``Quin`` functions run on the states given)."""
    page = browser.new_page()
    try:
        page.set_content("<!doctype html><html><body></body></html>")
        page.add_script_tag(path=str(QUIN_JS))
        return page.evaluate(js, arg)
    finally:
        page.close()


@contextmanager
def running(app, threads: int = 24, **options):
    """Serve ``app`` on 127.0.0.1 at a free port with quin's own server; yields the base URL."""
    server = WebServer(app, "127.0.0.1", 0, threads=threads, **options).start_in_thread()
    app.extensions["quin.server"] = server  # a test waits on what the server counts (its connections)
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        table = app.extensions["quin.table"]
        if getattr(table, "ticker_stop", None) is not None:
            table.ticker_stop.set()
        table.broker.close()
        server.stop()


class SSE:
    """A blocking Server-Sent Events reader over http.client."""

    def __init__(self, base: str, path: str, last_event_id: str | None = None, timeout: float = 10):
        host = base.split("//", 1)[1]
        self.conn = http.client.HTTPConnection(host, timeout=timeout)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.conn.request("GET", path, headers=headers)
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.comments: list[str] = []
        self.last_id: str | None = None

    def next(self) -> dict | None:
        """The next event as {'id', 'event', 'data'}; None when the stream ends."""
        fields: dict = {}
        data: list[str] = []
        while True:
            raw = self.response.readline()
            if not raw:
                return None
            line = raw.decode().rstrip("\n")
            if line == "":
                if data or fields.get("event"):
                    event = {"id": fields.get("id"), "event": fields.get("event", "message"), "data": json.loads("\n".join(data))}
                    if event["id"] is not None:
                        self.last_id = event["id"]
                    return event
                continue
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "data":
                data.append(value)
            elif key in ("id", "event", "retry"):
                fields[key] = value

    def comment(self) -> str | None:
        """The next comment line (a keep-alive), skipping nothing else: None if an event or the end
        comes first."""
        raw = self.response.readline()
        while raw in (b"\n", b"\r\n"):
            raw = self.response.readline()
        line = raw.decode().rstrip("\n")
        if not line.startswith(":"):
            return None
        self.comments.append(line[1:].strip())
        return line[1:].strip()

    def close(self) -> None:
        self.conn.close()


def get_json(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def board_headers(table) -> dict:
    """The header a virtual-board write carries: the board key of ``table`` (a Table) or of a host key (str)."""
    from host.web.sim import HEADER, board_key

    return {HEADER: board_key(table if isinstance(table, str) else table.host_key)}


def post_json(url: str, body, headers: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
