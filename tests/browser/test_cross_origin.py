"""Issue 18: another web page a guest opens cannot move towers, nor act for a seat, in real Chromium.

A second local server on another port serves the attacker's page: it tries no-cors fetches with a
text/plain body, a CORS fetch with the JSON type and the board key itself, and an auto-submitted
form, against the virtual board and a seat.  Then a rebound name: Chromium resolves ``rebind.test``
to the server (``--host-resolver-rules``), so a page there is "same-origin" with it, as after DNS
rebinding.  The server's own board page, through its link, still moves towers.
"""

import http.server
import json
import threading

import pytest

from host.compose import create_app
from host.web.sim import board_key
from tests.support.waiting import wait_for
from tests.support.webtools import running

from tests.support.browsing import CHROMIUM

ATTACK = """<!doctype html><html><body>
<iframe name="sink"></iframe>
<form id="form" method="POST" action="{target}/api/board/toggle" enctype="text/plain" target="sink">
<input name='{{"space": "w35", "x": "' value='"}}'></form>
<form id="form2" method="POST" action="{target}/api/board/set" target="sink">
<input name="occupied" value="[]"></form>
<script>
const T = {target_js}, K = {key_js}, TOKEN = {token_js};
window.results = {{}};
async function attempt(name, run) {{
  try {{ const r = await run(); results[name] = r.type + ":" + r.status; }}
  catch (e) {{ results[name] = "blocked:" + e.name; }}
}}
(async () => {{
  await attempt("no-cors clear", () => fetch(T + "/api/board/set", {{ method: "POST", mode: "no-cors",
    headers: {{ "Content-Type": "text/plain" }}, body: '{{"occupied": []}}' }}));
  await attempt("no-cors toggle", () => fetch(T + "/api/board/toggle", {{ method: "POST", mode: "no-cors",
    body: '{{"space": "w35"}}' }}));
  await attempt("no-cors seat", () => fetch(T + "/api/seat/" + TOKEN + "/input", {{ method: "POST",
    mode: "no-cors", headers: {{ "Content-Type": "text/plain" }}, body: '{{"type": "done"}}' }}));
  await attempt("cors with the key", () => fetch(T + "/api/board/set", {{ method: "POST",
    headers: {{ "Content-Type": "application/json", "X-Board-Key": K }}, body: '{{"occupied": []}}' }}));
  window.fetched = true;
}})();
</script></body></html>"""


class AttackerSite:
    """A second local web server (another port, so another origin) serving the attacker's page."""

    def __init__(self, page: bytes, host: str):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def do_POST(self):  # the form's target frame may land here
                self.do_GET()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://{host}:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def served(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "KEEPALIVE": 5})
    seen = []  # (method, path, status) of every request the quin server answered
    inner = app.wsgi_app

    def recording(environ, start_response):
        def start(status, headers, exc_info=None):
            seen.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], int(status.split()[0])))
            return start_response(status, headers, exc_info)
        return inner(environ, start)

    app.wsgi_app = recording
    with running(app, threads=16) as base:
        yield base, app.extensions["quin.table"], seen


def occupied(table) -> list:
    return sorted(table.board.occupied)


def wait(what, check, timeout=10):
    wait_for(check, what, timeout, every=0.05)


# The attacker's origin: another name and port (cross-site), or the same address on another port
# (same-site: Chromium's site ignores the port).
@pytest.mark.parametrize("attacker_host", ["localhost", "127.0.0.1"])
def test_another_sites_page_cannot_move_towers_or_act_for_a_seat(browser, served, attacker_host):
    base, table, seen = served
    key = board_key(table.host_key)
    ctx = browser.new_context()
    board = ctx.new_page()
    board.goto(f"{base}/board/{key}")
    board.click("#place-start")  # the board's own page, through its link: both lineups stand
    wait("the lineups", lambda: len(occupied(table)) == 20)
    before = occupied(table)

    page = ATTACK.format(target=base, target_js=json.dumps(base), key_js=json.dumps(key),
                         token_js=json.dumps(table.tokens["white"])).encode()
    site = AttackerSite(page, attacker_host)
    try:
        assert site.url.split(":")[2] != base.split(":")[2]  # another port: another origin
        evil = ctx.new_page()
        seen.clear()
        evil.goto(site.url)
        evil.wait_for_function("window.fetched === true", timeout=10000)
        results = evil.evaluate("window.results")
        for form in ("#form", "#form2"):
            with evil.expect_event("framenavigated", timeout=10000):
                evil.evaluate(f"document.querySelector('{form}').submit()")
        wait("the forms to reach the server", lambda: sum(1 for m, _, _ in seen if m == "POST") >= 5)
    finally:
        site.close()

    # Nothing moved, and no seat acted.
    assert occupied(table) == before
    assert table.game is None or table.game.log == []
    # Each no-cors fetch and each form reached the server and was refused there.
    posts = [(path, status) for method, path, status in seen if method == "POST"]
    assert posts == [("/api/board/set", 403), ("/api/board/toggle", 403),
                     (f"/api/seat/{table.tokens['white']}/input", 403),
                     ("/api/board/toggle", 403), ("/api/board/set", 403)], posts
    # The CORS fetch that carries the key never got past the browser's preflight (no CORS answer).
    assert results["cors with the key"] == "blocked:TypeError", results
    assert results["no-cors clear"] == "opaque:0"
    assert [m for m, _, _ in seen].count("OPTIONS") == 1

    # The board's own page still moves towers.
    board.bring_to_front()
    board.fill("#toggle-space", "b18")
    board.click("#toggle-form button")
    wait("the lift", lambda: len(occupied(table)) == 19)
    assert board.locator("#error").inner_text() == ""
    ctx.close()


def test_a_rebound_name_cannot_move_towers(browser, served):
    """DNS rebinding: rebind.test resolves to the server, so its page is same-origin with it."""
    base, table, seen = served
    port = base.rsplit(":", 1)[1]
    key = board_key(table.host_key)
    rebinding = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP rebind.test 127.0.0.1"])
    try:
        page = rebinding.new_page()
        page.goto(f"http://rebind.test:{port}/board/{key}")  # reads are public, or keyed: served
        assert page.evaluate("location.host") == f"rebind.test:{port}"
        answer = page.evaluate("""async (key) => {
            const r = await fetch("/api/board/set", { method: "POST",
              headers: { "Content-Type": "application/json", "X-Board-Key": key }, body: '{"start": true}' });
            return [r.status, (await r.json()).error];
        }""", key)
        assert answer[0] == 400 and "does not answer to the name 'rebind.test" in answer[1], answer
        page.fill("#toggle-space", "w35")
        page.click("#toggle-form button")
        page.wait_for_function("document.getElementById('error').textContent.includes('does not answer')")
        assert occupied(table) == []
    finally:
        rebinding.close()


def test_the_host_pages_board_link_moves_towers_and_the_public_board_does_not(browser, served):
    base, table, _ = served
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{base}/board")  # the status page's link: the board, no key
    page.wait_for_function("document.getElementById('error').textContent.includes('host page')")
    page.fill("#toggle-space", "w35")
    page.click("#toggle-form button")
    page.wait_for_function("document.getElementById('error').textContent.includes('X-Board-Key')")
    assert occupied(table) == []
    page.goto(f"{base}/host/{table.host_key}")
    with page.expect_navigation():
        page.click("#board-link")
    assert page.url == f"{base}/board/{board_key(table.host_key)}"
    page.fill("#toggle-space", "w35")
    page.click("#toggle-form button")
    wait("the tower on w35", lambda: len(occupied(table)) == 1)
    assert page.locator("#error").inner_text() == ""
    ctx.close()
