"""Where the service keeps its files.  One place, overridable for tests."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """The data directory: $QUIN_DATA_DIR, else ~/.local/share/quin.  Created on first use."""
    path = Path(os.environ.get("QUIN_DATA_DIR") or Path.home() / ".local" / "share" / "quin")
    path.mkdir(parents=True, exist_ok=True)
    return path
