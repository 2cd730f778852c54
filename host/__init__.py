"""The Pi service: sensing, referee, store, web and the `quin` command."""
