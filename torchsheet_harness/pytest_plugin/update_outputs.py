"""``pytest --update-outputs``: rewrite, in the page, every output the code printed differently.

The author's loop: run a page with ``--update-outputs``, read the diff it prints, commit it or
not. What it rewrites:

- the output of a ``>>>`` example, or only its exception line(s) when it shows a traceback;
- the text of an output block after a Python block, a script or a torchrun block (every rank's
  output, rank 0 first, as the harness compares it).

Only examples whose output is compared and differs are rewritten, and only the lines that
differ: a page line that still matches (its ``...`` included) is kept
(:func:`..run.outputs.updated_expected`). Never rewritten: a block that did not run here
(hardware-gated, ``% not-run:``), a block that raised an exception its output does not show, a
failed launch. Such failures stay failures.

How: the evaluators' failures carry what the page expected and what was printed
(:class:`..run.outputs.OutputMismatch`). :func:`pytest_runtest_call` turns such a failure into
an edit of the page text (offsets in the page as collected) and lets the example pass; the edit
travels with the test report, so under pytest-xdist it reaches the controller, whatever the
distribution mode. The controller (or the only process) applies each page's edits at the end of
the session, bottom-up, after every example of the page ran, so no block's line moves while the
page runs; it refuses a page whose file changed during the run. Then it prints a unified diff
of each page it changed and a one-line count.

A run with ``--update-outputs`` verifies nothing: it never records page results.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest
from sybil import Example
from sybil.example import SybilFailure
from sybil.integration.pytest import SybilItem

from ..locations import display_path, line_at
from ..pages.parser import block_of
from ..run.outputs import OutputMismatch, matches, updated_expected

OPTION = "--update-outputs"
EDIT_PROPERTY = "torchsheet_output_edit"
REFUSED_PROPERTY = "torchsheet_output_not_updated"
#: The results recorder (:mod:`.recorder`), which this mode unregisters.
RECORDER = "torchsheet-results-recorder"
_FENCE = re.compile(r"^\s*(```|~~~)")
_OPTION_LINE = re.compile(r"^:\w[\w-]*:")


class NotUpdatable(Exception):
    """Why a differing output is not rewritten."""


@dataclass
class Edit:
    """Replace ``old`` at page[start:end] by ``new``; ``digest`` is the page text's as run."""

    page: str
    digest: str
    start: int
    end: int
    old: str
    new: str
    line: int


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        OPTION,
        action="store_true",
        default=False,
        help="rewrite in the page files the expected output of every example whose code printed "
        "something else; print the diff (read it before committing). Records no page results.",
    )


@pytest.hookimpl(trylast=True)  # after the recorder registered itself
def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption(OPTION):
        return
    recorder = config.pluginmanager.get_plugin(RECORDER)
    if recorder is not None:
        config.pluginmanager.unregister(recorder)
    if not hasattr(config, "workerinput"):  # the controller, or a run without xdist
        config.pluginmanager.register(PageUpdater(), "torchsheet-output-updater")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    try:
        return (yield)
    except SybilFailure as failure:
        result = failure.result
        if not (
            item.config.getoption(OPTION)
            and isinstance(item, SybilItem)
            and isinstance(result, OutputMismatch)
        ):
            raise
        try:
            edit = edit_for(item.example, result)
        except NotUpdatable as why:
            item.user_properties.append((REFUSED_PROPERTY, str(why)))
            raise SybilFailure(item.example, f"{result}\n{OPTION}: not rewritten: {why}") from None
        item.user_properties.append((EDIT_PROPERTY, asdict(edit)))
        return None


