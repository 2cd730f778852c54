"""Where the service keeps its files.  One place, overridable for tests.

The board's modules (``host.board``) read and write the files they are given: which ones are the
data directory's is said here, above them."""

from __future__ import annotations

import os
from pathlib import Path

from host.board.calibration import CALIBRATION_FILE
from host.board.channel_map import CHANNEL_MAP_FILE


def data_dir() -> Path:
    """The data directory: $QUIN_DATA_DIR, else ~/.local/share/quin.  Created on first use."""
    path = Path(os.environ.get("QUIN_DATA_DIR") or Path.home() / ".local" / "share" / "quin")
    path.mkdir(parents=True, exist_ok=True)
    return path


def calibration_file() -> Path:
    """The board's calibration in the data directory (``quin calibrate`` writes it)."""
    return data_dir() / CALIBRATION_FILE


def channel_map_file() -> Path | None:
    """The board's own channel map in the data directory; None when it has none (the default wiring)."""
    candidate = data_dir() / CHANNEL_MAP_FILE
    return candidate if candidate.exists() else None
