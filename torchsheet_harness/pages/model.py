"""The page model every consumer reads (the Sybil run, the checks, the site, the exports): a
:class:`Page` of :class:`Block` objects, each carrying everything known about one code block.
Built by :func:`torchsheet_harness.pages.page.page_of`; pure data, no Sybil, no torch."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..locations import line_at
from .markers import Marker
from .requirements import SHOWS_DEPRECATION, Requirement


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
    source: str  # the code between its fences, options removed
    source_offset: int  # where ``source`` starts in the page text
    line_offset: int  # lines between the opening fence's line and the code's first line
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
        return self.source

    @property
    def first_code_line(self) -> int:
        """The page line of its code's first line."""
        return self.line + self.line_offset + 1

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
    def launched(self) -> bool:
        """Run as processes of its own: by torchrun or by Slurm."""
        return bool(self.requirement.torchrun or self.requirement.slurm)

    @property
    def executed(self) -> bool:
        """Run as Python in-process, as processes, or as a literal-included script."""
        return self.not_run is None and self.is_python and not self.is_output

    @property
    def pasted(self) -> bool:
        """Python a reader pastes at the prompt (not a script, nor launched as processes)."""
        python = self.argument == "python" and self.kind != "literalinclude"
        return self.executed and python and not self.launched

    @property
    def runs(self) -> bool:
        """Made an example: executed, or reported as not run."""
        return self.executed or self.not_run is not None


@dataclass(frozen=True)
class Prose:
    """The text of a page between two blocks, from its page ``line`` on."""

    text: str
    line: int


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

    def parts(self) -> Iterator[Prose | Block]:
        """The page in order: the text between blocks, and each outermost block."""
        position = 0
        for block in self.blocks:
            if block.start < position:
                continue  # a block shown inside another (a Markdown fence's example)
            if block.start > position:
                yield Prose(self.text[position : block.start], line_at(self.text, position))
            yield block
            position = block.stop
        if position < len(self.text):
            yield Prose(self.text[position:], line_at(self.text, position))
