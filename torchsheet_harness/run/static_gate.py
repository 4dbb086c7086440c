"""What the static check (:mod:`..checks.static_check`) says about one example, for the
evaluators: a gated block's before it is skipped, an included script's before it runs."""

from __future__ import annotations

import doctest
from dataclasses import dataclass
from pathlib import Path

from sybil import Example

from ..checks import static_check
from ..locations import display_path, place


@dataclass(frozen=True)
class BlockCode:
    """A block's whole Python code (an included script's: the file) and the line it starts on."""

    text: str
    path: str
    first_line: int = 1

    @classmethod
    def of_script(cls, script: Path) -> BlockCode | None:
        """An included script's code; None for one that is no Python (a batch script)."""
        if script.suffix != ".py":
            return None
        return cls(script.read_text(encoding="utf-8"), str(script))


def static_findings(example: Example, code: BlockCode | None) -> tuple[str | None, list[str]]:
    """(the failure message or None, what was left unresolved) for the lines of ``code`` that are
    ``example``'s: a ``>>>`` example's own, else all; nothing for ``code`` None."""
    if code is None:
        return None, []
    shown = getattr(getattr(example.region, "block", None), "shows_deprecation", False)
    found = static_check.findings(code.text, code.path, code.first_line, shown)
    lines: range | None = None
    if isinstance(example.parsed, doctest.Example):
        lines = range(example.line, example.line + example.parsed.source.count("\n"))
    problems = [message for line, message in found.problems if lines is None or line in lines]
    unresolved = [message for line, message in found.unresolved if lines is None or line in lines]
    if problems and code.path != example.path:  # an included script: name the page showing it
        where = place(example.path, example.line)
        problems.insert(0, f"{where}: {display_path(code.path)} fails the static check")
    return "\n".join(problems) or None, unresolved
