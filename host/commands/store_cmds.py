"""`quin store check` and `quin store salvage`: a damaged game store, and the way out of it."""

from __future__ import annotations

from host.commands import UserError
from host.commands.serve_cmds import _data_dir, _hold, _open_store, _reading


def add_parser(sub) -> None:
    p = sub.add_parser("store", help="check the game store, or salvage a damaged one")
    actions = p.add_subparsers(dest="store_command", metavar="ACTION")
    actions.required = True

    c = actions.add_parser("check", help="say in one line each what is damaged in the store (exit 1 if anything)")
    c.add_argument("--data-dir", help="where games are stored")
    c.set_defaults(func=cmd_check)

    s = actions.add_parser(
        "salvage",
        help="copy every game that still reads into a new store and set the damaged file aside",
        description="Copy every game that still reads and replays into a new store, keep the damaged file "
        "beside it (quin.sqlite3.damaged-DATE), and put the new store in its place. A game the damaged file "
        "does not yield whole (or a file that does not open at all) is taken from the newest readable backup "
        "in backups/; the report says which games came from where. quin serve must not run.",
    )
    s.add_argument("--data-dir", help="where games are stored")
    s.set_defaults(func=cmd_salvage)


@_reading
def cmd_check(args) -> int:
    from host.store import DB_NAME

    folder = _data_dir(args.data_dir)
    if not (folder / DB_NAME).exists():
        print(f"no game store in {folder} yet")
        return 0
    store = _open_store(folder, readonly=True)
    problems = store.problems()
    if not problems:
        print(f"the game store {store.path} is sound: {len(store.games())} game(s)")
        return 0
    for line in problems:
        print(f"{store.path}: {line}")
    print("run `quin store salvage` to copy every intact game into a new store "
          "(a game the file does not yield whole comes from the newest readable backup)", flush=True)
    return 1


def cmd_salvage(args) -> int:
    import sqlite3

    from host.store import DB_NAME, salvage

    folder = _data_dir(args.data_dir)
    path = folder / DB_NAME
    if not path.exists():
        raise UserError(f"there is no game store in {folder}")
    with _hold(folder):  # quin serve must not write meanwhile
        try:
            saved = salvage(path)
        except (OSError, sqlite3.Error) as exc:
            raise UserError(f"the store could not be salvaged: {exc}") from None
    print(f"{path}: {saved.describe()}")
    return 0
