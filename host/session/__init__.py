"""One game at one table: the game, its referee, its seats and what each audience sees."""
