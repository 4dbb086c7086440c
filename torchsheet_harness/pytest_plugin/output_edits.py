"""The text side of ``--update-outputs`` (no pytest): where an example's output lies in its page
as collected, the edit that rewrites it (only the lines that differ), and :class:`NotUpdatable`,
why an output is not rewritten."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sybil import Example

from ..locations import line_at
from ..results import page_digest
from ..run.outputs import OutputMismatch, matches, updated_expected
from ..run.regions import block_of

_FENCE = re.compile(r"^\s*(```|~~~)")
_OPTION_LINE = re.compile(r"^:\w[\w-]*:")


class NotUpdatable(Exception):
    """Why a differing output is not rewritten."""


@dataclass
class Edit:
    """Replace ``old`` at page[start:end] by ``new``, in the text whose digest the run read."""

    page: str
    digest: str
    start: int
    end: int
    old: str
    new: str
    line: int


def edit_for(example: Example, mismatch: OutputMismatch) -> Edit:
    """The edit of the page that makes ``example`` show what its code printed."""
    text = example.document.text
    if mismatch.part == "block":
        block = block_of(example.region)
        if block is None or block.output_block is None:
            raise NotUpdatable("the block has no output block to rewrite")
        output = block.output_block
        start = output.source_offset
        end, indent = start + len(output.source), ""
        if text[start:end] != mismatch.expected:
            raise NotUpdatable("the output block is not where the page was read")
    else:
        start, end, indent = _doctest_span(example, mismatch)
    lines = _page_lines(updated_expected(mismatch.expected, mismatch.got), mismatch.part)
    if not matches("".join(f"{line}\n" for line in lines), mismatch.got):
        raise NotUpdatable("no text found that the comparison accepts")
    new = "".join(f"{indent}{line}\n" for line in lines)
    old = text[start:end]
    # An output block's text ends where its closing fence starts (an empty one: the fence's own
    # line), so the new text keeps the old one's ending, and always one before a fence.
    if mismatch.part == "block" and old and old.endswith("\n") != new.endswith("\n"):
        new = new + "\n" if old.endswith("\n") else new.rstrip("\n")
    return Edit(example.path, page_digest(text), start, end, old, new, line_at(text, start))


def _doctest_span(example: Example, mismatch: OutputMismatch) -> tuple[int, int, str]:
    """(start, end, indent) of a doctest example's output (or exception line(s)) in the page."""
    text = example.document.text
    parsed = example.parsed
    indent = " " * parsed.indent
    position = example.region.start
    if not text.startswith(f"{indent}>>>", position):
        raise NotUpdatable("the example is not where the page was read")
    for _ in range(parsed.source.count("\n")):
        position = text.index("\n", position) + 1
    want = parsed.want
    end = position + len(_indented(want, indent))
    if text[position:end] != _indented(want, indent):
        raise NotUpdatable("the example's output is not where the page was read")
    if mismatch.part == "exception":
        message = _indented(parsed.exc_msg, indent)
        if not text[position:end].endswith(message):
            raise NotUpdatable("the exception line is not where the page was read")
        position = end - len(message)
    return position, end, indent


def _indented(text: str, indent: str) -> str:
    return "".join(indent + line for line in text.splitlines(keepends=True))


def _page_lines(lines: list[str], part: str) -> list[str]:
    """``lines`` as the page must write them: an output block's, or a doctest output's (a blank
    line written <BLANKLINE>); NotUpdatable when the page could not hold them."""
    if part == "block":
        if not lines:
            raise NotUpdatable("the code printed nothing; remove the output block by hand")
        if any(_FENCE.match(line) for line in lines):
            raise NotUpdatable("a printed line would close the output block's fence")
        if _OPTION_LINE.match(lines[0]):
            raise NotUpdatable("the first printed line would read as a directive option")
        return lines
    lines = [line if line.strip() else "<BLANKLINE>" for line in lines]
    if any(line.lstrip().startswith(">>>") for line in lines):
        raise NotUpdatable("a printed line starts with '>>>' and would read as an example")
    if part == "want" and lines and lines[0].lstrip().startswith("..."):
        raise NotUpdatable("the first printed line starts with '...' and would read as code")
    return lines


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` applied bottom-up, so the offsets of the others stay right."""
    if any(edit.digest != page_digest(text) for edit in edits):
        raise NotUpdatable("the page changed during the run")
    edits = sorted(edits, key=lambda edit: edit.start, reverse=True)
    for later, earlier in zip(edits, edits[1:], strict=False):
        if earlier.end > later.start:
            raise NotUpdatable(f"two rewrites overlap at line {earlier.line}")
    for edit in edits:
        if text[edit.start : edit.end] != edit.old:
            raise NotUpdatable(f"line {edit.line} is not what the run read")
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text
