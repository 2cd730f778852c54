"""The remote player's hands on the hub's /play page in Chromium (Playwright): it acts only by
clicks on the page, reading the page's marks and buttons to decide what to tap.  Shared by the
page's own test (tests/host/hub/test_remote_page.py) and the board-against-browser game
(tests/host/remote/test_remote_chromium.py).

A module of its own (not conftest), as hubproc.py is."""

from __future__ import annotations

from collections import deque

from engine.board import NEIGHBORS, SPACE_IDS, SPACE_NAMES

STEP = 15_000       # ms: the page's answer to one tap


def distances_to(spaces) -> dict[str, int]:
    """Steps from each space to the nearest of ``spaces`` (space names)."""
    dist = {SPACE_IDS[s]: 0 for s in spaces}
    todo = deque(dist)
    while todo:
        s = todo.popleft()
        for n, _ in NEIGHBORS[s]:
            if n not in dist:
                dist[n] = dist[s] + 1
                todo.append(n)
    return {SPACE_NAMES[s]: d for s, d in dist.items()}


TO_FS = distances_to(["fs"])  # steps to First Sight (the opponent's compass)


def own_pieces(page, me) -> dict:
    """Your towers as the page draws them: space -> piece (their faces)."""
    return dict(page.eval_on_selector_all(f"#board g.tower.{me}", """els => els.map(e =>
        [e.getAttribute('data-tower'), (e.querySelector('use.face') || {getAttribute: () => null}).getAttribute('data-piece')])"""))


def rush_light(page, me) -> bool:
    """Tap your Light, then its lit space nearest First Sight if it brings the Light closer (a game
    then ends soon); False (and the Light let go) if it cannot."""
    light = next((sp for sp, p in own_pieces(page, me).items() if p == "light"), None)
    sources = (page.get_attribute("#board", "data-sources") or "").split()
    if light is None or light not in sources:
        return False
    seq = seq_of(page)
    tap(page, light)
    dests = [d for d in lit(page, ("dest",)) if TO_FS[d] < TO_FS[light]]
    if not dests:
        tap(page, light)
        return False
    tap(page, min(dests, key=lambda d: TO_FS[d]))
    if page.locator("#compose button[data-choice]").count():
        page.click("#compose button[data-choice]")
    wait_seq_after(page, seq)
    return True


def seq_of(page) -> int:
    return int(page.get_attribute("body", "data-seq") or -1)


def tap(page, space):
    page.click(f'#board circle.hit[data-space="{space}"]')


def lit(page, kinds=("dest", "flash", "swap", "reflect")):
    sel = ", ".join(f"#board circle.mark-{k}" for k in kinds)
    return page.eval_on_selector_all(sel, "els => els.map(e => e.getAttribute('data-mark'))")


def wait_seq_after(page, seq, timeout=STEP):
    page.wait_for_function("(n) => Number(document.body.dataset.seq) > n", arg=seq, timeout=timeout)


def settled(page):
    """The page has no request on its way (after an action: until the state after it arrived)."""
    page.wait_for_selector("body:not([aria-busy])")


def play_power(page, kind, rng, used):
    """Use a power through the buttons and lit spaces: what was played ("lights" for several
    Artificial Lights at once), or None if it came to nothing."""
    seq = seq_of(page)
    label = kind
    page.click(f'#powers button[data-power="{kind}"]')
    for _ in range(10):
        settled(page)
        if seq_of(page) > seq:
            return label
        if page.locator("#compose").is_hidden():
            return None  # refused: the error line says why
        pieces = page.eval_on_selector_all("#compose button[data-piece]", "els => els.map(e => e.dataset.piece)")
        if pieces:
            piece = "artificial_lights" if "artificial_lights" in pieces and "lights" not in used else rng.choice(pieces)
            used.add("lights" if piece == "artificial_lights" else piece)
            label = "lights" if piece == "artificial_lights" else kind
            page.click(f'#compose button[data-piece="{piece}"]')
            continue
        spots = lit(page)
        sendable = page.locator('#compose button[data-compose="send"]')
        if kind == "reinforce" and sendable.count():
            # several Artificial Lights: tap two Gateways, then send
            for sp in spots[:2]:
                tap(page, sp)
            sendable.click()
            continue
        if kind == "gravity" and sendable.count() and sendable.is_enabled():
            sendable.click()
            continue
        if not spots:
            break
        tap(page, rng.choice(spots))
    settled(page)
    if seq_of(page) > seq:
        return label
    if page.locator("#compose").is_visible():
        page.click('#compose button[data-compose="cancel"]')
    return None


def page_turn(page, rng, used, log):
    """One action of the remote player, by tapping."""
    settled(page)
    seq = seq_of(page)
    powers = page.eval_on_selector_all("#powers button[data-power]", "els => els.map(e => e.dataset.power)")
    fresh = [k for k in powers if (k not in used or (k == "reinforce" and "lights" not in used)) and k != "pass"]
    sources = (page.get_attribute("#board", "data-sources") or "").split()
    if fresh and rng.random() < 0.7:
        kind = rng.choice(fresh)
        used.add(kind)
        played = play_power(page, kind, rng, used)
        if played:
            log.append(played)
            return
        page.wait_for_selector("#compose", state="hidden")
    if sources:
        for frm in rng.sample(sources, len(sources)):
            tap(page, frm)
            flashes = lit(page, ("flash",))
            dests = lit(page)
            if not dests:
                tap(page, frm)
                continue
            to = rng.choice(flashes) if flashes and rng.random() < 0.6 else rng.choice(dests)
            tap(page, to)
            if page.locator("#compose button[data-choice]").count():
                page.click("#compose button[data-choice]")
            log.append("flash" if to in flashes else "tap")
            wait_seq_after(page, seq)
            return
    if "pass" in powers:
        page.click('#powers button[data-power="pass"]')
        log.append("pass")
        wait_seq_after(page, seq)
        return
    for kind in powers:
        played = play_power(page, kind, rng, used)
        if played:
            log.append(played)
            return
    raise AssertionError(f"nothing to tap at seq {seq}: powers {powers}, sources {sources}; the page says: "
                         f"{page.inner_text('#turn')!r} {page.inner_text('#act-error')!r} {page.inner_text('#compose')!r}")


def check_privacy(page, opp_state, me):
    """Every tower the page draws, against the opponent's own view of the same moment."""
    towers = page.eval_on_selector_all("#board g.tower", """els => els.map(e => [e.getAttribute('data-tower'),
        e.classList.contains('white') ? 'white' : 'black', (e.querySelector('use.face') || {getAttribute: () => null}).getAttribute('data-piece')])""")
    truth = {t["space"]: t for t in opp_state["view"]["board"]}
    text = page.inner_text("#game")
    assert "undefined" not in text and "null" not in text and "NaN" not in text, text
    assert sorted(t[0] for t in towers) == sorted(truth), "the page draws the towers where the game has them"
    for space, owner, piece in towers:
        t = truth[space]
        assert owner == t["owner"], space
        if owner == me:
            assert piece, f"your own tower on {space} shows its face"
        elif piece is not None:
            assert t["revealed"] and t["piece"] == piece, \
                f"the page shows the rival's {piece} on {space}, which the game never revealed to it"
