"""How the harness names a place in a page: 'docs/page.md:42'."""

from __future__ import annotations

import os
from pathlib import Path

# Pages run inside a temporary working directory, so paths are made relative to the directory
# pytest was started from, read once when the harness is imported.
_START_DIR = Path.cwd()


def display_path(path: str | os.PathLike[str]) -> str:
    """``path`` relative to where the run started, when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(_START_DIR.resolve()))
    except ValueError:
        return str(path)


def place(path: str | os.PathLike[str], line: int) -> str:
    """'page:line' as every harness message starts."""
    return f"{display_path(path)}:{line}"
