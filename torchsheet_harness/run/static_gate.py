"""What the static check (:mod:`..checks.static_check`) says about one example, for the
evaluators: a gated block's before it is skipped, an included script's before it runs."""

from __future__ import annotations

import doctest

from sybil import Example

from ..checks import static_check
from ..locations import display_path, place


def block_code(example: Example) -> tuple[str, str, int] | None:
    """(code, path, first line) of the Python an example's block holds: an included script's
    file, or the block's own code at its page lines; None for a batch script or no block."""
    block = getattr(example.region, "block", None)
    if block is None or block.requirement.slurm:
        return None
    if block.included is not None:
        return (block.code, str(block.included), 1) if block.included.suffix == ".py" else None
    return block.code, example.path, block.line + block.source.line_offset + 1


def static_findings(example: Example) -> tuple[str | None, list[str]]:
    """(the failure message or None, what was left unresolved) for the lines of the example's
    block (:func:`block_code`) that are ``example``'s: a ``>>>`` example's own, else all."""
    code = block_code(example)
    if code is None:
        return None, []
    text, path, first_line = code
    found = static_check.findings(text, path, first_line, example.region.block.shows_deprecation)
    lines: range | None = None
    if isinstance(example.parsed, doctest.Example):
        lines = range(example.line, example.line + example.parsed.source.count("\n"))
    problems = [message for line, message in found.problems if lines is None or line in lines]
    unresolved = [message for line, message in found.unresolved if lines is None or line in lines]
    if problems and path != example.path:  # an included script: name the page showing it
        where = place(example.path, example.line)
        problems.insert(0, f"{where}: {display_path(path)} fails the static check")
    return "\n".join(problems) or None, unresolved
