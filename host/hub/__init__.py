"""The Quin hub (issue 20): every board of a club live on one screen, every game archived.

- :mod:`host.hub.store`: the hub's own store, every PostgreSQL statement of the hub by what it
  does (the schema: tables, games, public events, players, ratings, remote games); the routes
  call it.
- :mod:`host.hub.server`: ``quin hub serve``, the spectators' pages, streams and read formats, and
  the boards' push endpoint; several processes may serve one database (LISTEN/NOTIFY wakes them).
- :mod:`host.hub.remote`: remote play (docs/remote-play.md): two players far apart, the true game
  on the hub (both lineups in its database, never sent but through a side's view), their streams,
  presence and pause, reveals for a board's referee, rematch, the archive under the table ``remote``.
- :mod:`host.hub.base`: what every route stands on (the base handler, the rate limiter).

The package holds what runs in the hub's processes, and two small formats a board shares with
it: :mod:`host.hub.frames` (the public frames' patches) and :mod:`host.hub.codes` (remote play's
game codes).  The board's side of the push (an outbox in the board's own store and the thread
that drains it to the hub: ``quin serve --hub URL --table-key K``) is :mod:`host.remote.push`,
beside the board's other link to a hub.

See docs/hub.md.
"""
