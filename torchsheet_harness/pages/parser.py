"""The Sybil parser for a MyST page: every code block becomes an example or a loud error.

What it understands, in page order (the blocks come from :func:`.blocks.lex_blocks`):

- ```` ```python ```` and ```` ```{code-block} python ```` blocks: executed in the page's namespace;
  a block whose source starts with ``>>>`` is a doctest, one example per prompt.
- ``:class: needs-...`` on a ``{code-block} python`` or ``{literalinclude}``: the requirement
  (see :mod:`.requirements`).
- ``{literalinclude}`` of a script in ``snippets/``: the script is run as a reader runs it.
- ``{code-block} text`` with ``:class: output`` right after a block: the output that block must
  print, checked.
- ``% not-run: reason`` right before any block: the block is reported SKIPPED with the reason.
- ``% gpu-host: reason`` right before a CPU torchrun block: it shows the machine's default
  device on purpose, and is SKIPPED with the reason in GPU-host mode only.

Every region it yields is a :class:`PageRegion` carrying its block's :class:`.blocks.BlockInfo`.
Blocks in other languages are not examples: once a page is parsed, a block no example covers, or
a fence that swallowed a heading or another block, is a collection error naming page:line
(:mod:`.coverage`, the check :mod:`..checks.audit` runs over all pages).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from sybil import Document, Region
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.typing import Evaluator

from ..locations import place
from ..run import evaluators
from ..run.static_gate import BlockCode
from .blocks import Block, BlockInfo, check_gpu_host, check_not_run, lex_blocks
from .coverage import page_problems
from .requirements import Requirement, RequirementError


class PageRegion(Region):
    """A Sybil region that knows the page block it comes from."""

    def __init__(
        self,
        start: int,
        end: int,
        parsed: object,
        evaluator: Evaluator,
        block: BlockInfo,
        code: BlockCode | None = None,
    ):
        if not block.requirement.is_cpu_only:
            evaluator = evaluators.Gated(block.requirement, evaluator, code)
        super().__init__(start, end, parsed, evaluator)
        self.block = block


def block_of(region: Region) -> BlockInfo | None:
    """The block of a page region; None for regions of other parsers (clear-namespace)."""
    return region.block if isinstance(region, PageRegion) else None


class PageParser:
    """Sybil parser turning a MyST page's code blocks into checked examples."""

    def __init__(
        self, doctest_flags: int = evaluators.OPTION_FLAGS, check_coverage: bool = True
    ) -> None:
        self.doctest_parser = DocTestStringParser(evaluators.DocTestExample(doctest_flags))
        self.check_coverage = check_coverage

    def __call__(self, document: Document) -> Iterable[Region]:
        spans = []
        for region in self._regions(document):
            spans.append((region.start, region.end))
            yield region
        if self.check_coverage and (problems := page_problems(document, spans)):
            raise RequirementError("\n".join(problems))

    def _regions(self, document: Document) -> Iterable[Region]:
        blocks = lex_blocks(document)
        consumed: set[int] = set()
        for index, block in enumerate(blocks):
            if block.start in consumed:
                continue
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            output = following if _adjacent_output(document, block, following) else None
            if output is not None:
                consumed.add(output.start)
            end = output.end if output is not None else block.end
            if block.not_run is not None:
                check_not_run(document, block)
                skip = evaluators.SkipWithReason(block.not_run)
                yield PageRegion(block.start, end, None, skip, block.info(Requirement()))
                continue
            if block.is_output:
                raise RequirementError(
                    f"{place(document.path, block.line)}: an output block must directly follow "
                    "the block that prints it"
                )
            if not block.runs:
                continue  # prose: a shell command, a tree, a table
            if block.kind == "literalinclude":
                yield self._script(document, block, output, end)
            else:
                yield from self._python(document, block, output, end)

    def _python(
        self, document: Document, block: Block, output: Block | None, end: int
    ) -> Iterable[Region]:
        info = block.info(block.requirement(document.path), output)
        check_gpu_host(document, block, info.requirement)
        source = block.source
        first_line = block.line + source.line_offset + 1  # of its code: for the static check
        code = BlockCode(str(source), document.path, first_line)
        if info.requirement.torchrun or info.requirement.slurm:
            _shown_in_process(document, info)
            expected = str(output.source) if output is not None else None
            launched = launcher(info.requirement)(
                info.requirement, source=source, expected=expected, gpu_host=block.gpu_host
            )
            code = None if info.requirement.slurm else code  # a batch script is no Python
            yield PageRegion(block.start, end, source, launched, info, code)  # parsed: for lint
            return
        if source.startswith(">>>"):
            if output is not None:
                raise RequirementError(
                    f"{place(document.path, block.line)}: a >>> block shows its own output; "
                    "drop the output block after it"
                )
            for region in self.doctest_parser(source, document.path):
                region.adjust(_bare_region(block), source)
                parsed, evaluator = region.parsed, region.evaluator
                yield PageRegion(region.start, region.end, parsed, evaluator, info, code)
            return
        expected = str(output.source) if output is not None else None
        yield PageRegion(block.start, end, source, evaluators.PythonBlock(expected), info, code)

    def _script(self, document: Document, block: Block, output: Block | None, end: int) -> Region:
        info = block.info(block.requirement(document.path), output)
        _shown_in_process(document, info)
        requirement = info.requirement
        check_gpu_host(document, block, requirement)
        script = (Path(document.path).parent / block.argument).resolve()
        where = place(document.path, block.line)
        if not script.is_file():
            raise RequirementError(f"{where}: literalinclude names a missing file {block.argument}")
        expected = str(output.source) if output is not None else None
        if requirement.torchrun or requirement.slurm:
            evaluator = launcher(requirement)(
                requirement, script=script, expected=expected, gpu_host=block.gpu_host
            )
        elif script.suffix != ".py":
            raise RequirementError(
                f"{where}: {block.argument} is not a Python script; declare how it runs "
                "(needs-torchrun-N or needs-slurm)"
            )
        else:
            evaluator = evaluators.ScriptFile(script, expected)
        code = BlockCode.of_script(script)
        return PageRegion(block.start, end, None, evaluator, info, code)


def launcher(requirement: Requirement) -> type:
    """The evaluator class that launches a multi-process block (imported only when needed)."""
    if requirement.slurm:
        from ..run.slurm.block import SlurmBlock

        return SlurmBlock
    from ..run.torchrun import TorchrunBlock

    return TorchrunBlock


def _shown_in_process(document: Document, info: BlockInfo) -> None:
    """A launched block (a process of its own) cannot declare shows-deprecation."""
    if info.shows_deprecation:
        raise RequirementError(
            f"{place(document.path, info.line)}: shows-deprecation is for a block run "
            "in-process, whose output shows the warning; a launched block that shows "
            "one catches it (warnings.catch_warnings) and prints it"
        )


def _bare_region(block: Block) -> Region:
    region = Region(block.start, block.end)
    region.lexemes = {"source": block.source}
    return region


def _adjacent_output(document: Document, block: Block, following: Block | None) -> bool:
    if following is None or not following.is_output or block.is_output:
        return False
    return document.text[block.end : following.start].strip() == ""
