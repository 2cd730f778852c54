"""The board's links to a hub: a remote game played through it (``docs/remote-play.md``), and the
push of this table's games to a club's hub (:mod:`.push`, ``docs/hub.md``).

The hub holds the true game and both lineups; this board's Pi holds only its own player's
lineup and what is public.

- :mod:`.standin`: :func:`~host.remote.standin.standin_game`, an engine game rebuilt from the
  hub's view for this board's side, in which every unrevealed rival tower has a stand-in
  identity chosen from the view alone: enough to read this side's actions (their legality never
  depends on the rival's hidden identities), with the hub's answers filling in what a flash or
  a Power of Time reveals.
"""
