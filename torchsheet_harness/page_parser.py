"""The Sybil parser for a MyST page: every code block becomes an example or a loud error.

What it understands, in page order:

- ```` ```python ```` and ```` ```{code-block} python ```` blocks: executed in the page's namespace;
  a block whose source starts with ``>>>`` is a doctest, one example per prompt.
- ``:class: needs-...`` on a ``{code-block} python`` or ``{literalinclude}``: the requirement
  (see :mod:`.requirements`).
- ``{literalinclude}`` of a script in ``snippets/``: the script is run as a reader runs it.
- ``{code-block} text`` with ``:class: output`` right after a block: the output that block must
  print, checked.
- ``% not-run: reason`` right before any block: the block is reported SKIPPED with the reason.

Blocks in other languages are not examples; :mod:`.audit` fails on any that is not exempted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from sybil import Document, Lexeme, Region
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.parsers.abstract.doctest import DocTestStringParser
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer
from sybil.parsers.myst.lexers import DirectiveLexer

from . import evaluators
from .locations import place
from .requirements import Requirement, RequirementError, parse_classes

NOT_RUN = re.compile(r"^%[ \t]*not-run:[ \t]*(?P<reason>.*?)[ \t]*$\n(?:[ \t]*\n)*", re.MULTILINE)
CODE_DIRECTIVES = r"code-block|sourcecode|code"
OUTPUT_CLASS = "output"

#: Evaluators for requirement-bearing scripts, keyed by what they need; the distributed and
#: Slurm launchers register themselves here.
LAUNCHERS: dict[str, Callable[..., object]] = {}


@dataclass
class Block:
    """One fenced code block or code directive of a page."""

    start: int
    end: int
    kind: str  # 'fence', 'code-block' or 'literalinclude'
    argument: str  # the language, or the included path
    options: dict[str, str]
    source: object  # a sybil Lexeme

    @property
    def classes(self) -> str:
        return self.options.get("class", "")

    @property
    def is_output(self) -> bool:
        return self.argument == "text" and OUTPUT_CLASS in self.classes.split()


def lex_blocks(document: Document) -> list[Block]:
    """Every ```lang fence and {code-block}/{literalinclude} directive, in page order."""
    blocks = []
    for region in FencedCodeBlockLexer(language=r"[^{\n][^\n]*|")(document):
        language = region.lexemes["language"].strip()
        source = _with_line_offset(document, region.start, region.lexemes["source"])
        blocks.append(Block(region.start, region.end, "fence", language, {}, source))
    for name, kind in ((CODE_DIRECTIVES, "code-block"), ("literalinclude", "literalinclude")):
        for region in DirectiveLexer(directive=name, arguments=".*")(document):
            lexemes = region.lexemes
            blocks.append(
                Block(
                    region.start,
                    region.end,
                    kind,
                    lexemes["arguments"].strip(),
                    lexemes["options"],
                    _with_line_offset(document, region.start, lexemes["source"]),
                )
            )
    return sorted(blocks, key=lambda block: block.start)


def _with_line_offset(document: Document, start: int, source: Lexeme) -> Lexeme:
    """``source`` whose line_offset counts the lines between the opening fence and the code.

    Sybil's lexers leave it 0 for directives, so a block with ``:class:`` options would report
    traceback lines one short.
    """
    lines_after_fence = document.text.count("\n", start, start + source.offset) - 1
    return Lexeme(str(source), source.offset, max(lines_after_fence, 0))


class PageParser:
    """Sybil parser turning a MyST page's code blocks into checked examples."""

    def __init__(self, doctest_flags: int = evaluators.OPTION_FLAGS) -> None:
        self.doctest_parser = DocTestStringParser(DocTestEvaluator(doctest_flags))

    def __call__(self, document: Document) -> Iterable[Region]:
        blocks = lex_blocks(document)
        skips = {m.end(): m["reason"] for m in NOT_RUN.finditer(document.text)}
        consumed: set[int] = set()
        for index, block in enumerate(blocks):
            if block.start in consumed:
                continue
            place = _place(document, block.start)
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            output = following if _adjacent_output(document, block, following) else None
            if output is not None:
                consumed.add(output.start)
            end = output.end if output is not None else block.end
            reason = skips.get(block.start)
            if reason is not None:
                if not reason:
                    raise RequirementError(f"{place}: '% not-run:' needs a reason after the colon")
                yield _region(block.start, end, evaluators.SkipWithReason(reason), Requirement())
                continue
            if block.is_output:
                raise RequirementError(
                    f"{place}: an output block must directly follow the block that prints it"
                )
            if block.kind == "literalinclude":
                yield self._script(document, block, output, end, place)
            elif block.argument == "python":
                yield from self._python(document, block, output, end, place)

    def _python(
        self, document: Document, block: Block, output: Block | None, end: int, place: str
    ) -> Iterable[Region]:
        requirement = parse_classes(block.classes, place)
        source = block.source
        if requirement.torchrun or requirement.slurm:
            launcher = _launcher(requirement, place)
            expected = output.source if output is not None else None
            yield _region(block.start, end, launcher(source=source, expected=expected), requirement)
            return
        if source.startswith(">>>"):
            if output is not None:
                raise RequirementError(
                    f"{place}: a >>> block shows its own output; drop the output block after it"
                )
            for region in self.doctest_parser(source, document.path):
                region.adjust(_bare_region(block), source)
                yield _region(
                    region.start, region.end, region.evaluator, requirement, region.parsed
                )
            return
        expected = str(output.source) if output is not None else None
        evaluator = evaluators.PythonBlock(expected)
        yield _region(block.start, end, evaluator, requirement, source)

    def _script(
        self, document: Document, block: Block, output: Block | None, end: int, place: str
    ) -> Region:
        requirement = parse_classes(block.classes, place)
        script = (Path(document.path).parent / block.argument).resolve()
        if not script.is_file():
            raise RequirementError(f"{place}: literalinclude names a missing file {block.argument}")
        expected = str(output.source) if output is not None else None
        if not requirement.torchrun and not requirement.slurm:
            if script.suffix != ".py":
                raise RequirementError(
                    f"{place}: {block.argument} is not a Python script; declare how it runs "
                    "(needs-torchrun-N or needs-slurm)"
                )
            evaluator = evaluators.ScriptFile(script, expected)
        else:
            evaluator = _launcher(requirement, place)(script=script, expected=expected)
        return _region(block.start, end, evaluator, requirement)


def _launcher(requirement: Requirement, place: str) -> Callable[..., object]:
    key = "slurm" if requirement.slurm else "torchrun"
    if key not in LAUNCHERS:
        # Importing registers the launcher; kept lazy so pages without it pay nothing.
        __import__(f"torchsheet_harness.{key}_launcher")
    factory = LAUNCHERS[key]

    def make(**kwargs: object) -> object:
        return factory(requirement=requirement, place=place, **kwargs)

    return make


def _region(
    start: int, end: int, evaluator: object, requirement: Requirement, parsed: object = None
) -> Region:
    if not requirement.is_cpu_only:
        evaluator = evaluators.Gated(requirement, evaluator)
    region = Region(start, end, parsed, evaluator)
    region.requirement = requirement  # read by the pytest plugin to add markers
    return region


def _bare_region(block: Block) -> Region:
    region = Region(block.start, block.end)
    region.lexemes = {"source": block.source}
    return region


def _adjacent_output(document: Document, block: Block, following: Block | None) -> bool:
    if following is None or not following.is_output or block.is_output:
        return False
    return document.text[block.end : following.start].strip() == ""


def _place(document: Document, position: int) -> str:
    return place(document.path, document.text.count("\n", 0, position) + 1)
