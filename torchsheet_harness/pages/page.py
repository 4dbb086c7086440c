"""A page read once: :func:`page_of`, cached per process by its text, gives its blocks, each
carrying everything known about it, and its problems; every later step takes that :class:`Page`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from sybil import Document, Lexeme
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer
from sybil.parsers.myst.lexers import DirectiveLexer

from ..locations import line_at, place
from ..results import page_digest
from .markers import Marker, parse_marker
from .requirements import SHOWS_DEPRECATION, Requirement, RequirementError, parse_classes

CODE_DIRECTIVES = r"code-block|sourcecode|code"
_HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


@dataclass
class Block:
    """One fenced code block or code directive of a page, as everything after it sees it."""

    start: int  # offsets in the page text: the opening fence ...
    stop: int  # ... to the end of the closing fence (of the output block, when it has one)
    line: int  # its first line (the opening fence or directive): its identity everywhere
    end: int  # its last line (the output block's closing fence, when it has one)
    kind: str  # 'fence', 'code-block' or 'literalinclude'
    argument: str  # the language, or the included path
    classes: tuple[str, ...]
    source: Lexeme  # the code, with its offset and line offset in the page
    section: str = ""  # the title of the heading it sits under ('' before the first)
    slug: str = ""  # that heading's anchor
    markers: tuple[Marker, ...] = ()  # the '%' lines directly above it, in order
    output_block: Block | None = None  # the ':class: output' block right after it
    requirement: Requirement = Requirement()
    included: Path | None = None  # a literalinclude's file

    @property
    def code(self) -> str:
        """Its code: between its fences, or the text of the file it includes."""
        if self.included is not None:
            return self.included.read_text(encoding="utf-8") if self.included.is_file() else ""
        return str(self.source)

    @property
    def output(self) -> str | None:
        """The text of its output block: what it must print."""
        return self.output_block.code if self.output_block is not None else None

    @property
    def is_output(self) -> bool:
        return self.argument == "text" and "output" in self.classes

    def reason(self, kind: str) -> str | None:
        """The text of the block's ``% kind:`` marker ('not-run', 'gpu-host'), or None."""
        return next((marker.text for marker in self.markers if marker.kind == kind), None)

    @property
    def not_run(self) -> str | None:
        return self.reason("not-run")

    @property
    def gpu_host(self) -> str | None:
        return self.reason("gpu-host")

    @property
    def shows_deprecation(self) -> bool:
        return SHOWS_DEPRECATION in self.classes

    @property
    def is_python(self) -> bool:
        """Python, or a literal-included script: a block whose classes are all its own."""
        return self.kind == "literalinclude" or self.argument == "python"

    @property
    def executed(self) -> bool:
        """Run as Python in-process, as processes, or as a literal-included script."""
        return self.not_run is None and self.is_python and not self.is_output

    @property
    def pasted(self) -> bool:
        """Python a reader pastes at the prompt (not a script, nor launched as processes)."""
        launched = self.requirement.torchrun or self.requirement.slurm
        python = self.argument == "python" and self.kind != "literalinclude"
        return self.executed and python and not launched

    @property
    def runs(self) -> bool:
        """Made an example: executed, or reported as not run."""
        return self.executed or self.not_run is not None


@dataclass
class Page:
    """A page's blocks in page order (output blocks folded into the block they follow)."""

    path: str
    text: str
    digest: str
    blocks: list[Block]
    problems: list[str] = field(default_factory=list)

    def block_at(self, line: int) -> Block | None:
        return next((block for block in self.blocks if block.line == line), None)


def read_page(path: str | Path) -> Page:
    """The page at ``path``, read from disk (cached while its text is unchanged)."""
    return page_of(str(path), Path(path).read_text(encoding="utf-8"))


