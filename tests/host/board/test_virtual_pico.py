"""The serial path against the virtual Pico: firmware/code.py under a real MicroPython (128K heap),
its data port on a pty, its ADC on a simulated field of towers (host/board/virtual_pico).

Nothing here is a fake of the board: the firmware, its copy of the codec and its thresholds
run in MicroPython; the host is the code `quin serve` runs (SerialSource, pump, Table, the
web API).  The players' hands move towers on the field; the test waits on conditions with
generous timeouts, never on how fast anything is.
"""

import io
import random
import sys
import threading
import time

import pytest
from tests.support.webplay import Driver

from engine.board import PLAYERS, SPACE_IDS, SPACE_NAMES, SPACES
from engine.randplay import random_game
from host.board import calibration as calmod
from host.board.calibration import Calibration, Level
from host.board.channel_map import default_map
from host.cli import main
from host.commands.serve_cmds import pump
from host.board.sources.serial_source import SerialLink, SerialSource
from host.board.virtual_pico import Field, VirtualPico
from host.system.config import calibration_file
from host.compose import create_app
from tests.support.waiting import waiter

# real time: what this file tests runs on the machine's clock (tools/lanes.sh gives it a lane of its own)
pytestmark = pytest.mark.realtime

WAIT = 60.0  # generous: only ever reached when something is broken (2 cores shared by many)


wait_until = waiter(timeout=WAIT, every=0.02)


def calibration_for(field):
    """What `quin calibrate` would record on this field (its physics, not the host's code)."""
    cmap = default_map()
    levels = [Level(0.0, 20.0)] * cmap.channels_needed
    levels = list(levels)
    for s, ch in field.space_channel.items():
        levels[ch] = Level(field.base[s], 10.0)
    for name, ch in field.refs.items():
        levels[ch] = Level(32768.0 if "half" in name else 40.0, 5.0)
    return Calibration.from_baseline(levels, cmap).with_placed({s: field.base[s] + field.tower for s in field.base})


@pytest.fixture
def pico(tmp_path):
    settings = {"rate_hz": 60, "brightness": 255}  # full brightness: the chain carries the host's colours as sent
    with VirtualPico(tmp_path / "quin-board", Field(noise=20, seed=3), settings=settings) as board:
        assert board.wait_for(lambda: board.boots == 1, WAIT), board.crashed
        yield board


# --- calibrate and doctor -------------------------------------------------------------------


class Watch(io.StringIO):
    def __init__(self, phrase):
        super().__init__()
        self.phrase = phrase
        self.seen = threading.Event()

    def write(self, s):
        if self.phrase in s:
            self.seen.set()
        return super().write(s)


