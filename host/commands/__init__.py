"""Subcommands of `quin`, one module per concern."""
