"""The Sybil configuration for torchsheet pages, as one declaration."""

from __future__ import annotations

from pathlib import Path

from sybil import Example, Sybil
from sybil.parsers.myst import ClearNamespaceParser

from ..locations import NOT_PAGES
from .page_state import page_setup, page_teardown
from .regions import PageParser, block_of


def page_sybil(path: Path) -> Sybil:
    """The Sybil that collects every ``*.md`` page under ``path``."""
    return PageSybil(
        parsers=[PageParser(), ClearNamespaceParser()],
        patterns=["*.md"],
        excludes=[f"{folder}/*" for folder in NOT_PAGES],
        path=str(Path(path).absolute()),
        setup=page_setup,
        teardown=page_teardown,
    )


class PageSybil(Sybil):
    """Sybil whose test ids also name the section, ``page.md::line:42,column:1[section-slug]``:
    pytest reads the bracket as a parametrization, so ``-k section-slug`` selects a section."""

    def identify(self, example: Example) -> str:
        block = block_of(example.region)
        name = super().identify(example)
        return f"{name}[{block.slug}]" if block is not None and block.slug else name
