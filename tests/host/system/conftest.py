import shutil

import pytest


@pytest.fixture
def systemd_tool():
    """The path of a systemd tool; a missing one fails the test (tools/test.sh installs systemd)."""

    def find(name):
        path = shutil.which(name)
        assert path, f"{name} is missing: tools/test.sh installs Debian's systemd package"
        return path

    return find


@pytest.fixture
def make_root(tmp_path):
    """A minimal system to set up: root and the player 'ada' (with a home), and the board's groups."""

    def make(groups=("dialout", "gpio")):
        root = tmp_path / "root"
        (root / "etc").mkdir(parents=True)
        (root / "home/ada").mkdir(parents=True)
        (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\nada:x:1000:1000:Ada:/home/ada:/bin/bash\n")
        lines = ["root:x:0:", "ada:x:1000:"] + [f"{g}:x:{20 + i}:" for i, g in enumerate(groups)]
        (root / "etc/group").write_text("\n".join(lines) + "\n")
        (root / "etc/shadow").write_text("root:*:19000:0:99999:7:::\nada:*:19000:0:99999:7:::\n")
        return root

    return make