def test_calibrate_then_doctor_against_the_virtual_pico(pico, tmp_path, monkeypatch):
    monkeypatch.setenv("QUIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    out = Watch("Now stand a tower")
    monkeypatch.setattr(sys, "stdout", out)

    def builder():  # once asked, a tower on every space until calibration ends
        if out.seen.wait(WAIT):
            pico.field.set_towers(SPACES)

    t = threading.Thread(target=builder, daemon=True)
    t.start()
    code = main(["calibrate", "--port", pico.path, "--seconds", "1", "--hold", "5", "--timeout", str(WAIT)])
    t.join(5)
    assert code == 0, out.getvalue()
    assert "99 of 99 spaces have a tower level" in out.getvalue()
    cal = calmod.load(calibration_file())
    s = SPACE_IDS["b23"]
    assert cal.spaces[s].baseline == pytest.approx(pico.field.base[s], abs=20)
    assert cal.spaces[s].delta == pytest.approx(pico.field.tower, abs=40)

    pico.field.set_towers({SPACE_IDS["hw2"]})
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    code = main(["doctor", "--port", pico.path, "--seconds", "1", "--svg", str(tmp_path / "heat.svg")])
    report = out.getvalue()
    assert code == 0, report
    assert "firmware 1.1.0: 101 channels" in report and "All sensors and the link are healthy." in report
    assert (tmp_path / "heat.svg").read_text().count("*") >= 1  # hw2 marked occupied on the heat map


def test_doctor_gets_full_rate_raw_frames_from_a_board_a_service_left_deciding(pico, tmp_path, monkeypatch):
    link = SerialLink(pico.path)
    source = SerialSource(link, calibration_for(pico.field), default_map())
    wait_until(lambda: source.read(0.1) is not None and link.config_acked, what="the board deciding")
    link.close()  # the service died without putting the board back to raw frames
    monkeypatch.setenv("QUIN_DATA_DIR", str(tmp_path / "data"))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    code = main(["doctor", "--port", pico.path, "--seconds", "1", "--svg", str(tmp_path / "heat.svg")])
    assert "frame rate" in out.getvalue()
    rate = float(out.getvalue().split("frame rate ")[1].split("/s")[0])
    assert rate > 5 * 1000 / source.raw_period_ms, out.getvalue()  # every scan, not the slow stream
    assert code == 1 and "no calibration" in out.getvalue()


# --- the board decides, with the host's thresholds ------------------------------------------


def test_the_board_sends_occupancy_changes_at_once_and_a_slow_raw_stream(pico):
    link = SerialLink(pico.path)
    source = SerialSource(link, calibration_for(pico.field), default_map())
    try:
        wait_until(lambda: source.read(0.1) is not None and link.config_acked, what="the board deciding")
        kinds = []
        orig = link._note
        link._note = lambda f: (kinds.append(f.kind), orig(f))
        pico.field.place(SPACE_IDS["w19"])
        snap = None
        while snap is None or snap.occupied != {SPACE_IDS["w19"]}:
            snap = source.read(WAIT)
            assert snap is not None
        assert link.config_acked and kinds.count(1) <= kinds.count(2)  # raw frames no more than occupancy ones
        # the thresholds are the calibration's: a quarter of the way to a tower is not a tower
        pico.field.lift(SPACE_IDS["w19"])
        pico.field.tower = 1000
        pico.field.place(SPACE_IDS["w18"])
        wait_until(lambda: (s := source.read(0.1)) is not None and s.occupied == frozenset(), what="w19 empty")
        # every slow raw frame is checked: a dead sensor is named at once and never read as a tower
        pico.field.tower = 4000
        pico.field.kill(SPACE_IDS["b35"])
        wait_until(lambda: (source.read(0.1), "b35" in source.status().message)[1], what="b35 reported dead")
    finally:
        source.close()


def test_drift_reaches_the_board(pico):
    link = SerialLink(pico.path)
    source = SerialSource(link, calibration_for(pico.field), default_map())
    try:
        wait_until(lambda: source.read(0.1) is not None and link.config_acked, what="the board deciding")
        sent = link._config
        pico.field.set_drift(600)  # warmer: every resting level creeps up, no tower anywhere
        # the host follows the drift from the slow raw stream and hands the board new baselines
        wait_until(lambda: (source.read(0.1), link._config != sent and link.config_acked)[1], what="new thresholds")
        wait_until(lambda: (source.read(0.1), min(source.converter.tracker.drift().values()) > 300)[1],
                   what="baselines followed the drift")
        pico.field.place(SPACE_IDS["he3"])
        wait_until(lambda: (s := source.read(0.1)) is not None and s.occupied == {SPACE_IDS["he3"]}, what="he3")
    finally:
        source.close()


# --- whole games, refereed over the virtual Pico ----------------------------------------------


class PicoDriver(Driver):
    """Players at a table with a virtual Pico: hands move towers on the field; the game is
    refereed by the code `quin serve --board serial` runs (SerialSource, pump, Table)."""

    def __init__(self, client, table, pico):
        super().__init__(client, table)
        self.pico = pico

    def board(self, occupied) -> None:
        want = frozenset(occupied)
        self.pico.field.set_towers(want)
        try:
            wait_until(lambda: self.table.occupied == want, what=f"the referee seeing {sorted(want)}")
        except AssertionError as exc:  # say why: the board's last words, the link, the source
            last = self.pico.last_words() if not self.pico.running else "running"
            raise AssertionError(f"{exc}; it sees {sorted(self.table.occupied or ())}; the Pico: {last}; "
                                 f"{self.source.status()}") from None

    def wait(self, seconds: float) -> None:
        if seconds < 1:  # a hand that stays still a moment after lifting or placing
            # the hand stays still on a real MicroPython firmware, which keeps the machine's time
            time.sleep(seconds)
            return
        # waiting for the referee: until it commits or asks the mover something
        game = self.table.game
        n = len(game.log)
        mover = game.to_move
        wait_until(lambda: len(game.log) > n or self.table.ref.private_status(mover).get("question")
                   or self.table.ref.phase != "play", timeout=20, what="the referee to commit or ask")

    def setup(self, white, black) -> None:
        self.seat_post("white", "setup", white.to_record())
        self.seat_post("black", "setup", black.to_record())
        game = self.table.game
        from engine.game import Game

        self.shadow = Game(white, black, game.mode, game.vision, game.first)
        self.board(game.occupied())
        wait_until(lambda: self.table.ref.phase == "play", what="play to start")


@pytest.fixture
def served(tmp_path, pico):
    """A table refereed from the virtual Pico the way `quin serve --board serial` does it."""

    def start(first):
        app = create_app({"DATA_DIR": str(tmp_path / "data"), "BOARD": "serial", "TICK": 0.05, "FIRST": first})
        table = app.extensions["quin.table"]
        link = SerialLink(pico.path, backoff=(0.05, 0.5))
        source = SerialSource(link, calibration_for(pico.field), default_map())
        stop = threading.Event()
        thread = threading.Thread(target=pump, args=(table, source, stop), daemon=True)
        thread.start()
        started.append((table, source, stop, thread))
        driver = PicoDriver(app.test_client(), table, pico)
        driver.source = source
        return driver, table, source

    started = []
    yield start
    for table, source, stop, thread in started:
        stop.set()
        thread.join(10)
        source.close()
        if getattr(table, "ticker_stop", None) is not None:
            table.ticker_stop.set()


def replay(driver, played, upto=None):
    for _, _, action in played.log[:upto]:
        driver.play(action)


def short_game(seed):
    played = random_game(seed, "classic", 60)
    assert played.is_over()
    return played


def test_a_whole_game_is_refereed_over_the_virtual_pico_with_its_leds(served, pico):
    played = short_game(174)  # 22 actions to the end
    driver, table, source = served(played.first)
    driver.setup(played.setups["white"], played.setups["black"])
    assert source.link.config_acked  # the board decides occupancy, with our thresholds
    replay(driver, played, 3)
    # the firmware decoded the host's LED frames: the board lights what the referee asked for
    want = dict(table.leds or {})
    assert want  # the last move, at least
    assert pico.wait_for(lambda: pico.lit() == want, WAIT), (pico.lit(), want)
    replay_from(driver, played, 3)
    assert table.game.is_over()
    assert [a for _, _, a in table.game.log] == [a for _, _, a in played.log]


# --- faults at the edge ------------------------------------------------------------------------


def status_line(table):
    return (table.source_status or {}).get("message", "")


FAULTS = ["unplug", "reset", "garbage", "stall"]


@pytest.mark.parametrize("fault", FAULTS)
def test_the_game_carries_on_by_itself_after(fault, served, pico):
    played = short_game(174)
    driver, table, source = served(played.first)
    driver.setup(played.setups["white"], played.setups["black"])
    replay(driver, played, 6)
    committed = list(table.game.log)
    restarts = source.link.stats()["restarts"]

    if fault == "unplug":  # the cable pulled, then put back (the board loses power: it restarts too)
        pico.unplug()
        wait_until(lambda: "unplugged" in status_line(table), what="the status saying the board is unplugged")
        assert table.source_status["ok"] is False
        pico.plug()
        wait_until(lambda: "was unplugged for" in status_line(table), what="the status saying it is back")
    elif fault == "reset":  # the firmware restarts on the same port: its sequence and clock start again
        pico.reset()
        wait_until(lambda: "firmware restarted" in status_line(table), what="the status saying it restarted")
        assert source.link.stats()["restarts"] == restarts + 1
    elif fault == "garbage":
        pico.garbage(bytes(random.Random(1).randrange(256) for _ in range(5000)))
        wait_until(lambda: "corrupted data" in status_line(table), what="the status naming the corruption")
    else:  # the port stalls for 5 s: plugged in, open, silent
        pico.pause()
        try:
            wait_until(lambda: "no frames from the board" in status_line(table), what="the status saying silent")
            assert table.source_status["ok"] is False
            t0 = time.monotonic()
            wait_until(lambda: time.monotonic() - t0 >= 5, what="five seconds")
        finally:
            pico.resume()
        wait_until(lambda: "was silent for" in status_line(table), what="the status saying it is back")
    message = status_line(table)
    assert "\n" not in message and len(message) < 200  # one line
    assert table.game.log == committed  # nothing committed lost, nothing committed meanwhile
    wait_until(lambda: source.link.config_acked, what="the board deciding again")
    replay_from(driver, played, 6)  # and the game goes on to its end, by itself
    assert table.game.is_over()
    assert [a for _, _, a in table.game.log] == [a for _, _, a in played.log]
    for player in PLAYERS:  # the phones carry the same line while it lasts
        token = table.tokens[player]
        state = driver.client.get(f"/api/seat/{token}/state").get_json()
        assert state["source"] == table.source_status


def replay_from(driver, played, start):
    for _, _, action in played.log[start:]:
        driver.play(action)


# --- the simulated players' hands drive the field ------------------------------------------------


def names(spaces):
    return sorted(SPACE_NAMES[s] for s in spaces)


def hands_over_the_pico(hands, referee, pico, source, timeout):
    """The closed loop of host.simulate.run_closed_loop, in real time, through the virtual Pico.

    Each of the hands' snapshots becomes the field's towers when its moment comes (hands time t
    is ``base + t`` on the host's monotonic clock, the clock of the serial source's snapshots);
    the firmware scans the field and sends frames over the pty; the serial source's snapshots
    are fed to the referee, its deadlines ticked, and every notice handed back to the players.
    Returns when the players are done and the referee has finished the game, or at ``timeout``."""
    from host.board.trace import SnapshotLine

    base = time.monotonic()
    give_up = base + timeout

    def tell(got, at):
        if got:
            hands.hear(got, max(at - base, hands.machine.now))

    while time.monotonic() < give_up:
        now = time.monotonic()
        due = referee.next_deadline()
        if due is not None and due <= now:
            tell(referee.tick(now), now)
            continue
        th = hands.next_time()
        if th is not None and base + th <= now:
            for event in hands.step():
                if isinstance(event, SnapshotLine):
                    pico.field.set_towers(event.occupied)
                else:
                    at = time.monotonic()
                    try:
                        got = referee.input(event.player, event.input, at)
                    except ValueError as exc:  # the referee's refusal: the phone shows it
                        hands.refused(event, str(exc))
                        continue
                    tell(got, at)
            continue
        if th is None and due is None and referee.game.is_over():
            return
        wake = [t for t in (due, None if th is None else base + th) if t is not None]
        wait = min([0.05] + [max(0.0, t - now) for t in wake])
        snap = source.read(wait)
        if snap is not None:
            tell(referee.feed(snap), snap.t)


def test_the_simulated_players_hands_play_a_whole_game_over_the_virtual_pico(pico):
    """host.simulate's hands (light noise: flicker, slides, bumps, phone words) move the towers the
    firmware senses; the referee behind the serial source referees the game to its end: the
    played record, or one the simulator's own oracle calls the same game."""
    from host.referee import Referee
    from host.simulate import Hands

    # relaxed hands: a brisk hand's moves come within a few tens of ms of each other, so whether
    # the referee reads them apart depends on how fast this shared machine runs the pty and loop
    played = random_game(99, "classic", 30)  # 10 actions: about 46 s of play, setup included
    assert played.is_over()
    hands = Hands(played, seed=99, noise="low", pace="relaxed")
    referee = Referee(hands.header.new_game())
    link = SerialLink(pico.path)
    source = SerialSource(link, calibration_for(pico.field), default_map())
    try:
        wait_until(lambda: source.read(0.1) is not None and link.config_acked, what="the board deciding")
        hands_over_the_pico(hands, referee, pico, source, timeout=2 * WAIT)  # the play itself takes ~46 s
        report = hands.report()
        assert not report["wrong_commits"], report["wrong_commits"]
        if not referee.game.is_over():  # say where it stopped: what the hands, the field and the board hold
            snaps = [e.occupied for e in hands.events if hasattr(e, "occupied")]
            board = next((s.occupied for s in (source.read(0.3) for _ in range(5)) if s is not None), None)
            raise AssertionError(
                f"committed {report['committed']} of {report['actions']}; waiting for {referee.stuck_reason()}; "
                f"gave up at {report['gave_up_at']}; hands {names(snaps[-1])}; field {names(pico.field.towers)}; "
                f"board {board and names(board)}; {source.status()}")
        assert report["exact"] or report["same_game"], report
        assert not report["refusals"] and not report["anomalies"], report
        snaps = [e.occupied for e in hands.events if hasattr(e, "occupied")]
        bounces = sum(1 for a, b, c in zip(snaps, snaps[1:], snaps[2:]) if a == c != b)
        assert bounces > 10, bounces  # the field flickered under the hands, not only clean edges
    finally:
        source.close()
