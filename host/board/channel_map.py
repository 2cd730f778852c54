"""Which multiplexer channel reads which space: the channel map.

The reference board has 7 CD74HC4067 multiplexers (16 channels each) sharing
their select lines.  A channel's *index* in a raw frame is
``multiplexer * 16 + channel``.  Besides the 99 spaces the map names two
reference channels for self-test: ``ref_half`` (a half-supply divider) and
``ref_ground``.

The builder's map lives in ``hardware/channel-map.csv``; a board wired
differently puts its own copy in the data directory (:data:`CHANNEL_MAP_FILE`,
``host.system.config.channel_map_file``), which then wins.  Errors name the
line and the field.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from engine.board import SPACE_IDS, SPACE_NAMES

MULTIPLEXERS = 7
CHANNELS_PER_MUX = 16
REF_HALF = "ref_half"
REF_GROUND = "ref_ground"
REFERENCES = (REF_HALF, REF_GROUND)
HEADER = ("index", "multiplexer", "channel", "space", "name")
CHANNEL_MAP_FILE = "channel-map.csv"  # a board's own map, in the data directory


class ChannelMapError(ValueError):
    pass


@dataclass(frozen=True)
class ChannelMap:
    """``space_channel[s]`` is the raw-frame index reading space ``s``; ``references`` by name."""

    space_channel: tuple[int, ...]
    references: dict[str, int]

    @property
    def channels_needed(self) -> int:
        """How many channels a raw frame must carry for this map."""
        return max(max(self.space_channel), *self.references.values()) + 1

    def rows(self) -> list[tuple[int, int, int, str, str]]:
        rows = [
            (ch, ch // CHANNELS_PER_MUX, ch % CHANNELS_PER_MUX, str(s), SPACE_NAMES[s])
            for s, ch in enumerate(self.space_channel)
        ]
        rows += [(ch, ch // CHANNELS_PER_MUX, ch % CHANNELS_PER_MUX, "", name)
                 for name, ch in self.references.items()]
        return sorted(rows)

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(self.rows())
        return out.getvalue()


def default_map() -> ChannelMap:
    """Spaces in id order on multiplexers 0..6, then the references on multiplexer 6."""
    n = len(SPACE_NAMES)
    return ChannelMap(tuple(range(n)), {REF_HALF: n, REF_GROUND: n + 1})


def parse_csv(text: str, origin: str = "channel map") -> ChannelMap:
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or tuple(h.strip() for h in header[:5]) != HEADER:
        raise ChannelMapError(f"{origin}: the first line must be {','.join(HEADER)}")
    space_channel: dict[int, int] = {}
    references: dict[str, int] = {}
    used: dict[int, int] = {}
    for line, row in enumerate(reader, start=2):
        if not row or not "".join(row).strip():
            continue
        if len(row) < 5:
            raise ChannelMapError(f"{origin} line {line}: expected 5 fields, got {len(row)}")
        index, mux, chan, space, name = (f.strip() for f in row[:5])
        try:
            mux_n, chan_n = int(mux), int(chan)
        except ValueError:
            raise ChannelMapError(f"{origin} line {line}: multiplexer and channel must be numbers") from None
        if not 0 <= mux_n < MULTIPLEXERS:
            raise ChannelMapError(f"{origin} line {line}: multiplexer {mux_n} is not 0..{MULTIPLEXERS - 1}")
        if not 0 <= chan_n < CHANNELS_PER_MUX:
            raise ChannelMapError(f"{origin} line {line}: channel {chan_n} is not 0..15")
        ch = mux_n * CHANNELS_PER_MUX + chan_n
        if index and index != str(ch):
            raise ChannelMapError(f"{origin} line {line}: index {index} should be {ch} (multiplexer*16+channel)")
        if ch in used:
            raise ChannelMapError(f"{origin} line {line}: multiplexer {mux_n} channel {chan_n} already used on line {used[ch]}")
        used[ch] = line
        if name in REFERENCES:
            references[name] = ch
            continue
        if name not in SPACE_IDS:
            raise ChannelMapError(f"{origin} line {line}: unknown space {name!r}")
        s = SPACE_IDS[name]
        if space and space != str(s):
            raise ChannelMapError(f"{origin} line {line}: space {name} has id {s}, not {space}")
        if s in space_channel:
            raise ChannelMapError(f"{origin} line {line}: space {name} is mapped twice")
        space_channel[s] = ch
    missing = [SPACE_NAMES[s] for s in range(len(SPACE_NAMES)) if s not in space_channel]
    if missing:
        raise ChannelMapError(f"{origin}: no channel for space {', '.join(missing[:5])}"
                              + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
    for ref in REFERENCES:
        if ref not in references:
            raise ChannelMapError(f"{origin}: no channel for the reference {ref}")
    return ChannelMap(tuple(space_channel[s] for s in range(len(SPACE_NAMES))), references)


def load(path: str | Path | None = None) -> ChannelMap:
    """The map at ``path``; else (None) the default.  The data directory's own map, when it has one,
    is ``host.system.config.channel_map_file()``."""
    if path is None:
        return default_map()
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ChannelMapError(f"cannot read the channel map {path}: {exc.strerror}") from None
    return parse_csv(text, str(path))
