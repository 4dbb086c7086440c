"""What a block shows raised or printed: whether an ``% error:`` / ``% warning:`` marker's
message is in it, and the class shown raising it.

In a ``>>>`` block the message must be in the exception line(s) of a shown traceback (for a
warning: in what an example printed); in a script (a ``torchrun`` block, whose ranks catch what
they raise and print it) in the output block after it. Whitespace runs count as one space. The
shown output is what the test suite compares with what torch printed, so a marker cannot drift
from its block, and the block cannot stop raising without failing its test. Pure.
"""

from __future__ import annotations

import doctest
import re

TRACEBACK = "Traceback (most recent call last):"


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def shown_outputs(code: str, output: str | None) -> tuple[list[str], list[str]]:
    """(exception texts, other outputs) a block shows: a doctest's example outputs, or its
    output block (counted as both: a script prints what it caught)."""
    if code.lstrip().startswith(">>>"):
        raised, printed = [], []
        for example in doctest.DocTestParser().get_examples(code):
            if example.exc_msg is not None:
                raised.append(example.exc_msg)
            elif example.want:
                printed.append(example.want)
        return raised, printed
    return ([output], [output]) if output is not None else ([], [])


def raised_class(kind: str, message: str, code: str, output: str | None) -> str:
    """The class a block shows raising (or warning) ``message``: 'RuntimeError', or ''."""
    raised, printed = shown_outputs(code, output)
    message = _squeezed(message)
    for text in raised if kind == "error" else printed:
        shown = _squeezed(text)
        if message in shown:
            found = re.search(
                r"([A-Za-z_][\w.]*(?:Error|Exception|Warning)): " + re.escape(message), shown
            )
            return found[1] if found else ""
    return ""


def message_problem(kind: str, message: str, code: str, output: str | None) -> str | None:
    """Why a block does not show ``message`` as a ``kind`` ('error'/'warning'), or None."""
    raised, printed = shown_outputs(code, output)
    shown = raised if kind == "error" else printed
    if any(_squeezed(message) in _squeezed(text) for text in shown):
        return None
    if kind == "error" and not raised:
        return (
            "the block after it raises nothing: show the exception as a doctest "
            f"('{TRACEBACK}', then the exception line), or the output block of a script"
        )
    what = "exception it shows" if kind == "error" else "output it shows"
    found = "; ".join(_squeezed(text)[:120] for text in shown) or "none"
    return f"the message is not in the {what} (found: {found})"
