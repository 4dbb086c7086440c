"""Error and warning markers on a page: the messages its blocks show torch raising, or why not.

A marker is a MyST comment line directly before an executed block, like the quick-reference
and pitfall markers (:mod:`.sheet_markers`):

- ``% error: <message>``: the block shows the message raised. In a ``>>>`` block, an example's
  output is a traceback (``Traceback (most recent call last):``) whose exception lines contain
  the message; in a script (a ``torchrun`` block, whose ranks catch what they raise and print
  it), the output block after it contains the message.
- ``% warning: <message>``: the block shows the message in what it printed (a warning captured
  with ``warnings.catch_warnings(record=True)`` and printed), in a ``>>>`` output or the output
  block.

The message is checked against the block's *shown* output (whitespace runs count as one space),
which is what the test suite compares with what torch printed: the marker cannot drift from the
block, and the block cannot stop raising without failing its test. A marker the build cannot
honour is an error message naming page:line.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import dataclass

from docutils import nodes

from ..locations import place
from .sheet_markers import executed_block, marked_blocks, section_of

KINDS = ("error:", "warning:")
MARKER = re.compile(r"(?P<kind>error|warning):\s*(?P<message>.*?)\s*$")
TRACEBACK = "Traceback (most recent call last):"


@dataclass(frozen=True)
class ErrorEntry:
    """One message a block shows torch raising (or warning), and where that block is."""

    message: str
    kind: str  # 'error' or 'warning'
    raised: str  # the class the block shows raising it ('RuntimeError'), or ''
    docname: str
    anchor: str  # id of the page section the block is in
    heading: str  # that section's title
    classes: str  # the block's needs-* classes ('' for a CPU block)
    where: str  # page:line of the marker
    block_line: int  # the block's first line: its identity in the results files


def squeezed(text: str) -> str:
    """``text`` with every run of whitespace as one space."""
    return " ".join(text.split())


def output_block(block: nodes.literal_block) -> nodes.literal_block | None:
    """The output block (``:class: output``) directly after ``block``, or None."""
    start = block.parent if isinstance(block.parent, nodes.container) else block
    following = start.next_node(descend=False, siblings=True)
    if isinstance(following, nodes.container):
        following = next(iter(following.findall(nodes.literal_block)), None)
    if isinstance(following, nodes.literal_block) and "output" in following.get("classes", []):
        return following
    return None


def shown_outputs(block: nodes.literal_block) -> tuple[list[str], list[str]]:
    """(exception texts, other outputs) the block shows: a doctest's example outputs, or the
    text of the output block after a script (counted as both: a script prints what it caught)."""
    code = block.astext()
    if code.lstrip().startswith(">>>"):
        raised, printed = [], []
        for example in doctest.DocTestParser().get_examples(code):
            if example.exc_msg is not None:
                raised.append(example.exc_msg)
            elif example.want:
                printed.append(example.want)
        return raised, printed
    output = output_block(block)
    if output is None:
        return [], []
    return [output.astext()], [output.astext()]


def raised_type(message: str, shown: str) -> str:
    """The exception or warning class named just before ``message`` in ``shown``, or ''."""
    found = re.search(r"([A-Za-z_][\w.]*(?:Error|Exception|Warning)): " + re.escape(message), shown)
    return found[1] if found else ""


def problem(kind: str, message: str, block: nodes.literal_block) -> tuple[str | None, str]:
    """(why ``block`` does not show ``message`` as a ``kind`` or None, the class shown raising
    it)."""
    raised, printed = shown_outputs(block)
    shown = raised if kind == "error" else printed
    message = squeezed(message)
    for text in shown:
        if message in squeezed(text):
            return None, raised_type(message, squeezed(text))
    if kind == "error" and not raised:
        return (
            "the block after it raises nothing: show the exception as a doctest "
            f"('{TRACEBACK}', then the exception line), or the output block of a script"
        ), ""
    what = "exception it shows" if kind == "error" else "output it shows"
    found = "; ".join(squeezed(text)[:120] for text in shown) or "none"
    return f"the message is not in the {what} (found: {found})", ""


def collect_errors(document: nodes.document, docname: str) -> tuple[list[ErrorEntry], list[str]]:
    """(entries, error messages) of the error and warning markers on one page."""
    entries: list[ErrorEntry] = []
    errors: list[str] = []
    for comment, text, line, block_line in marked_blocks(document, KINDS):
        where = place(document["source"], line)
        match = MARKER.fullmatch(text)
        if match is None or not match["message"]:
            kind = text.split(":")[0]
            errors.append(f"{where}: write '% {kind}: <the message as torch prints it>'")
            continue
        kind, message = match["kind"], match["message"]
        block = executed_block(comment)
        if block is None:
            errors.append(
                f"{where}: '% {kind}:' must be directly followed by an executed block that shows "
                "the message (```python, {code-block} python), not a not-run, output or other block"
            )
            continue
        why, raised = problem(kind, message, block)
        if why is not None:
            errors.append(f"{where}: '% {kind}: {message}': {why}")
            continue
        section = section_of(block)
        anchor = section["ids"][0] if section is not None and section["ids"] else ""
        heading = section[0].astext() if section is not None else ""
        needs = " ".join(c for c in block.get("classes", []) if c.startswith("needs-"))
        entries.append(
            ErrorEntry(message, kind, raised, docname, anchor, heading, needs, where, block_line)
        )
    return entries, errors
