"""The referee's journal: every call the board side makes to its referee, with the times it gave,
so that a game the referee got wrong (or stood still in) can be refereed again, exactly, away from
the board (``quin serve --referee-journal FILE``; ``bench/remote_replay.py`` replays one).

The referee is sans-I/O (``host.referee.machine``): what it does depends only on the calls it is
given (``feed``, ``tick``, ``input``, ``follow``, ``replace_game``) and on what its oracle answered
(remote play).  So the journal keeps exactly those, in the order they were made, each with the
board's own times: a replay makes the same calls and must reach the same commits.  It is off
unless asked for: a diagnosis tool (the soaks turn it on for their board's service).

Format ``quin-referee-journal/1``, JSON Lines; line 1 ``{"format": ..., "started": wall seconds}``,
then one object per call, ``"c"`` naming it:

- ``{"c": "new", "game": G, "settle": s, "reads": [...], "oracle": bool}``: a referee built on the
  game G (a new game, or a remote session's referee built again from the hub's state);
- ``{"c": "feed", "t": t, "occupied": [space names]}``, ``{"c": "tick", "t": t}``,
  ``{"c": "input", "t": t, "player": p, "input": data}`` (a word the referee refused included);
- ``{"c": "follow", "game": G, "plan": plan}``, ``{"c": "replace", "game": G}`` (remote play);
- ``{"c": "oracle", "ask": "flash" | "time", "actions": [records], "game": G | null}``: an
  oracle's answer, in the order the referee asked;
- ``{"c": "commit", "turn": n, "player": p, "action": record}``: what the referee committed
  (written by the referee's ``on_commit``: a replay checks it reaches the same).

G is a game as the referee held it (a pickle, base64: the stand-in game of a remote session holds
what this board may know and nothing more).  Writing never stops the game: a journal that cannot
be written is dropped with one log line.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import pickle
import threading
from typing import IO, Any, Callable

from engine.board import SPACE_NAMES

log = logging.getLogger("quin.journal")
FORMAT = "quin-referee-journal/1"


def pack_game(game) -> str | None:
    return None if game is None else base64.b64encode(pickle.dumps(game, protocol=4)).decode("ascii")


def unpack_game(text: str | None):
    return None if text is None else pickle.loads(base64.b64decode(text))  # noqa: S301 - our own journal


class Journal:
    """An open journal file: one line per call, flushed as written (a killed service leaves it whole)."""

    def __init__(self, fp: IO[str], wall: float = 0.0):
        self._fp = fp
        self._lock = threading.Lock()
        self._write({"format": FORMAT, "started": round(wall, 3)})

    @classmethod
    def open(cls, path, wall: float = 0.0) -> "Journal":
        """Appended to; a new file is readable by its owner only (it holds this board's lineups, as
        the store does)."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return cls(os.fdopen(fd, "a", encoding="utf-8"), wall)

    def _write(self, entry: dict) -> None:
        fp = self._fp
        if fp is None:
            return
        try:
            with self._lock:
                fp.write(json.dumps(entry, separators=(",", ":")) + "\n")
                fp.flush()
        except (OSError, TypeError, ValueError) as exc:
            log.warning("the referee's journal cannot be written (%s): it is no longer kept", exc)
            self._fp = None

    def write(self, c: str, **fields) -> None:
        self._write({"c": c, **fields})

    def close(self) -> None:
        fp, self._fp = self._fp, None
        if fp is not None:
            fp.close()

    def referee_factory(self, factory: Callable | None = None) -> Callable:
        """A ``referee_factory`` (``Service``/``Table``/``Session``) whose referees are journaled."""

        def make(game, on_commit=None, settle: float = 0.25, **kw):
            if factory is None:
                from host.referee import Referee as base
            else:
                base = factory
            oracle = kw.get("oracle")
            if oracle is not None:
                kw["oracle"] = JournaledOracle(oracle, self)
            self.write("new", game=pack_game(game), settle=settle, reads=sorted(kw.get("reads") or ()) or None,
                       oracle=oracle is not None)

            def committed(turn, player, action):
                out = on_commit(turn, player, action) if on_commit is not None else None
                self.write("commit", turn=turn, player=player, action=action.to_record())
                return out

            return JournaledReferee(base(game, on_commit=committed, settle=settle, **kw), self)

        return make


class JournaledOracle:
    """The referee's oracle, its answers journaled in the order they were given."""

    def __init__(self, oracle, journal: Journal):
        self._oracle = oracle
        self._journal = journal

    def flash(self, actions):
        got = self._oracle.flash(actions)
        self._journal.write("oracle", ask="flash", actions=[a.to_record() for a in actions], game=pack_game(got))
        return got

    def time(self, action):
        got = self._oracle.time(action)
        self._journal.write("oracle", ask="time", actions=[action.to_record()], game=pack_game(got))
        return got


