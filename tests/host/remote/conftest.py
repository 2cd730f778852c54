import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scripthub import ScriptHub  # noqa: E402


@pytest.fixture
def scripthub():
    hub = ScriptHub()
    yield hub
    hub.close()
