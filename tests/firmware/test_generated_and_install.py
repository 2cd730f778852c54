"""Generated files are current; `quin firmware install` puts the firmware on a drive."""

import pytest
from tests.support.quin_sim import ROOT

from host.board import hardware_files as hf
from host.cli import main


@pytest.mark.parametrize("path", sorted(hf.generated_files()), ids=lambda p: p.name)
def test_generated_file_is_current(path):
    assert path.read_text(encoding="utf-8") == hf.generated_files()[path], (
        f"{path} is stale or edited by hand: run `quin firmware build` / `quin hardware build`"
    )


def test_build_check_commands_agree(capsys):
    assert main(["firmware", "build", "--check"]) == 0
    assert main(["hardware", "build", "--check"]) == 0


def test_board_svg_names_every_space_with_its_channel():
    text = (ROOT / "hardware" / "board.svg").read_text()
    from engine.board import SPACE_NAMES

    for s, name in enumerate(SPACE_NAMES):
        assert f'id="space-{name}"' in text
    assert "m6 c2" in text  # space 98 on multiplexer 6 channel 2


def drive(tmp_path):
    d = tmp_path / "CIRCUITPY"
    d.mkdir()
    (d / "boot_out.txt").write_text("Adafruit CircuitPython 9.2.1 on Raspberry Pi Pico with rp2040\n")
    return d


def test_install_copies_firmware_and_libraries(tmp_path, capsys):
    d = drive(tmp_path)
    assert main(["firmware", "install", str(d), "--leds", "99"]) == 0
    assert (d / "code.py").read_text() == (ROOT / "firmware" / "code.py").read_text()
    assert (d / "boot.py").exists()
    assert (d / "lib" / "quin_protocol.py").read_text() == hf.protocol_copy()
    assert (d / "lib" / "quin_firmware.py").exists() and (d / "lib" / "quin_hw.py").exists()
    assert "99" in (d / "quin_settings.py").read_text()
    assert not list(d.rglob("*.tmp"))
    out = capsys.readouterr().out
    assert out.index("copied code.py") > out.index("copied lib/quin_protocol.py")  # code.py last


def test_install_refuses_what_is_not_a_circuitpy_drive(tmp_path, capsys):
    assert main(["firmware", "install", str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["firmware", "install", str(plain)]) == 2
    err = capsys.readouterr().err
    assert "boot_out.txt" in err and "Traceback" not in err
    assert not (plain / "code.py").exists()
    assert main(["firmware", "install", str(plain), "--force"]) == 0


def test_install_bad_led_count(tmp_path, capsys):
    assert main(["firmware", "install", str(drive(tmp_path)), "--leds", "999"]) == 2
    assert "--leds" in capsys.readouterr().err
