"""The ``%`` markers of a page: one grammar (:data:`_FORMS`), and every check of them that needs
only the page, :func:`page_marker_problems`, which collection calls (each problem 'page:line:
why'). The site reads the same markers from the doctree and re-checks none of this. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import groupby
from typing import Protocol

from ..locations import place
from .excerpts import ExcerptError, excerpt_lines, excerpt_problem, python_source
from .messages import message_problem

KINDS = ("quickref", "pitfall", "error", "warning", "alias", "not-run", "gpu-host")
#: Markers that list their block somewhere, so the block must run.
SHOWING = ("quickref", "pitfall", "error", "warning")
#: A section title that announces a trap.
TRAP_TITLE = re.compile(r"\b(pitfalls?|traps?|gotchas?|mistakes?|wrong)\b", re.IGNORECASE)
#: A comment in a block that says the block does it wrong on purpose.
WRONG_COMMENT = re.compile(r"#.*\bWRONG\b")
_LINE = re.compile(r"%?\s*(?P<kind>[a-z-]+):(?P<text>.*)")
_PITFALL = "'% pitfall: <the mistake> | <what it does> | <the fix>'"
_FORMS = {
    "quickref": "'% quickref: <section>' (or '% quickref: <section> | 2, 4-5')",
    "pitfall": f"{_PITFALL} (three parts separated by ' | ')",
    "error": "'% error: <the message as torch prints it>'",
    "warning": "'% warning: <the warning message as printed>'",
    "alias": "'% alias: <older wording> | <torch version(s) or pytorch/pytorch@<commit>:<path> "
    "where printed>'",
    "not-run": "'% not-run: <why it is not run>'",
    "gpu-host": "'% gpu-host: <why it shows the default device>'",
}


@dataclass(frozen=True)
class Marker:
    """One ``%`` line: its kind ('quickref', 'error', ...), the text after the colon, its line."""

    kind: str
    text: str
    line: int


def parse_marker(text: str, line: int) -> Marker | None:
    """The marker on one comment line (with or without its ``%``); None: not a marker."""
    match = _LINE.fullmatch(text.strip())
    if match is None or match["kind"] not in KINDS:
        return None
    return Marker(match["kind"], match["text"].strip(), line)


class MarkedBlock(Protocol):
    """A block as collection reads it (the pages side's blocks satisfy this)."""

    line: int  # its opening fence (or directive) line
    markers: tuple[Marker, ...]  # the % lines directly above it, in order
    code: str  # between its fences, options removed (an included script: the file's text)
    output: str | None  # the text of the ':class: output' block right after it
    executed: bool  # runs as Python or a literal-included script
    section: str  # the title of the heading it sits under


@dataclass(frozen=True)
class Quickref:
    section: str
    lines: str | None  # '2, 4-5'; None: every statement but the imports


@dataclass(frozen=True)
class Pitfall:
    mistake: str
    effect: str
    fix: str


@dataclass(frozen=True)
class Message:
    """An error or warning a block shows, with the older wordings readers still paste."""

    kind: str  # 'error' or 'warning'
    text: str
    line: int
    aliases: tuple[tuple[str, str], ...] = ()  # (wording, where printed)


def quickref_of(marker: Marker) -> Quickref | None:
    section, _, lines = marker.text.partition("|")
    return Quickref(section.strip(), lines.strip() or None) if section.strip() else None


def pitfall_of(marker: Marker) -> Pitfall | None:
    parts = [part.strip() for part in marker.text.split(" | ")]
    return Pitfall(*parts) if len(parts) == 3 and all(parts) else None


def alias_of(marker: Marker) -> tuple[str, str] | None:
    wording, _, where = marker.text.rpartition(" | ")
    return (wording.strip(), where.strip()) if wording.strip() and where.strip() else None


def messages_of(markers: Sequence[Marker]) -> list[Message]:
    """The error and warning markers of one block, each with the aliases right after it."""
    found: list[Message] = []
    follows = False  # the marker before was an error, a warning or an alias of one
    for marker in markers:
        if marker.kind in ("error", "warning") and marker.text:
            found.append(Message(marker.kind, marker.text, marker.line))
            follows = True
        elif marker.kind == "alias" and follows and (alias := alias_of(marker)):
            found[-1] = replace(found[-1], aliases=(*found[-1].aliases, alias))
        else:
            follows = False
    return found


def malformed(marker: Marker) -> bool:
    parse = {"quickref": quickref_of, "pitfall": pitfall_of, "alias": alias_of}.get(marker.kind)
    return parse(marker) is None if parse else not marker.text


def _marker_problem(marker: Marker, block: MarkedBlock, context: list[str]) -> str | None:
    """Why one well-formed marker cannot be honoured on ``block``, or None."""
    if marker.kind in SHOWING and not block.executed:
        return (
            f"'% {marker.kind}:' must be directly followed by an executed block (```python, "
            "{code-block} python or a {literalinclude}), not a not-run, output or other block"
        )
    if marker.kind == "quickref":
        try:
            lines = excerpt_lines(block.code, quickref_of(marker).lines)
        except ExcerptError as error:
            return str(error)
        return excerpt_problem(lines, context)
    if marker.kind in ("error", "warning"):
        why = message_problem(marker.kind, marker.text, block.code, block.output)
        return f"'% {marker.kind}: {marker.text}': {why}" if why else None
    return None


def _block_problems(block: MarkedBlock, context: list[str]) -> list[tuple[int, str]]:
    problems, previous = [], ""
    for marker in block.markers:
        if marker.kind == "alias" and previous not in ("error", "warning", "alias"):
            problems.append((marker.line, "'% alias:' goes right after '% error:', "
                             "'% warning:' or another '% alias:' line"))  # fmt: skip
        if malformed(marker):
            problems.append((marker.line, f"write {_FORMS[marker.kind]}"))
        elif why := _marker_problem(marker, block, context):
            problems.append((marker.line, why))
        previous = marker.kind
    return problems


def _trap_problems(blocks: Sequence[MarkedBlock]) -> list[tuple[int, str]]:
    """A trap a reader can see (a trap's section, a WRONG comment) owes a ``% pitfall:``."""
    listed = [any(m.kind == "pitfall" for m in block.markers) for block in blocks]
    problems = []
    for title, group in groupby(range(len(blocks)), key=lambda i: blocks[i].section):
        indexes = list(group)
        if TRAP_TITLE.search(title) and not any(listed[i] for i in indexes):
            problems.append((blocks[indexes[0]].line, (
                f"the section {title!r} is titled as a trap, but no block in it is listed on the "
                f"pitfalls page; put {_PITFALL} before the block that shows it, or retitle the "
                "section"
            )))  # fmt: skip
    for block, marked in zip(blocks, listed, strict=True):
        if block.executed and not marked and WRONG_COMMENT.search(block.code):
            problems.append((block.line, "this block says WRONG in a comment, but is not listed "
                             f"on the pitfalls page; put {_PITFALL} before it"))  # fmt: skip
    return problems


def page_marker_problems(
    path: str, blocks: Sequence[MarkedBlock], dangling: Sequence[Marker] = ()
) -> list[str]:
    """Every marker of the page that cannot be honoured, as 'page:line: why', in line order;
    ``dangling``: markers with no block directly below them."""
    problems: list[tuple[int, str]] = []
    context: list[str] = []  # the page's executed Python so far: what an excerpt may use
    for block in blocks:
        if block.executed:
            context.append(python_source(block.code))
        problems += _block_problems(block, list(context))
    problems += _trap_problems(blocks)
    problems += [
        (marker.line, f"'% {marker.kind}:' must be directly followed by its block (no blank "
         "line or text between)")
        for marker in dangling
    ]  # fmt: skip
    return [f"{place(path, line)}: {why}" for line, why in sorted(problems)]
