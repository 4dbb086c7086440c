"""Whether a block shows an ``% error:`` / ``% warning:`` marker's message, and the class shown
raising it: a ``>>>`` block in a shown exception line (a warning: in what it printed), a script
in its output block; whitespace runs count as one space. The shown output is what the test
compares with what torch printed, so a marker cannot drift from its block. Pure."""

from __future__ import annotations

import re

from .excerpts import prompt_examples

TRACEBACK = "Traceback (most recent call last):"


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def shown_outputs(code: str, output: str | None) -> tuple[list[str], list[str]]:
    """(exception texts, other outputs) a block shows: a doctest's example outputs, or its
    output block (counted as both: a script prints what it caught)."""
    if (examples := prompt_examples(code)) is not None:
        raised, printed = [], []
        for example in examples:
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
