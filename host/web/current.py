"""What a request reads from the app serving it: the live table (``create_app``'s ``TABLE``)."""

from __future__ import annotations

from flask import current_app


def get_table():
    return current_app.extensions["quin.table"]
