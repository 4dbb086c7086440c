"""The Sybil configuration for torchsheet pages, as one declaration."""

from __future__ import annotations

from pathlib import Path

from sybil import Example, Sybil
from sybil.parsers.myst import ClearNamespaceParser

from ..locations import is_page
from .page_state import page_setup, page_teardown
from .regions import PageParser, block_of


def page_sybil(path: Path) -> Sybil:
    """The Sybil that collects every ``*.md`` page under ``path``."""
    return PageSybil(
        parsers=[PageParser(), ClearNamespaceParser()],
        patterns=["*.md"],
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

    def should_parse(self, path: Path) -> bool:
        """Pages only: Sybil's ``excludes`` match a path from its end, so ``_build/*`` would miss
        the site's Markdown twins two folders down (``_build/html/distributed/ddp.md``)."""
        return is_page(path, Path(self.path)) and super().should_parse(path)
