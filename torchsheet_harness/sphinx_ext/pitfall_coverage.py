"""Traps a page shows but the pitfalls page would not list: where a ``% pitfall:`` marker is owed.

The pitfalls page lists the blocks marked ``% pitfall: <the mistake> | <what it does> | <the
fix>`` (:mod:`.sheet_markers`). Two things on a page say that it shows a trap, and each owes a
marker:

- a section whose title names one ("Pitfall: ...", "the synchronize pitfall", "The classic
  mistake", "... goes wrong"): at least one block in it carries the marker;
- a block whose code says so in a comment (``# WRONG``, as a script that does it wrong on
  purpose starts): that block carries the marker itself.

Anything else is the writer's call; these two are what a reader can see, so the build checks
them and names page:line.
"""

from __future__ import annotations

import re

from docutils import nodes

from ..locations import place
from .pitfalls_index import pitfalls_index
from .sheet_markers import executed_block, marked_blocks

#: A section title that announces a trap.
TRAP_TITLE = re.compile(r"\b(pitfalls?|traps?|gotchas?|mistakes?|wrong)\b", re.IGNORECASE)
#: A comment in a block that says the block does it wrong on purpose.
WRONG_COMMENT = re.compile(r"#.*\bWRONG\b")

_MARKER = "'% pitfall: <the mistake> | <what it does> | <the fix>'"


def pitfall_blocks(document: nodes.document) -> set[int]:
    """The ids of the blocks a ``% pitfall:`` marker lists."""
    return {
        id(block)
        for comment, text, _, _ in marked_blocks(document)
        if text.startswith("pitfall:") and (block := executed_block(comment)) is not None
    }


def unlisted_traps(document: nodes.document) -> list[str]:
    """A message naming page:line for each trap title or ``WRONG`` block without a marker."""
    source = document["source"]
    marked_ids = pitfall_blocks(document)
    problems = []
    for section in document.findall(nodes.section):
        title = section[0].astext()
        if next(iter(section.findall(pitfalls_index)), None) is not None:
            continue  # the pitfalls page itself
        blocks = list(section.findall(nodes.literal_block))
        if TRAP_TITLE.search(title) and not any(id(block) in marked_ids for block in blocks):
            problems.append(
                f"{place(source, section.line or section[0].line or 0)}: the section "
                f"{title!r} is titled as a trap, but no block in it is listed on the pitfalls "
                f"page; put {_MARKER} before the block that shows it, or retitle the section"
            )
    for block in document.findall(nodes.literal_block):
        if id(block) in marked_ids or "output" in block.get("classes", []):
            continue
        if WRONG_COMMENT.search(block.astext()):
            problems.append(
                f"{place(source, block.line or 0)}: this block says WRONG in a comment, but is "
                f"not listed on the pitfalls page; put {_MARKER} before it"
            )
    return problems
