"""``pytest --update-outputs``: rewrite, in the page, every output the code printed differently.
An evaluator's :class:`..run.outputs.OutputMismatch` becomes an edit (:mod:`.output_edits`) that
travels with the report to the controller (under pytest-xdist too), which applies each page's
edits at the end and prints the diff. A block that did not run, or raised what its output does
not show, stays a failure. Such a run verifies nothing: it records no results."""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from sybil.example import SybilFailure
from sybil.integration.pytest import SybilItem

from ..locations import display_path
from ..run.outputs import OutputMismatch
from .output_edits import Edit, NotUpdatable, apply_edits, edit_for

OPTION = "--update-outputs"
EDIT_PROPERTY = "torchsheet_output_edit"
REFUSED_PROPERTY = "torchsheet_output_not_updated"
#: The results recorder (:mod:`.recorder`), which this mode unregisters.
RECORDER = "torchsheet-results-recorder"


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
        updating = item.config.getoption(OPTION) and isinstance(item, SybilItem)
        if not (updating and isinstance(result, OutputMismatch)):
            raise
        try:
            edit = edit_for(item.example, result)
        except NotUpdatable as why:
            item.user_properties.append((REFUSED_PROPERTY, str(why)))
            raise SybilFailure(item.example, f"{result}\n{OPTION}: not rewritten: {why}") from None
        item.user_properties.append((EDIT_PROPERTY, asdict(edit)))
        return None


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
            try:
                new = apply_edits(text, edits)
            except NotUpdatable as why:
                self.problems.append(f"{shown}: {why}; not rewritten")
                self.refused += len(edits)
                continue
            path.write_text(new, encoding="utf-8")
            self.changed.append(shown)
            self.rewritten += len(edits)
            before, after = text.splitlines(keepends=True), new.splitlines(keepends=True)
            diff = difflib.unified_diff(before, after, f"a/{shown}", f"b/{shown}")
            self.diffs.append("".join(diff))

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
