"""Quick-reference and pitfall markers on a page: the excerpts and traps they mark, or why not.

A marker is a MyST comment line directly before an executed block (a ``python`` block or a
literal-included script); MyST renders nothing for it and the test harness ignores it:

- ``% quickref: <section>`` takes the block's statements (imports left out) for that section
  of the quick reference; ``% quickref: <section> | 2, 4-5`` takes the statements starting on
  those lines of the block (1 is the first line of its code).
- ``% pitfall: <the mistake> | <what it does> | <the fix>`` lists the block on the pitfalls page.

The code comes from the block as the page has it: nothing is retyped. Each excerpt and pitfall
knows the page section the block sits in. A marker that is malformed, not followed by an
executed block, or names lines the block lacks is an error naming page:line, and so is an
excerpt that would not run as the sheet shows it (:mod:`.excerpt_checks`).
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes

from ..locations import place
from .excerpt_checks import excerpt_problem, python_source

QUICKREF = re.compile(r"quickref:\s*(?P<section>[^|]*?)\s*(?:\|\s*(?P<lines>.*?)\s*)?$")
PITFALL = re.compile(r"pitfall:\s*(?P<parts>.*?)\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_IMPORT = re.compile(r"^(import|from)\s+\S+")
#: A one-line output up to this long is shown after its statement as ``# → output``.
SHORT_OUTPUT = 44


class MarkerError(ValueError):
    """A marker the build cannot honour; the message starts with page:line."""


@dataclass(frozen=True)
class Excerpt:
    """Lines of one block for one quick-reference section, and where they come from."""

    section: str
    lines: tuple[str, ...]
    docname: str
    anchor: str  # id of the page section the block is in
    heading: str  # that section's title
    classes: str  # the block's needs-* classes ('' for a CPU block)
    where: str  # page:line of the marker
    block_line: int  # the block's first line: its identity in the results files


@dataclass(frozen=True)
class Pitfall:
    """One trap: the mistake, what it does, the fix, and the block that shows it."""

    mistake: str
    effect: str
    fix: str
    docname: str
    anchor: str  # id placed just before the block
    heading: str
    where: str
    block_line: int


def marked_blocks(
    document: nodes.document, kinds: tuple[str, ...] = ("quickref:", "pitfall:")
) -> list[tuple[nodes.comment, str, int, int]]:
    """(comment, marker text, its line, the next fence's line) for every marker of ``kinds``
    on the page."""
    source = Path(document["source"])
    page_lines = source.read_text(encoding="utf-8").splitlines() if source.is_file() else []
    found, cursor = [], 0
    for comment in document.findall(nodes.comment):
        for text in comment.astext().splitlines():
            text = text.strip()
            if text.startswith(kinds):
                # Comment nodes carry no reliable line: find the marker in the page, in order.
                line = next(
                    (
                        n
                        for n in range(cursor, len(page_lines))
                        if page_lines[n].strip() == f"% {text}"
                    ),
                    cursor,
                )
                cursor = line + 1
                fence = next(
                    (n for n in range(cursor, len(page_lines)) if _FENCE.match(page_lines[n])),
                    line,
                )
                found.append((comment, text, line + 1, fence + 1))
    return found


def executed_block(comment: nodes.comment) -> nodes.literal_block | None:
    """The executed block directly after ``comment``, or None when there is none."""
    if re.search(r"^\s*not-run:", comment.astext(), re.MULTILINE):
        return None
    following = comment.next_node(descend=False, siblings=True)
    if isinstance(following, nodes.container):  # a badge wrapper or a captioned include
        following = next(iter(following.findall(nodes.literal_block)), None)
    if not isinstance(following, nodes.literal_block):
        return None
    included = bool(following.get("source")) and following["source"] != following.source
    classes = following.get("classes", [])
    if "ts-not-run" in classes or "output" in classes:
        return None
    return following if included or following.get("language") == "python" else None


def statements(code: str) -> list[tuple[int, list[str]]]:
    """(first line, lines) of each statement of a block, numbered from 1, prompts removed."""
    if code.lstrip().startswith(">>>"):
        result = []
        for example in doctest.DocTestParser().get_examples(code):
            lines = example.source.rstrip("\n").splitlines()
            want = example.want.rstrip("\n")
            if len(lines) == 1 and want and "\n" not in want and len(want) <= SHORT_OUTPUT:
                lines = [f"{lines[0]}  # → {want}"]
            result.append((example.lineno + 1, lines))
        return result
    return [(n, [line]) for n, line in enumerate(code.splitlines(), 1) if line.strip()]


def chosen_lines(code: str, spec: str | None, where: str) -> tuple[str, ...]:
    """The lines ``spec`` ('2, 4-5') names, or every statement but the imports."""
    found = statements(code)
    if not spec:
        return tuple(line for _, lines in found if not _IMPORT.match(lines[0]) for line in lines)
    by_line = dict(found)
    chosen: list[str] = []
    for part in spec.split(","):
        bounds = part.split("-")
        if not all(b.strip().isdigit() for b in bounds) or len(bounds) > 2:
            raise MarkerError(f"{where}: quickref lines {spec!r}: write them as '2, 4-5'")
        first, last = int(bounds[0]), int(bounds[-1])
        for number in range(first, last + 1):
            if number in by_line:
                chosen += by_line[number]
            elif first == last:
                raise MarkerError(
                    f"{where}: line {number} of the block is not the start of a statement; "
                    f"statements start on lines {', '.join(map(str, by_line)) or 'none'}"
                )
    if not chosen:
        raise MarkerError(f"{where}: quickref lines {spec!r} name no statement of the block")
    return tuple(chosen)


def python_blocks(document: nodes.document) -> list[nodes.literal_block]:
    """The page's executed Python blocks, in page order (the page's namespace, as run)."""
    return [
        block
        for block in document.findall(nodes.literal_block)
        if block.get("language") == "python"
        and not {"output", "ts-not-run"} & set(block.get("classes", []))
    ]


def _context(page_code: list[tuple[nodes.literal_block, str]], block: nodes.literal_block) -> list:
    """The Python of the page up to and including ``block``."""
    at = next((i for i, (other, _) in enumerate(page_code) if other is block), None)
    return [code for _, code in page_code[: at + 1]] if at is not None else [block.astext()]


def section_of(node: nodes.Node) -> nodes.section | None:
    """The innermost section containing ``node``."""
    while node is not None and not isinstance(node, nodes.section):
        node = node.parent
    return node


def slug(text: str) -> str:
    """An HTML id made of ``text``'s words."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "x"


