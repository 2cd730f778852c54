"""Calibration: levels, thresholds with hysteresis, drift, flags, storage, the channel map."""

import json
import random

import pytest

from engine.board import SPACE_IDS, SPACE_NAMES
from host.board import calibration as cal_mod
from host.board import channel_map as cm
from host.system.config import calibration_file, channel_map_file
from host.board.calibration import (
    Calibration,
    CalibrationError,
    Level,
    OccupancyTracker,
    PlacedRecorder,
    measure_levels,
    reference_faults,
    sensor_flags,
)

N = 101
BASE = 30000


def frame(overrides=None, base=BASE, noise=0, rng=None):
    r = [base + (rng.randint(-noise, noise) if noise else 0) for _ in range(N)]
    r[99], r[100] = 32768, 20
    for ch, v in (overrides or {}).items():
        r[ch] = v
    return r


def calibrated(delta=+4000, noise=20.0):
    levels = [Level(BASE, noise)] * 99 + [Level(32768, 3), Level(20, 2)]
    cal = Calibration.from_baseline(levels)
    return cal.with_placed({s: BASE + delta for s in range(99)})


def test_measure_levels_mean_and_noise():
    levels = measure_levels([[10, 100], [20, 100], [30, 100]])
    assert levels[0].mean == 20 and levels[0].noise == pytest.approx(8.165, abs=1e-3)
    assert levels[1] == Level(100, 0)
    with pytest.raises(CalibrationError):
        measure_levels([])


def test_thresholds_with_hysteresis_both_polarities():
    for delta in (+4000, -4000):
        cal = calibrated(delta)
        t = OccupancyTracker(cal)
        s = SPACE_IDS["w35"]
        ch = cal.spaces[s].channel
        sign = 1 if delta > 0 else -1
        assert t.update(frame()) == frozenset()
        assert t.update(frame({ch: BASE + sign * 2300})) == frozenset()  # 57 %: not yet
        assert t.update(frame({ch: BASE + sign * 2500})) == {s}  # 62 %: occupied
        assert t.update(frame({ch: BASE + sign * 1700})) == {s}  # 42 %: hysteresis holds it
        assert t.update(frame({ch: BASE + sign * 1500})) == frozenset()  # 37 %: empty again
        # the opposite direction is never a tower on a calibrated space
        assert t.update(frame({ch: BASE - sign * 9000})) == frozenset()


def test_uncalibrated_space_detects_a_change_either_way():
    levels = [Level(BASE, 20)] * 99 + [Level(32768, 3), Level(20, 2)]
    t = OccupancyTracker(Calibration.from_baseline(levels))
    assert t.update(frame({5: BASE - 3500})) == {5}
    assert t.update(frame({5: BASE + 3500})) == {5}
    assert t.update(frame()) == frozenset()


def test_channel_map_is_honoured():
    levels = [Level(BASE, 20)] * 112
    cmap = cm.ChannelMap(tuple(range(111, 12, -1)), {cm.REF_HALF: 0, cm.REF_GROUND: 1})
    cal = Calibration.from_baseline(levels, cmap).with_placed({s: BASE + 4000 for s in range(99)})
    t = OccupancyTracker(cal)
    r = [BASE] * 112
    r[111] = BASE + 4000
    assert t.update(r) == {0}


def test_from_baseline_needs_enough_channels():
    with pytest.raises(CalibrationError, match="needs 101"):
        Calibration.from_baseline([Level(BASE, 1)] * 99)


def test_drift_followed_on_stably_empty_spaces_only():
    cal = calibrated(+4000)
    t = OccupancyTracker(cal, drift_every=5, stable_frames=50, drift_rate=0.2)
    occupied_space = 7
    ch7 = cal.spaces[occupied_space].channel
    drifted = 0
    for i in range(1000):
        drifted = min(i * 2, 1500)  # temperature creeps by 1500 counts, slowly
        r = frame(base=BASE + drifted)
        r[ch7] = BASE + 4000  # a tower stands on space 7 all along
        occ = t.update(r)
    assert occ == {occupied_space}
    assert t.drift()[0] == pytest.approx(1500, abs=60)
    assert t.drift()[occupied_space] == 0  # an occupied space never drifts
    # after the drift, a tower change is still seen at the right level
    r = frame({cal.spaces[0].channel: BASE + 1500 + 2500}, base=BASE + 1500)
    assert 0 in t.update(r)
    saved = t.calibration()
    assert saved.spaces[0].baseline == pytest.approx(BASE + 1500, abs=60)
    assert saved.spaces[0].delta == pytest.approx(4000)


def test_a_tower_that_stays_is_not_absorbed_by_drift():
    cal = calibrated(+4000)
    t = OccupancyTracker(cal, drift_every=1, stable_frames=5, drift_rate=0.5)
    ch = cal.spaces[3].channel
    for _ in range(500):
        occ = t.update(frame({ch: BASE + 4000}))
    assert 3 in occ and t.drift()[3] == 0