def edit_for(example: Example, mismatch: OutputMismatch) -> Edit:
    """The edit of the page that makes ``example`` show what its code printed."""
    text = example.document.text
    if mismatch.part == "block":
        block = block_of(example.region)
        if block is None or block.output is None:
            raise NotUpdatable("the block has no output block to rewrite")
        start, end = block.output
        indent = ""
        if text[start:end] != mismatch.expected:
            raise NotUpdatable("the output block is not where the page was read")
    else:
        start, end, indent = _doctest_span(example, mismatch)
    lines = _page_lines(updated_expected(mismatch.expected, mismatch.got), mismatch.part)
    if not matches("".join(f"{line}\n" for line in lines), mismatch.got):
        raise NotUpdatable("no text found that the comparison accepts")
    new = "".join(f"{indent}{line}\n" for line in lines)
    old = text[start:end]
    if mismatch.part == "block" and old.endswith("\n") != new.endswith("\n"):
        new = new + "\n" if old.endswith("\n") else new.rstrip("\n")
    return Edit(example.path, digest(text), start, end, old, new, line_at(text, start))


def _doctest_span(example: Example, mismatch: OutputMismatch) -> tuple[int, int, str]:
    """(start, end, indent) of a doctest example's output, or of its exception line(s), in the
    page text."""
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


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` applied bottom-up, so the offsets of the others stay right."""
    edits = sorted(edits, key=lambda edit: edit.start, reverse=True)
    for later, earlier in zip(edits, edits[1:], strict=False):
        if earlier.end > later.start:
            raise NotUpdatable(f"two rewrites overlap at line {earlier.line}")
    for edit in edits:
        if text[edit.start : edit.end] != edit.old:
            raise NotUpdatable(f"line {edit.line} is not what the run read")
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text


class PageUpdater:
    """The controller's side: collects the edits from the reports, applies them per page."""

    def __init__(self) -> None:
        self.edits: dict[str, list[Edit]] = defaultdict(list)
        self.refused = 0
        self.diffs: list[str] = []
        self.problems: list[str] = []
        self.changed: list[str] = []
        self.rewritten = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":  # later reports carry the same properties
            return
        for name, value in report.user_properties:
            if name == EDIT_PROPERTY:
                edit = Edit(**value)
                self.edits[edit.page].append(edit)
            elif name == REFUSED_PROPERTY:
                self.refused += 1

    def pytest_sessionfinish(self) -> None:
        for page, edits in sorted(self.edits.items()):
            shown = display_path(page)
            path = Path(page)
            text = path.read_text(encoding="utf-8")
            if any(edit.digest != digest(text) for edit in edits):
                self.problems.append(f"{shown} changed during the run; not rewritten")
                self.refused += len(edits)
                continue
            try:
                new = apply_edits(text, edits)
            except NotUpdatable as why:
                self.problems.append(f"{shown}: {why}; not rewritten")
                self.refused += len(edits)
                continue
            path.write_text(new, encoding="utf-8")
            self.changed.append(shown)
            self.rewritten += len(edits)
            self.diffs.append(
                "".join(
                    difflib.unified_diff(
                        text.splitlines(keepends=True),
                        new.splitlines(keepends=True),
                        fromfile=f"a/{shown}",
                        tofile=f"b/{shown}",
                    )
                )
            )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        writer = terminalreporter
        writer.write_sep("-", f"torchsheet {OPTION}")
        for diff in self.diffs:
            for line in diff.splitlines():
                markup = {"+": {"green": True}, "-": {"red": True}}.get(line[:1], {})
                writer.write_line(line, **({} if line[:3] in ("+++", "---") else markup))
        for problem in self.problems:
            writer.write_line(f"torchsheet: {problem}")
        pages = len(self.changed)
        count = (
            f"torchsheet: rewrote {self.rewritten} output{'s' * (self.rewritten != 1)} "
            f"in {pages} page{'s' * (pages != 1)} ({', '.join(self.changed)})"
            if pages
            else "torchsheet: no page changed"
        )
        if self.refused:
            count += f"; {self.refused} differing output{'s' * (self.refused != 1)} not rewritten"
        writer.write_line(f"{count}; page results not recorded ({OPTION} verifies nothing)")
