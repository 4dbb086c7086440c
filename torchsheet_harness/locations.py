"""Where things are: which files are pages, and how the harness names a place, 'docs/page.md:42'."""

from __future__ import annotations

import os
from pathlib import Path

# Pages run inside a temporary working directory, so paths are made relative to the directory
# pytest was started from, read once when the harness is imported.
_START_DIR = Path.cwd()
#: Folders under docs/ that hold no pages (Sphinx's output).
NOT_PAGES = ("_build",)


def page_files(docs: Path) -> list[Path]:
    """Every page under ``docs``: its ``*.md`` files outside ``_build``, sorted."""
    return sorted(
        page for page in docs.rglob("*.md") if not set(page.relative_to(docs).parts) & {*NOT_PAGES}
    )


def line_at(text: str, offset: int) -> int:
    """The 1-based line of character ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1


def display_path(path: str | os.PathLike[str], base: Path = _START_DIR) -> str:
    """``path`` relative to ``base`` (where the run started), when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)


def place(path: str | os.PathLike[str], line: int) -> str:
    """'page:line' as every harness message starts."""
    return f"{display_path(path)}:{line}"
