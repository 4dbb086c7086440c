"""The Sybil configuration for torchsheet pages, as one declaration."""

from __future__ import annotations

from pathlib import Path

from sybil import Sybil
from sybil.parsers.myst import ClearNamespaceParser

from .page_parser import PageParser
from .page_state import page_setup, page_teardown


def page_sybil(path: Path) -> Sybil:
    """The Sybil that collects every ``*.md`` page under the directory ``path``."""
    return Sybil(
        parsers=[PageParser(), ClearNamespaceParser()],
        patterns=["*.md"],
        excludes=["_build/*"],
        path=str(Path(path).absolute()),
        setup=page_setup,
        teardown=page_teardown,
    )
