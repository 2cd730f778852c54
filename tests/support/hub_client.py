"""A small HTTP and SSE client for the hub's tests (standard library only)."""

from __future__ import annotations

import http.client
import json
import urllib.parse


def request(url: str, method: str = "GET", body=None, key: str | None = None, headers: dict | None = None,
            with_headers: bool = False):
    """(status, parsed JSON or bytes), and the response's headers too if ``with_headers``."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
    hdrs = dict(headers or {})
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    if key:
        hdrs["Authorization"] = f"Bearer {key}"
    conn.request(method, u.path + (f"?{u.query}" if u.query else ""), body=data, headers=hdrs)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return (resp.status, value, resp.headers) if with_headers else (resp.status, value)


class SSE:
    """An open event stream: ``next_event()`` -> (id or None, event name, data)."""

    def __init__(self, url: str, last_event_id: str | None = None, timeout: float = 20):
        u = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.conn.request("GET", u.path + (f"?{u.query}" if u.query else ""), headers=headers)
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = self.resp.headers

    def next_event(self):
        eid, name, data = None, "message", []
        while True:
            line = self.resp.fp.readline()
            if not line:
                raise EOFError("the stream ended")
            line = line.decode().rstrip("\n")
            if not line:
                if data:
                    return eid, name, json.loads("\n".join(data))
                eid, name, data = None, "message", []
                continue
            field, _, value = line.partition(": ")
            if field == "id":
                eid = value
            elif field == "event":
                name = value
            elif field == "data":
                data.append(value)

    def close(self):
        self.conn.close()
