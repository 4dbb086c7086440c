"""Evaluators (Sybil's: None on success, else a message starting with 'page:line'): the gates, and
blocks run as processes of their own (a script, torchrun, Slurm) in a fresh temporary directory.
What cannot run here (a gated block, before it skips) and an included Python script (before it
runs) are first read by the static check. Blocks run at the page's prompt: :mod:`.prompt`."""

from __future__ import annotations

import doctest
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import ClassVar
from unittest import SkipTest

from sybil import Example
from sybil.typing import Evaluator

from .. import launching
from ..checks import static_check
from ..locations import display_path, place
from ..pages.requirements import Requirement
from .deprecations import launch_filters, processes_failure
from .hardware import unmet_reason
from .outputs import OutputMismatch, first_difference, matches
from .process import run_command

SNIPPET_TIMEOUT_SECONDS = 180.0
LAUNCH_TIMEOUT_SECONDS = 180.0


#: The attribute an evaluator sets on an example to what its code printed (the recorder keeps it
#: per environment: the site compares it between torch versions).
PRINTED = "torchsheet_printed"


def where(example: Example, line: int | None = None) -> str:
    """'docs/page.md:42' for an example (or for ``line`` of its page)."""
    return place(example.path, example.line if line is None else line)


def shows_deprecation(example: Example) -> bool:
    """Whether the example's block declares that it shows a deprecation on purpose."""
    return getattr(getattr(example.region, "block", None), "shows_deprecation", False)


def padded_source(example: Example, source: str | None = None) -> str:
    """The block's code preceded by blank lines, so tracebacks give its page line numbers."""
    source = example.parsed if source is None else source
    return "\n" * (example.line + getattr(source, "line_offset", 0)) + str(source)


def compare_output(expected: str, got: str, place: str) -> OutputMismatch | None:
    """None when ``got`` matches the page's ``expected`` output, else an ``OutputMismatch``."""
    if matches(expected, got):
        return None
    message = (
        f"{place}: the output shown on the page is not what the code printed\n"
        f"--- expected (from the page) ---\n{expected.rstrip()}\n"
        f"--- got ---\n{got.rstrip()}\n"
        f"{first_difference(expected, got)}"
    )
    return OutputMismatch(message, expected, got)


def block_code(example: Example) -> tuple[str, str, int] | None:
    """(code, path, first line) of the Python an example's block holds: an included script's
    file, or the block's own code at its page lines; None for a batch script or no block."""
    block = getattr(example.region, "block", None)
    if block is None or block.requirement.slurm:
        return None
    if block.included is not None:
        return (block.code, str(block.included), 1) if block.included.suffix == ".py" else None
    return block.code, example.path, block.first_code_line


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


@dataclass
class SkipWithReason:
    """Evaluator for a block the page exempts with ``% not-run: reason``: reported as SKIPPED."""

    reason: str

    def __call__(self, example: Example) -> None:
        raise SkipTest(f"not run: {self.reason}")


@dataclass
class Gated:
    """Runs ``inner`` where ``requirement`` is met; else SKIPPED, or failed by a static check."""

    requirement: Requirement
    inner: Evaluator

    def __call__(self, example: Example) -> str | None:
        __tracebackhide__ = True
        reason = unmet_reason(self.requirement)
        if reason is None:
            return self.inner(example)
        failure, unresolved = static_findings(example)
        if failure:
            return failure
        raise SkipTest("; ".join([reason, *unresolved]))


def run_in_workdir(
    example: Example,
    prefix: str,
    run: Callable[[Path], tuple[str | None, str]],
    expected: str | None,
    script: Path | None = None,
) -> str | None:
    """``run(workdir)`` gives (failure or None, stdout), checked against the page; first, the
    static check of the included Python ``script`` may fail it."""
    if script and (failure := static_findings(example)[0]):
        return failure
    with tempfile.TemporaryDirectory(prefix=prefix) as workdir:
        failure, stdout = run(Path(workdir))
    setattr(example, PRINTED, stdout)
    if failure is not None:
        return f"{where(example)}: {failure}"
    if expected is not None:
        return compare_output(expected, stdout, where(example))
    return None


@dataclass
class ScriptFile:
    """Runs a snippets/ script as a reader would, ``python script.py``, in a fresh directory."""

    script: Path
    expected: str | None = None
    timeout: float = SNIPPET_TIMEOUT_SECONDS

    def __call__(self, example: Example) -> str | None:
        return run_in_workdir(example, "torchsheet-snippet-", self.run, self.expected, self.script)

    def run(self, workdir: Path) -> tuple[str | None, str]:
        env = dict(os.environ, **launch_filters(self.script))
        argv = launching.script_argv(self.script)
        finished = run_command(argv, timeout=self.timeout, cwd=workdir, env=env)
        failure = None if finished.ok else f"{self.script.name} failed\n{finished.describe()}"
        stderr = {"the script": finished.stderr}
        return processes_failure(stderr, str(self.script), place, failure), finished.stdout


@dataclass
class LaunchedBlock:
    """A page block (``source``) or a snippets/ script (``script``) run by a launcher (subclasses
    say how in :meth:`launch`); ``gpu_host``: the reason of its ``% gpu-host:``, if any."""

    requirement: Requirement
    source: str | None = None
    script: Path | None = None
    expected: str | None = None
    timeout: float = LAUNCH_TIMEOUT_SECONDS
    gpu_host: str | None = None
    prefix: ClassVar[str] = "torchsheet-block-"

    def __call__(self, example: Example) -> str | None:
        run = partial(self.launch, example)
        return run_in_workdir(example, self.prefix, run, self.expected, self.script)

    def launch(self, example: Example, workdir: Path) -> tuple[str | None, str]:
        """Run the block from ``workdir``: (failure message or None, the output to check)."""
        raise NotImplementedError
