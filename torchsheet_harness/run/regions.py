"""The Sybil parser for a page: every block of the page read once (:mod:`..pages.page`) becomes
examples, each a :class:`PageRegion` carrying its block, or the page fails to collect with its
problems ('page:line: why'; :mod:`..pages.problems` decides them all). Which block becomes what:
MAINTAINING.md, "How a page becomes tests"."""

from __future__ import annotations

from collections.abc import Iterable

from sybil import Document, Lexeme, Region
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.typing import Evaluator

from ..pages.model import Block
from ..pages.page import page_of
from . import evaluators, prompt


class PageProblems(ValueError):
    """The page cannot be run as written: its problems, one 'page:line: why' a line."""


class PageRegion(Region):
    """A Sybil region that knows the page block it comes from."""

    def __init__(self, start: int, end: int, parsed: object, evaluator: Evaluator, block: Block):
        if not block.requirement.is_cpu_only and block.not_run is None:
            evaluator = evaluators.Gated(block.requirement, evaluator)
        super().__init__(start, end, parsed, evaluator)
        self.block = block


def block_of(region: Region) -> Block | None:
    """The block of a page region; None for regions of other parsers (clear-namespace)."""
    return region.block if isinstance(region, PageRegion) else None


def source_lexeme(block: Block) -> Lexeme:
    """The block's code as Sybil's regions hold it: offset in the block, lines after its fence."""
    return Lexeme(block.source, block.source_offset - block.start, block.line_offset)


class PageParser:
    """Sybil parser turning a MyST page's code blocks into checked examples."""

    def __init__(self) -> None:
        self.doctest_parser = DocTestStringParser(prompt.DocTestExample())

    def __call__(self, document: Document) -> Iterable[Region]:
        page = page_of(document.path, document.text)
        if page.problems:
            raise PageProblems("\n".join(page.problems))
        for block in page.blocks:
            if block.not_run is not None:
                skip = evaluators.SkipWithReason(block.not_run)
                yield PageRegion(block.start, block.stop, None, skip, block)
            elif block.executed:
                yield from self._regions(document, block)

    def _regions(self, document: Document, block: Block) -> Iterable[Region]:
        requirement, script, expected = block.requirement, block.included, block.output
        source = source_lexeme(block)
        if block.launched:  # the launchers are imported only when a page needs one
            if requirement.slurm:
                from .slurm.block import SlurmBlock as launcher
            else:
                from .torchrun import TorchrunBlock as launcher
            evaluator = launcher(requirement, source, script, expected, gpu_host=block.gpu_host)
        elif script is not None:
            evaluator = evaluators.ScriptFile(script, expected)
        elif block.code.startswith(">>>"):
            whole = Region(block.start, block.stop)
            whole.lexemes = {"source": source}
            for region in self.doctest_parser(block.code, document.path):
                region.adjust(whole, source)
                yield PageRegion(region.start, region.end, region.parsed, region.evaluator, block)
            return
        else:
            evaluator = prompt.PythonBlock(expected)
        parsed = None if script is not None else source
        yield PageRegion(block.start, block.stop, parsed, evaluator, block)