class JournaledReferee:
    """A referee whose every call that can change it is journaled first; everything else is the
    referee's own (attributes read and set go through to it)."""

    def __init__(self, ref, journal: Journal):
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_journal", journal)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ref, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._ref, name, value)

    def feed(self, snapshot):
        self._journal.write("feed", t=snapshot.t, occupied=sorted(SPACE_NAMES[s] for s in snapshot.occupied))
        return self._ref.feed(snapshot)

    def tick(self, now: float):
        self._journal.write("tick", t=now)
        return self._ref.tick(now)

    def input(self, player: str, data: object, now: float):
        self._journal.write("input", t=now, player=player, input=data)
        return self._ref.input(player, data, now)

    def follow(self, game, plan: dict):
        self._journal.write("follow", game=pack_game(game), plan=plan)
        return self._ref.follow(game, plan)

    def replace_game(self, game):
        self._journal.write("replace", game=pack_game(game))
        return self._ref.replace_game(game)


CALLS = ("new", "feed", "tick", "input", "follow", "replace")


def read_journal(source) -> list[dict]:
    """A journal's entries (its header checked); ``source`` a path or lines.  ValueError names the line."""
    if not isinstance(source, (list, tuple)):
        with open(source, encoding="utf-8") as fp:
            source = fp.readlines()
    out = []
    for number, text in enumerate(source, 1):
        if not text.strip():
            continue
        try:
            entry = json.loads(text)
        except ValueError as exc:
            if number == len(source):
                break  # the last line of a service killed while writing it
            raise ValueError(f"line {number}: not valid JSON: {exc}") from None
        if not out and entry.get("format") is not None:
            if entry["format"] != FORMAT:
                raise ValueError(f"line {number}: format: expected {FORMAT!r}, got {entry['format']!r}")
            continue
        if not isinstance(entry, dict) or entry.get("c") not in CALLS + ("oracle", "commit"):
            raise ValueError(f"line {number}: expected an object whose 'c' is one of {', '.join(CALLS)}, oracle, commit")
        entry["line"] = number
        out.append(entry)
    return out


class _Answers:
    """The oracle of a replay: the answers the journal kept, in the order they were given."""

    def __init__(self):
        self.queue: list[dict] = []
        self.differing: list[str] = []

    def _next(self, ask: str, actions: list):
        if not self.queue:
            self.differing.append(f"the referee asked the oracle ({ask} {actions}) where the journal has no answer")
            return None
        entry = self.queue.pop(0)
        if entry["ask"] != ask or entry["actions"] != actions:
            self.differing.append(f"line {entry['line']}: the referee asked {ask} {actions}, the journal "
                                  f"{entry['ask']} {entry['actions']}")
        return unpack_game(entry["game"])

    def flash(self, actions):
        return self._next("flash", [a.to_record() for a in actions])

    def time(self, action):
        return self._next("time", [action.to_record()])


def replay(entries: list[dict], factory: Callable | None = None, watch: Callable | None = None) -> dict:
    """Referee a journal again: the same calls, the same oracle answers.  Returns ``commits`` (the
    replay's, as ``[turn, player, record]``), ``recorded`` (the journal's), ``same`` (they agree),
    ``differing`` (where the oracle was asked otherwise), ``referee`` (the last one) and ``notices``.
    ``watch(entry, referee, notices)`` is called after each call (a diagnosis's own look)."""
    from host.board.sensing import Snapshot
    from engine.board import SPACE_IDS

    if factory is None:
        from host.referee import Referee as factory
    from host.referee.notices import InputError

    commits: list = []
    recorded = [[e["turn"], e["player"], e["action"]] for e in entries if e["c"] == "commit"]
    answers = _Answers()
    notices: list = []
    ref = None
    for i, e in enumerate(entries):
        c = e["c"]
        if c not in CALLS:
            continue
        answers.queue = []
        for later in entries[i + 1:]:
            if later["c"] in CALLS:
                break
            if later["c"] == "oracle":
                answers.queue.append(later)
        got: list = []
        if c == "new":
            kw = {"reads": frozenset(e["reads"])} if e.get("reads") else {}
            if e.get("oracle"):
                kw["oracle"] = answers
            ref = factory(unpack_game(e["game"]), on_commit=lambda t, p, a: commits.append([t, p, a.to_record()]),
                          settle=e["settle"], **kw)
        elif ref is None:
            continue
        elif c == "feed":
            got = ref.feed(Snapshot(e["t"], frozenset(SPACE_IDS[n] for n in e["occupied"])))
        elif c == "tick":
            got = ref.tick(e["t"])
        elif c == "input":
            try:
                got = ref.input(e["player"], e["input"], e["t"])
            except InputError:
                got = []
        elif c == "follow":
            try:
                got = ref.follow(unpack_game(e["game"]), e["plan"])
            except ValueError:
                got = []
        elif c == "replace":
            try:
                got = ref.replace_game(unpack_game(e["game"]))
            except ValueError:
                got = []
        notices.extend(got)
        if watch is not None:
            watch(e, ref, got)
    return {"commits": commits, "recorded": recorded, "same": commits == recorded, "differing": answers.differing,
            "referee": ref, "notices": notices}


__all__ = ["FORMAT", "Journal", "JournaledReferee", "JournaledOracle", "pack_game", "unpack_game", "read_journal",
           "replay"]
