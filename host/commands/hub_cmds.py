"""`quin hub ...`: the club's hub (docs/hub.md).

    quin hub serve --db DSN [--host H] [--port P]   serve spectators and boards (several may share one database)
    quin hub add-table NAME --db DSN                 a new table; prints the key its board pushes with
    quin hub add-player NAME --db DSN                a player; prints the code that ties their games to their rating
    quin hub init --db DSN                           create the schema (serve does it too)

The database is named by ``--db`` or ``$QUIN_HUB_DB`` (a libpq connection string or URL).
"""

from __future__ import annotations

import os
import sys

from host.commands import UserError


def add_parser(sub) -> None:
    p = sub.add_parser("hub", help="the club's hub: every board live on one screen, every game archived")
    actions = p.add_subparsers(dest="hub_command", metavar="ACTION")
    actions.required = True

    def db(q):
        q.add_argument("--db", default=os.environ.get("QUIN_HUB_DB"),
                       help="the hub's PostgreSQL database (default $QUIN_HUB_DB), e.g. postgresql://quin@localhost/quin")

    s = actions.add_parser("serve", help="serve the wall, the archive and the boards' pushes")
    db(s)
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: put a proxy in front)")
    s.add_argument("--port", type=int, default=8100, help="port (default 8100; 0 picks a free one)")
    s.add_argument("--pool", type=int, default=8, help="database connections of this process (default 8)")
    s.add_argument("--streams-per-address", type=int, default=64, metavar="N",
                   help="open spectator streams one address may hold (default 64)")
    s.add_argument("--push-rate", type=float, default=50.0, metavar="N",
                   help="pushes per second one table's key may make (bursts of 4x; default 50); one address "
                        "may make 4 times as many (several tables behind one router)")
    s.add_argument("--stream-rate", type=float, default=10.0, metavar="N",
                   help="spectator streams one address may open per second (bursts of 4x; default 10)")
    s.add_argument("--presence-renew", type=float, default=5.0, metavar="S",
                   help="remote play: seconds between renewals of a side's presence while its stream is open (default 5)")
    s.add_argument("--presence-lapse", type=float, default=15.0, metavar="S",
                   help="remote play: seconds after which a presence not renewed lapses (default 15)")
    s.add_argument("--remote-rate", type=float, default=20.0, metavar="N",
                   help="remote play: requests per second one seat may make (bursts of 4x; default 20); "
                        "one address 4 times as many")
    s.add_argument("--join-rate", type=float, default=1.0, metavar="N",
                   help="remote play: games one address may start or join per second (bursts of 20x; default 1)")
    s.add_argument("--connections-per-address", type=int, default=None, metavar="N",
                   help="open connections one address may hold (default 256, and at least --streams-per-address + 16)")
    s.add_argument("--idle-timeout", type=float, default=20.0, metavar="S",
                   help="seconds a connection may stay idle, or take to send a request's headers (default 20)")
    s.add_argument("--body-timeout", type=float, default=60.0, metavar="S",
                   help="seconds a request's body may take to arrive (default 60)")
    s.add_argument("--abandon-after", type=float, default=120.0, metavar="S",
                   help="remote play: seconds a side may be away before the other may claim the game (default 120)")
    s.set_defaults(func=cmd_serve)

    a = actions.add_parser("add-table", help="add a table and print the key its board pushes with")
    a.add_argument("name")
    db(a)
    a.set_defaults(func=cmd_add_table)

    pl = actions.add_parser("add-player", help="add a player and print their player code")
    pl.add_argument("name")
    db(pl)
    pl.set_defaults(func=cmd_add_player)

    i = actions.add_parser("init", help="create the hub's tables in the database")
    db(i)
    i.set_defaults(func=cmd_init)


def _connect(dsn: str | None):
    try:
        import psycopg
    except ImportError:
        raise UserError("the hub needs psycopg: pip install 'quin-companion[hub]'") from None
    if not dsn:
        raise UserError("no database: give --db or set QUIN_HUB_DB")
    try:
        return psycopg.connect(dsn, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise UserError(f"the hub's database is not reached: {str(exc).strip().splitlines()[0]}") from None


def cmd_init(args) -> int:
    from host.hub.store import schema

    with _connect(args.db) as conn:
        schema.ensure(conn)
    print("the hub's tables are ready")
    return 0


def cmd_add_table(args) -> int:
    from host.hub.store import schema

    with _connect(args.db) as conn:
        try:
            key = schema.add_table(conn, args.name)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    print(key)
    print(f"table {args.name.strip()!r} added; on its board: quin serve --hub URL --table-key {key}", file=sys.stderr)
    return 0


def cmd_add_player(args) -> int:
    from host.hub import ratings
    from host.hub.store import schema

    with _connect(args.db) as conn:
        schema.ensure(conn)
        try:
            code = ratings.add_player(conn, args.name)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    print(code)
    return 0


def cmd_serve(args) -> int:
    import asyncio
    import signal

    for flag, value in (("--push-rate", args.push_rate), ("--stream-rate", args.stream_rate),
                        ("--streams-per-address", args.streams_per_address),
                        ("--presence-renew", args.presence_renew), ("--presence-lapse", args.presence_lapse),
                        ("--remote-rate", args.remote_rate), ("--join-rate", args.join_rate),
                        ("--idle-timeout", args.idle_timeout), ("--body-timeout", args.body_timeout),
                        ("--connections-per-address", 1 if args.connections_per_address is None else args.connections_per_address),
                        ("--abandon-after", args.abandon_after)):
        if not value > 0:
            raise UserError(f"{flag}: a number above 0 is expected, not {value}")
    if args.presence_lapse <= args.presence_renew:
        raise UserError("--presence-lapse: more than --presence-renew is expected (a presence must outlive its renewal)")
    with _connect(args.db):  # a clear line now rather than a pool timing out later
        pass
    from host.hub import server

    async def run() -> None:
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, done.set)

        def ready(port: int) -> None:
            print(f"quin hub: serving on http://{args.host}:{port}/ (pid {os.getpid()})", flush=True)

        await server.serve(args.db, args.host, args.port, pool_size=args.pool, ready=ready, until=done,
                           stream_cap=args.streams_per_address, push_rate=args.push_rate,
                           stream_rate=args.stream_rate, presence_renew=args.presence_renew,
                           presence_lapse=args.presence_lapse, remote_rate=args.remote_rate, join_rate=args.join_rate,
                           connection_cap=args.connections_per_address, idle_timeout=args.idle_timeout,
                           body_timeout=args.body_timeout, abandon_after=args.abandon_after)

    try:
        asyncio.run(run())
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    print("quin hub: stopped", flush=True)
    return 0