def collect(document: nodes.document, docname: str) -> tuple[list, list, list[str]]:
    """(excerpts, pitfalls, error messages) of the markers on one page.

    Each pitfall's block gets an anchor (an empty HTML span before its marker) to link to.
    """
    excerpts: list[Excerpt] = []
    pitfalls: list[Pitfall] = []
    errors: list[str] = []
    page_code = [(block, python_source(block.astext())) for block in python_blocks(document)]
    for comment, text, line, block_line in marked_blocks(document):
        where = place(document["source"], line)
        block = executed_block(comment)
        if block is None:
            errors.append(
                f"{where}: '% {text.split(':')[0]}:' must be directly followed by an executed "
                "block (```python, {code-block} python or a {literalinclude}), not a not-run, "
                "output or other block"
            )
            continue
        section = section_of(block)
        anchor = section["ids"][0] if section is not None and section["ids"] else ""
        heading = section[0].astext() if section is not None else ""
        if match := QUICKREF.fullmatch(text):
            if not match["section"]:
                errors.append(f"{where}: '% quickref:' names no section")
                continue
            try:
                lines = chosen_lines(block.astext(), match["lines"], where)
            except MarkerError as error:
                errors.append(str(error))
                continue
            if problem := excerpt_problem(lines, _context(page_code, block)):
                errors.append(f"{where}: {problem}")
                continue
            needs = " ".join(c for c in block.get("classes", []) if c.startswith("needs-"))
            excerpts.append(
                Excerpt(match["section"], lines, docname, anchor, heading, needs, where, block_line)
            )
        elif (match := PITFALL.fullmatch(text)) and len(parts := match["parts"].split(" | ")) == 3:
            mistake, effect, fix = (part.strip() for part in parts)
            block_id = f"pitfall-{slug(mistake)}"
            comment.parent.insert(
                comment.parent.index(comment),
                nodes.raw("", f'<span id="{block_id}"></span>', format="html"),
            )
            pitfalls.append(
                Pitfall(mistake, effect, fix, docname, block_id, heading, where, block_line)
            )
        else:
            errors.append(
                f"{where}: write '% pitfall: <the mistake> | <what it does> | <the fix>' "
                "(three parts separated by ' | ')"
            )
    return excerpts, pitfalls, errors
