"""Where things are: which files are pages, and how the harness names a place, 'docs/page.md:42'."""

from __future__ import annotations

import os
from pathlib import Path

# Pages run inside a temporary working directory, so paths are made relative to the directory
# pytest was started from, read once when the harness is imported.
_START_DIR = Path.cwd()
#: Folders under docs/ that hold no pages (Sphinx's output).
NOT_PAGES = ("_build",)


def is_page(path: Path, docs: Path) -> bool:
    """Whether ``path`` is a page of ``docs``: a ``*.md`` file under it, at any depth outside
    ``_build`` (whose Markdown twins are output, not pages)."""
    try:
        parts = Path(path).absolute().relative_to(Path(docs).absolute()).parts
    except ValueError:
        return False
    return Path(path).suffix == ".md" and not set(parts) & {*NOT_PAGES}


def page_files(docs: Path) -> list[Path]:
    """Every page under ``docs``, sorted."""
    return sorted(page for page in docs.rglob("*.md") if is_page(page, docs))


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
