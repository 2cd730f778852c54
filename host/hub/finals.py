"""A finished game is checked before the hub keeps it or rates anyone by it.

The board's final (``{"status", "record", "result", "mode", "players", ...}``) is replayed with the
rules engine as ``quin replay`` does (:func:`engine.record.load_record`, then every turn through
:func:`engine.record.play_turn`, then the record's ``termination``: a resignation or a flag at the
table), and refused when:

- its record is not a ``quin-record/1`` record (400, naming the field or the turn), or a turn of it
  is not legal (422, naming the turn and action);
- it says the game is over but the record does not end it, or ends it otherwise (``result``), or
  it is abandoned but the record ends the game (422);
- its ``mode`` is not the record's, or not the mode the game's live frames showed (422);
- its players' names are not the names the game's live frames showed (422).

Only a final that passes is stored, and only such a game is rated.
"""

from __future__ import annotations

import json

from engine.errors import QuinError
from engine.record import ReplayError, end_as_recorded, load_record, play_turn
from engine.views import view

from .validate import Invalid


def check(final: dict, where: str, uuid: str, live_mode: str | None = None,
          live_names: dict | None = None) -> list | None:
    """Invalid (400 or 422, naming ``where``'s field and the turn) unless the final is a game the
    engine replays to the result it claims.  ``live_mode``/``live_names``: what the game's public
    frames at the hub showed (None: nothing to compare).  The record's turns as a board's frames show
    them (:func:`_histories`), to compare with the live frames; None without a record."""

    def refuse(field: str, message: str, status: int = 422):
        raise Invalid(f"{where}.{field}: {message}", status=status, game=uuid, final=True)

    record = final.get("record")
    status = final["status"]
    if record is None:
        if status == "over":
            refuse("record", "a finished game's record (quin-record/1) is expected", 400)
        game = None
    else:
        try:
            parsed = load_record(record)
        except ReplayError as exc:
            refuse("record", str(exc).splitlines()[0][:300], 400)
        except (QuinError, ValueError, TypeError, KeyError) as exc:
            refuse("record", f"not a quin-record/1 record ({str(exc).splitlines()[0][:200]})", 400)
        game = parsed.new_game()
        for turn, (player, actions) in enumerate(parsed.turns, 1):
            try:
                play_turn(game, player, actions, turn)
            except ReplayError as exc:
                refuse("record", f"{str(exc).splitlines()[0][:300]}: not a legal game")
            except (QuinError, ValueError, TypeError, KeyError, IndexError) as exc:
                refuse("record", f"turn {turn} ({player}): {str(exc).splitlines()[0][:200]}: not a legal game")
        try:  # resigned, claimed or lost on time: ended as `quin replay` ends it
            end_as_recorded(game, parsed)
        except ReplayError as exc:
            refuse("record", f"{str(exc).splitlines()[0][:300]}: not a legal game")
    if game is not None:
        if final.get("mode") is not None and final["mode"] != game.mode:
            refuse("mode", f"{final['mode']}, but the record is a game of {game.mode}")
        if live_mode is not None and game.mode != live_mode:
            refuse("mode", f"the record is a game of {game.mode}, but the game was played live as {live_mode}")
        result = game.result.to_json() if game.result is not None else None
        if status == "over":
            if result is None:
                refuse("result", f"the game is said to be over, but its record ends with {game.to_move} to move "
                       f"on turn {game.turn}")
            given = final.get("result")
            if not isinstance(given, dict):
                refuse("result", "an object (status, winner, reason) is expected", 400)
            for field, fits, expected in (
                    ("status", given.get("status") in ("won", "drawn"), "'won' or 'drawn'"),
                    ("winner", "winner" in given and given["winner"] in ("white", "black", None), "white, black or null"),
                    ("reason", isinstance(given.get("reason"), str), "the reason (text)")):
                if not fits:
                    refuse(f"result.{field}", f"{expected} is expected, not {json.dumps(given.get(field))[:40]}", 400)
            for field in given:
                if field not in ("status", "winner", "reason"):
                    refuse(f"result.{field[:40]}", "not a field of a result (status, winner, reason)", 400)
            if given != result:
                refuse("result", f"the record ends {_said(result)}, not {_said(final.get('result'))}")
        elif result is not None:
            refuse("status", f"abandoned, but the record ends the game ({_said(result)})")
    elif final.get("result") is not None:
        refuse("result", "an abandoned game without a record has no result")
    for colour, shown in (live_names or {}).items():
        given = ((final.get("players") or {}).get(colour) or {}).get("name")
        if isinstance(shown, str) and isinstance(given, str) and _plain(shown) != _plain(given):
            refuse(f"players.{colour}.name", f"{given[:40]!r}, but {colour} was shown live as {shown[:40]!r}")
    return _histories(game) if game is not None else None


def _histories(game) -> list[list]:
    """The record's turns as a board's frames show them: during play, as a spectator sees them
    (``engine.views.view``); once over, opened (every action whole, as the status page's last frame
    shows the revealed game)."""
    opened: list[dict] = []
    for turn, actor, action in game.log:
        if not opened or opened[-1]["turn"] != turn:
            opened.append({"turn": turn, "player": actor, "actions": []})
        opened[-1]["actions"].append(action.to_record())
    return [view(game)["history"], opened]


def agrees(histories: list | None, frame) -> bool:
    """Whether a game's last live frame shows the turns of the record (either form of
    :func:`_histories`): the rule by which a table's game is rated (a record with no live frames,
    or with other turns than they showed, is not)."""
    state = frame.get("state") if isinstance(frame, dict) else None
    shown = state.get("view") if isinstance(state, dict) else None
    return histories is not None and isinstance(shown, dict) and shown.get("history") in histories


def _said(result) -> str:
    if not isinstance(result, dict):
        return "with no result" if result is None else "with a result that is not an object"
    winner = result.get("winner")
    return f"{winner} winning ({result.get('reason')})" if winner else f"in a draw ({result.get('reason')})"


def _plain(name: str) -> str:
    return " ".join(name.split())
