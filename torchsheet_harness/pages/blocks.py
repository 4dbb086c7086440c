"""A page's code blocks, lexed once: where each is, what it declares, and the section it is in.

:func:`lex_blocks` is the one reading of a page's blocks. The parser (:mod:`.parser`) turns them
into examples and gives each region its :class:`BlockInfo`; the Sphinx extension reads the same
blocks to draw badges; the audit and the multi-node test find marked blocks with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sybil import Document, Lexeme
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer
from sybil.parsers.myst.lexers import DirectiveLexer

from ..locations import line_at, place
from .requirements import Requirement, RequirementError, parse_classes, shows_deprecation

NOT_RUN = re.compile(r"^%[ \t]*not-run:[ \t]*(?P<reason>.*?)[ \t]*$\n(?:[ \t]*\n)*", re.MULTILINE)
# A CPU torchrun block that shows the machine's default device on purpose: skipped, with the
# reason, in GPU-host mode (run/gpu_host.py) only.
GPU_HOST = re.compile(r"^%[ \t]*gpu-host:[ \t]*(?P<reason>.*?)[ \t]*$\n(?:[ \t]*\n)*", re.MULTILINE)
CODE_DIRECTIVES = r"code-block|sourcecode|code"
OUTPUT_CLASS = "output"
_HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class BlockInfo:
    """A block's identity, set once by the parser on each of its regions and read by everyone.

    ``line`` is the block's first line (its opening fence), ``section`` the slug of the heading
    it sits under ('' before the first), ``not_run`` the reason of a ``% not-run:`` exemption,
    ``output`` the span (start, end offsets in the page text) of the text of the output block
    that follows it, None without one: what ``--update-outputs`` rewrites; ``gpu_host`` the
    reason of a ``% gpu-host:`` exemption (not run in GPU-host mode); ``shows_deprecation``: it
    calls a deprecated API on purpose (``:class: shows-deprecation``).
    """

    line: int
    section: str
    requirement: Requirement = Requirement()
    not_run: str | None = None
    output: tuple[int, int] | None = None
    gpu_host: str | None = None
    shows_deprecation: bool = False


@dataclass
class Block:
    """One fenced code block or code directive of a page."""

    start: int
    end: int
    kind: str  # 'fence', 'code-block' or 'literalinclude'
    argument: str  # the language, or the included path
    options: dict[str, str]
    source: Lexeme
    line: int = 0
    section: str = ""
    not_run: str | None = None  # the reason of a '% not-run:' line right before it
    gpu_host: str | None = None  # the reason of a '% gpu-host:' line right before it

    @property
    def classes(self) -> str:
        return self.options.get("class", "")

    @property
    def is_output(self) -> bool:
        return self.argument == "text" and OUTPUT_CLASS in self.classes.split()

    @property
    def runs(self) -> bool:
        """Whether the parser makes the block an example: a '% not-run:' block (reported as
        not run), a literal-included script, or a Python block. An output block is checked
        with the block before it, and any other block is prose."""
        if self.not_run is not None:
            return True
        return not self.is_output and (self.kind == "literalinclude" or self.argument == "python")

    def requirement(self, path: str) -> Requirement:
        """What the block declares in its ``needs-*`` classes; RequirementError names page:line.

        A block that runs (Python or an included script) may carry no other class.
        """
        names = self.classes.split()
        if not (self.argument == "python" or self.kind == "literalinclude"):
            names = [name for name in names if name.startswith("needs-")]
        return parse_classes(" ".join(names), place(path, self.line))

    @property
    def source_span(self) -> tuple[int, int]:
        """Where the block's text (between its fences and options) lies in the page."""
        start = self.start + self.source.offset
        return start, start + len(self.source)

    def info(self, requirement: Requirement, output: Block | None = None) -> BlockInfo:
        span = output.source_span if output is not None else None
        shown = shows_deprecation(self.classes)
        return BlockInfo(
            self.line, self.section, requirement, self.not_run, span, self.gpu_host, shown
        )


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
    blocks.sort(key=lambda block: block.start)
    skips = {match.end(): match["reason"] for match in NOT_RUN.finditer(document.text)}
    gpu_host = {match.end(): match["reason"] for match in GPU_HOST.finditer(document.text)}
    headings = _headings(document.text, blocks)
    for block in blocks:
        block.line = line_at(document.text, block.start)
        block.not_run = skips.get(block.start)
        block.gpu_host = gpu_host.get(block.start)
        block.section = next((slug for at, slug in reversed(headings) if at < block.start), "")
    return blocks


def dangling_not_run(document: Document, blocks: list[Block]) -> list[int]:
    """Lines of '% not-run:' comments that no block directly follows."""
    starts = {block.start for block in blocks}
    return [
        line_at(document.text, match.start())
        for match in NOT_RUN.finditer(document.text)
        if match.end() not in starts
    ]


def check_not_run(document: Document, block: Block) -> None:
    """An exemption must say why."""
    if block.not_run == "":
        raise RequirementError(
            f"{place(document.path, block.line)}: '% not-run:' needs a reason after the colon"
        )


def check_gpu_host(document: Document, block: Block, requirement: Requirement) -> None:
    """A GPU-host exemption says why, and stands before a CPU torchrun block."""
    if block.gpu_host is None:
        return
    where = place(document.path, block.line)
    if not block.gpu_host:
        raise RequirementError(f"{where}: '% gpu-host:' needs a reason after the colon")
    if not requirement.torchrun or requirement.gpus or requirement.slurm:
        raise RequirementError(f"{where}: '% gpu-host:' exempts a CPU torchrun block only")


def slug(title: str) -> str:
    """The anchor Sphinx gives a heading: lower case, runs of other characters as one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", title.replace("`", "").lower()).strip("-")


def _headings(text: str, blocks: list[Block]) -> list[tuple[int, str]]:
    """(offset, slug) of every Markdown heading outside code blocks."""
    inside = [(block.start, block.end) for block in blocks]
    return [
        (match.start(), slug(match["title"]))
        for match in _HEADING.finditer(text)
        if not any(start <= match.start() < end for start, end in inside)
    ]


def _with_line_offset(document: Document, start: int, source: Lexeme) -> Lexeme:
    """``source`` whose line_offset counts the lines between the opening fence and the code.

    Sybil's lexers leave it 0 for directives, so a block with ``:class:`` options would report
    traceback lines one short.
    """
    lines_after_fence = document.text.count("\n", start, start + source.offset) - 1
    return Lexeme(str(source), source.offset, max(lines_after_fence, 0))
