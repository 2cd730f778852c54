"""How the tests run `quin`: the console script's entry point with this interpreter, so the
checkout's code runs whether or not the package is installed."""

import sys

QUIN = [sys.executable, "-c", "import sys; from host.cli import main; sys.exit(main())"]
