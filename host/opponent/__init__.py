"""The practice opponent: a computer player that sees only what its seat may see."""
