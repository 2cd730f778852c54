"""Game history: finished and open games, the replay viewer and the record export.

Read-only, so each request asks a :class:`host.store.history.History` of its own on ``g`` (the
Flask tutorial's pattern), closed on teardown; the store runs the queries and the replays.

A finished (or abandoned) game has no secrets left: its replay shows every
identity and its ``quin-record/1`` record can be downloaded.  A game still in
setup or being played shows only the public view at each step, and its record
(which holds both lineups) is not served.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, current_app, g, jsonify, render_template

from engine.board import PLAYERS, WHITE
from engine.game import Game
from engine.record import to_record
from engine.views import action_seen_by, view
from host.store import GameRow, StoreError
from host.store.history import History

from .errors import ApiError

bp = Blueprint("history", __name__)

FINISHED = ("over", "abandoned")
GAME_ID = f"int(max={2**63 - 1})"  # SQLite's largest row id: a bigger game number is no game (404)


def get_db():
    if "db" not in g:
        g.db = History(current_app.config["DATA_DIR"])
    return g.db


def close_db(exc=None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()


def _game_row(game_id: int) -> GameRow:
    try:
        return get_db().game(game_id)
    except StoreError:
        raise ApiError(404, f"no game {game_id}") from None


def _summary(row: GameRow, actions: int) -> dict:
    return {
        "id": row.id,
        "created": row.created,
        "finished": row.finished,
        "mode": row.mode,
        "vision": row.vision,
        "first": row.first,
        "status": row.status,
        "result": row.result,
        "actions": actions,
        "damaged": f"its {row.damage}" if row.damage else None,
    }


def _damaged(row: GameRow, where: str) -> ApiError:
    return ApiError(409, f"game {row.id} is damaged in the store ({where} does not read or replay): "
                         "run `quin store check`")


@bp.get("/history")
def history_page():
    return render_template("history.html")


@bp.get(f"/history/<{GAME_ID}:game_id>")
def replay_page(game_id: int):
    _game_row(game_id)
    return render_template("replay.html", game_id=game_id)


@bp.get("/api/games")
def api_games():
    return jsonify({"games": [_summary(row, n) for row, n in get_db().summaries()]})


@bp.get(f"/api/games/<{GAME_ID}:game_id>")
def api_replay(game_id: int):
    """Every step of a game: the board, Zero Gravity and the action, as the viewer may see them."""
    row = _game_row(game_id)
    finished = row.status in FINISHED
    frames: list = []
    actions: list = []
    damaged = f"its {row.damage}" if row.damage else None
    if damaged is None and row.setups["white"] is not None and row.setups["black"] is not None:
        # A finished game is replayed in Vision Mode (same rules, every identity public);
        # an open one shows, at each step, only what was public at that step.
        replay = get_db().replayed(row, vision=finished or row.vision)
        actions, damaged = replay.actions, replay.damage
        if replay.game is not None:
            frames = [_frame(replay.game, None, None)]
            for turn, actor, action, game in replay.steps():
                frames.append(_frame(game, action_seen_by(game, action, actor, None), (turn, actor)))
                if finished:
                    frames[-1]["white_chance"] = white_chance(game)
            if finished and frames:
                frames[0]["white_chance"] = white_chance(get_db().replayed(row, vision=True).game)
    summary = dict(_summary(row, len(actions)), damaged=damaged)
    # A damaged game replays up to its damage; it is not exported.
    body = {"game": summary, "frames": frames, "exportable": finished and damaged is None}
    if finished and frames:
        body["turning_points"] = turning_points(frames)
    return jsonify(body)


# --- the game at a glance: the practice opponent's estimate, with full knowledge -------------------

CHANCE_SCALE = 12.0  # evaluation points for odds of e (a Shadow is 6 points: about 62% to 38%)
TURNING = 0.2  # a swing of a fifth of the chances, or more, is a turning point
MOST_TURNING = 5


def white_chance(game: Game) -> float:
    """White's chances, 0 to 1, as the practice opponent's evaluation sees the position knowing every
    identity (only ever asked of a finished game, where nothing is hidden any more): its points for
    White (material, Light moves to First Sight, Lights in danger, a win on the next move) through a
    logistic curve; a result is 1, 0 or a half."""
    import math

    from host.opponent.evaluate import evaluate, light_of

    result = game.result
    if result is not None:
        return 0.5 if result.winner is None else 1.0 if result.winner == WHITE else 0.0
    lights = {p: light_of(game, p) for p in PLAYERS}
    score = evaluate(game, WHITE, lights, frozenset(game.towers_of(WHITE)))
    return round(1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, score / CHANCE_SCALE)))), 3)


def turning_points(frames: list) -> list[dict]:
    """The moments the chances swung most: at most five, each a swing of TURNING or more, in order."""
    swings = []
    for i in range(1, len(frames)):
        before, after = frames[i - 1].get("white_chance"), frames[i].get("white_chance")
        if before is None or after is None or abs(after - before) < TURNING:
            continue
        swings.append({"step": i, "turn": frames[i]["turn"], "player": frames[i]["player"],
                       "white_before": before, "white_after": after})
    swings.sort(key=lambda t: (-abs(t["white_after"] - t["white_before"]), t["step"]))
    chosen: list[dict] = []
    for t in swings:  # the biggest first, no two within a turn of each other (a missed win and its answer)
        if len(chosen) < MOST_TURNING and all(abs(t["step"] - c["step"]) > 2 for c in chosen):
            chosen.append(t)
    return sorted(chosen, key=lambda t: t["step"])


def _frame(game: Game, action: dict | None, where) -> dict:
    v = view(game, None)
    return {
        "turn": where[0] if where else None,
        "player": where[1] if where else None,
        "action": action,
        "board": v["board"],
        "captured": v["captured"],
        "reserve": {p: v["reserve"][p]["count"] for p in PLAYERS},
        "result": v["result"],
        "to_move": v["to_move"],
    }


@bp.get(f"/api/games/<{GAME_ID}:game_id>/record")
def api_record(game_id: int):
    """The quin-record/1 record of a finished game, as a download."""
    row = _game_row(game_id)
    if row.status not in FINISHED:
        raise ApiError(403, f"game {game_id} is still {'in setup' if row.status == 'setup' else 'being played'}: its record holds hidden identities")
    if row.damage:
        raise _damaged(row, f"its {row.damage}")
    if row.setups["white"] is None or row.setups["black"] is None:
        raise ApiError(404, f"game {game_id} never started: there is no record")
    replay = get_db().replayed(row, vision=row.vision)
    if replay.damage is not None:
        raise _damaged(row, replay.damage)
    body = json.dumps(to_record(replay.final()), indent=1)
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="quin-game-{game_id}.json"'},
    )
