"""The Sybil configuration for torchsheet pages, as one declaration."""

from __future__ import annotations

from pathlib import Path

from sybil import Sybil
from sybil.parsers.myst import ClearNamespaceParser

from ..locations import NOT_PAGES
from .parser import PageParser
from .state import page_setup, page_teardown


def page_sybil(path: Path) -> Sybil:
    """The Sybil that collects every ``*.md`` page under the directory ``path``."""
    return Sybil(
        parsers=[PageParser(), ClearNamespaceParser()],
        patterns=["*.md"],
        excludes=[f"{folder}/*" for folder in NOT_PAGES],
        path=str(Path(path).absolute()),
        setup=page_setup,
        teardown=page_teardown,
    )
