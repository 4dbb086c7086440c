"""The Sybil parser for a MyST page: every block of the page read once (:mod:`.page`) becomes
examples, each a :class:`PageRegion` carrying its block, or the page fails to collect naming
page:line. Which block becomes what: MAINTAINING.md, "How a page becomes tests"."""

from __future__ import annotations

from collections.abc import Iterable

from sybil import Document, Region
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.typing import Evaluator

from ..locations import place
from ..run import evaluators, prompt
from .page import Block, page_of
from .requirements import RequirementError


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


class PageParser:
    """Sybil parser turning a MyST page's code blocks into checked examples."""

    def __init__(self) -> None:
        self.doctest_parser = DocTestStringParser(prompt.DocTestExample())

    def __call__(self, document: Document) -> Iterable[Region]:
        page = page_of(document.path, document.text)
        if page.problems:
            raise RequirementError("\n".join(page.problems))
        for block in page.blocks:
            if block.not_run is not None:
                skip = evaluators.SkipWithReason(block.not_run)
                yield PageRegion(block.start, block.stop, None, skip, block)
            elif block.executed:
                yield from self._regions(document, block)

    def _regions(self, document: Document, block: Block) -> Iterable[Region]:
        where = place(document.path, block.line)
        requirement = block.requirement
        launched = requirement.torchrun or requirement.slurm
        expected = block.output
        if block.shows_deprecation and (launched or block.kind == "literalinclude"):
            raise RequirementError(
                f"{where}: shows-deprecation is for a block run in-process, whose output shows "
                "the warning; a launched block that shows one catches it "
                "(warnings.catch_warnings) and prints it"
            )
        script = block.included  # a literal-included file, run as a script
        if script is not None and not script.is_file():
            raise RequirementError(f"{where}: literalinclude names a missing file {script}")
        if launched:  # the launchers are imported only when a page needs one
            if requirement.slurm:
                from ..run.slurm.block import SlurmBlock as launcher
            else:
                from ..run.torchrun import TorchrunBlock as launcher
            evaluator = launcher(
                requirement, block.source, script, expected, gpu_host=block.gpu_host
            )
        elif script is not None:
            if script.suffix != ".py":
                raise RequirementError(
                    f"{where}: {block.argument} is not a Python script; declare how it runs "
                    "(needs-torchrun-N or needs-slurm)"
                )
            evaluator = evaluators.ScriptFile(script, expected)
        elif block.code.startswith(">>>"):
            if block.output_block is not None:
                raise RequirementError(
                    f"{where}: a >>> block shows its own output; drop the output block after it"
                )
            whole = Region(block.start, block.stop)
            whole.lexemes = {"source": block.source}
            for region in self.doctest_parser(block.code, document.path):
                region.adjust(whole, block.source)
                yield PageRegion(region.start, region.end, region.parsed, region.evaluator, block)
            return
        else:
            evaluator = prompt.PythonBlock(expected)
        parsed = None if script is not None else block.source
        yield PageRegion(block.start, block.stop, parsed, evaluator, block)