@cache
def page_of(path: str, text: str) -> Page:
    """The page ``path`` whose source is ``text``: lexed once per process for each text."""
    from .coverage import page_problems  # its checks take the Page this module builds

    document = Document(text, path)
    page = Page(path, text, page_digest(text), _blocks(document))
    problems: list[str] = []
    headings = [
        (match.start(), match["title"])
        for match in _HEADING.finditer(text)
        if not any(block.start <= match.start() < block.stop for block in page.blocks)
    ]
    lines = text.splitlines()
    for block in page.blocks:
        problems += _identify(page, block, headings, lines)
    page.blocks = _fold_outputs(page, page.blocks, problems)
    page.problems = problems + page_problems(page)
    return page


def _blocks(document: Document) -> list[Block]:
    """Every ```lang fence and {code-block}/{literalinclude} directive, in page order."""
    found = []
    for region in FencedCodeBlockLexer(language=r"[^{\n][^\n]*|")(document):
        source = _with_line_offset(document, region.start, region.lexemes["source"])
        language = region.lexemes["language"].strip()
        found.append(Block(region.start, region.end, 0, 0, "fence", language, (), source))
    for name, kind in ((CODE_DIRECTIVES, "code-block"), ("literalinclude", "literalinclude")):
        for region in DirectiveLexer(directive=name, arguments=".*")(document):
            lexemes = region.lexemes
            classes = tuple(lexemes["options"].get("class", "").split())
            source = _with_line_offset(document, region.start, lexemes["source"])
            argument = lexemes["arguments"].strip()
            found.append(Block(region.start, region.end, 0, 0, kind, argument, classes, source))
    return sorted(found, key=lambda block: block.start)


def _identify(
    page: Page, block: Block, headings: list[tuple[int, str]], lines: list[str]
) -> list[str]:
    """Give ``block`` its lines, section and markers; return what is wrong with them."""
    block.line = line_at(page.text, block.start)
    block.end = line_at(page.text, block.stop - 1)
    title = next((title for at, title in reversed(headings) if at < block.start), None)
    if title is not None:
        block.section, block.slug = title.replace("`", ""), slug(title)
    above = block.line - 1  # 1-based line of the line above the block
    while above >= 1 and lines[above - 1].startswith("%"):
        above -= 1
    markers = (parse_marker(lines[n - 1], n) for n in range(above + 1, block.line))
    block.markers = tuple(marker for marker in markers if marker is not None)
    if block.kind == "literalinclude":
        block.included = (Path(page.path).parent / block.argument).resolve()
    where = place(page.path, block.line)
    problems = []
    try:
        block.requirement = parse_classes(" ".join(block.classes), where, block.is_python)
    except RequirementError as error:
        problems.append(str(error))
    if block.gpu_host:
        requirement = block.requirement
        if not requirement.torchrun or requirement.gpus or requirement.slurm:
            problems.append(f"{where}: '% gpu-host:' exempts a CPU torchrun block only")
    return problems


def _fold_outputs(page: Page, blocks: list[Block], problems: list[str]) -> list[Block]:
    """The blocks with each output block folded into the block right before it."""
    folded: list[Block] = []
    for block in blocks:
        before = folded[-1] if folded else None
        adjacent = before is not None and not page.text[before.stop : block.start].strip()
        if block.is_output and block.not_run is None:
            if adjacent and before.output_block is None and not before.is_output:
                before.output_block, before.stop, before.end = block, block.stop, block.end
                continue
            problems.append(
                f"{place(page.path, block.line)}: an output block must directly follow "
                "the block that prints it"
            )
        folded.append(block)
    return folded


def slug(title: str) -> str:
    """The anchor Sphinx gives a heading: lower case, runs of other characters as one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", title.replace("`", "").lower()).strip("-")


def _with_line_offset(document: Document, start: int, source: Lexeme) -> Lexeme:
    """``source`` whose line_offset counts the lines between the opening fence and the code
    (Sybil's lexers leave it 0 for directives: tracebacks would be short by the option lines)."""
    lines_after_fence = document.text.count("\n", start, start + source.offset) - 1
    return Lexeme(str(source), source.offset, max(lines_after_fence, 0))