def test_flags_weak_stuck_noisy_uncalibrated():
    levels = [Level(BASE, 20)] * 99 + [Level(32768, 3), Level(20, 2)]
    levels[0] = Level(BASE, 0.0)  # never moves
    levels[1] = Level(10, 3)  # at the rail: dead
    levels[2] = Level(BASE, 400)  # noisy
    levels[3] = Level(BASE, 100)  # noise too close to the tower change below
    cal = Calibration.from_baseline(levels).with_placed({s: BASE + 4000 for s in range(99) if s != 4})
    cal = cal.with_placed({5: BASE + 200, 3: BASE + 1000})  # 3: margin 400/100 = 4 sigmas
    flags = sensor_flags(cal)
    assert flags[0] == ["stuck"]
    assert flags[1] == ["stuck"]
    assert "noisy" in flags[2]
    assert flags[3] == ["weak"]
    assert flags[4] == ["uncalibrated"]
    assert flags[5] == ["weak"]
    assert set(flags) == {0, 1, 2, 3, 4, 5}
    assert cal_mod.describe_flags({4: ["uncalibrated"]}) == [f"{SPACE_NAMES[4]}: uncalibrated"]


def test_reference_faults():
    assert reference_faults({cm.REF_HALF: 32800, cm.REF_GROUND: 30}) == []
    faults = reference_faults({cm.REF_HALF: 20000, cm.REF_GROUND: 5000})
    assert len(faults) == 2 and "half-supply" in faults[0] and "ground" in faults[1]
    assert len(reference_faults({})) == 2


def test_placed_recorder_records_each_space_once_stable():
    cal = calibrated(+4000)
    rec = PlacedRecorder(cal, hold=5)
    rng = random.Random(1)
    order = list(range(99))
    rng.shuffle(order)
    for s in order:
        ch = cal.spaces[s].channel
        level = BASE - 3000 if s % 2 else BASE + 3000
        for _ in range(3):
            assert rec.feed(frame()) == []
        got = []
        for _ in range(6):
            got += rec.feed(frame({ch: level + rng.randint(-30, 30)}, noise=20, rng=rng))
        assert got == [s]
        assert rec.placed[s] == pytest.approx(level, abs=40)
    assert rec.remaining == []
    assert rec.feed(frame({0: BASE + 9000})) == []  # recorded once only


def test_placed_recorder_ignores_a_tower_in_passing():
    rec = PlacedRecorder(calibrated(), hold=10)
    for i in range(30):  # a tower swept across: never still
        assert rec.feed(frame({0: BASE + 1000 + 400 * i})) == []


def test_save_and_load_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("QUIN_DATA_DIR", str(tmp_path))
    cal = calibrated(-3000)
    path = cal.save(calibration_file())
    assert path == tmp_path / "calibration.json"
    loaded = cal_mod.load(calibration_file())
    assert loaded.spaces[10].placed == pytest.approx(BASE - 3000)
    assert loaded.spaces[10].channel == cal.spaces[10].channel
    assert loaded.references[cm.REF_HALF].mean == 32768
    assert not list(tmp_path.glob("*.tmp"))


def test_load_errors_are_one_line_and_name_the_problem(tmp_path):
    with pytest.raises(CalibrationError, match="run `quin calibrate`"):
        cal_mod.load(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        cal_mod.load(bad)
    data = calibrated().to_json()
    data["spaces"]["w35"]["baseline"] = "warm"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CalibrationError, match="space w35"):
        cal_mod.load(bad)
    del data["spaces"]["w35"]
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CalibrationError, match="w35 is missing"):
        cal_mod.load(bad)


# --- channel map -----------------------------------------------------------------------


def test_channel_map_csv_round_trip():
    m = cm.default_map()
    assert m.channels_needed == 101
    again = cm.parse_csv(m.to_csv())
    assert again == m


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda rows: rows[:-1], "ref_ground"),
        (lambda rows: rows[:1] + rows[2:], "no channel for space fs"),
        (lambda rows: rows + ["120,7,8,,ref_half"], "multiplexer 7"),
        (lambda rows: [rows[0], rows[1].replace(",fs", ",zz")] + rows[2:], "unknown space 'zz'"),
        (lambda rows: rows + ["5,0,5,5,wi"], "already used"),
        (lambda rows: [rows[0], "3,0,0,0,fs"] + rows[2:], "index 3 should be 0"),
        (lambda rows: ["mux,chan"] + rows[1:], "first line"),
    ],
)
def test_channel_map_errors_name_the_line(edit, message):
    rows = cm.default_map().to_csv().splitlines()
    with pytest.raises(cm.ChannelMapError, match=message):
        cm.parse_csv("\n".join(edit(rows)))


def test_channel_map_from_data_dir_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("QUIN_DATA_DIR", str(tmp_path))
    assert channel_map_file() is None and cm.load(channel_map_file()) == cm.default_map()
    rows = cm.default_map().to_csv().splitlines()
    rows[-1] = "111,6,15,,ref_ground"
    (tmp_path / "channel-map.csv").write_text("\n".join(rows), encoding="utf-8")
    assert cm.load(channel_map_file()).references[cm.REF_GROUND] == 111
