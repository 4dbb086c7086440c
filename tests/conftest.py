"""The test suite's two sides are its folders: ``sheet/`` runs on every torch leg with the pages
(``nox -s docs-tests``), ``harness/`` once (``nox -s harness-tests``); ``support/`` holds the
modules they share, importable by name from either."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "support"))
