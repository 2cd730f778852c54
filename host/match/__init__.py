"""Match play (issue 33): the game clock the board runs, and the ways a game ends by the players'
choice rather than by play.  Sans-I/O; the session drives it."""
