"""What each sheet-side test file read of the project, recorded so ``--torchsheet-reuse`` can
leave out a test file whose pass still holds, as it leaves out a page.

A test file on the sheet side (under ``tests/sheet/``: it runs pages' commands, snippets or torch's
own behaviour, on every torch leg) is not a page: what its verdict depends on is whatever it
reads. So each of its tests runs under an audit hook (:func:`sys.addaudithook`) that notes every
project file opened in the test process (the ``open`` event) and every project path handed to a
subprocess (``subprocess.Popen``'s arguments and working directory: the snippet a torchrun
launch runs; a folder counts as every file in it). Build output, caches and virtual
environments are not the project. Under pytest-xdist the reads travel to the controller with
each report (``user_properties``).

At the end of the run, a sheet test file that ran whole (no ``-k``, ``-m``, ``--deselect``,
``--lf`` or test named) and passed (no test failed or in error) gets an entry under
``test_files`` in the results file: when it finished, and :func:`..reuse_key.test_file_inputs`
(its source and the test helpers, the files it read, the harness, the environment). What a
subprocess reads on its own (a file named nowhere in its arguments) is not seen: a sheet test
file hands its subprocesses the paths they run. A test file with a failed test gets an entry
that says so, which is never reused.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from .. import environment, results, reuse_key
from .recorder import recorded_path

SHEET_DIR = "tests/sheet/"

PROPERTY = "torchsheet_reads"
#: Folders (anywhere under the project) whose files are no input: build output and caches.
NOT_INPUTS = frozenset(
    {".git", ".nox", ".venv", "_build", "__pycache__", ".pytest_cache", ".ruff_cache"}
)


class Reads:
    """The audit hook's state: the project root, and the reads of the test now running."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.current: set[str] | None = None  # None: no sheet test runs now

    def note(self, value: Any, base: Any = None) -> None:
        """Note ``value`` if it names a project file or folder (relative: to ``base``, or the
        working directory)."""
        if isinstance(value, bytes):
            value = value.decode(errors="replace")
        if not isinstance(value, str | Path) or not str(value):
            return
        try:
            path = Path(os.fsdecode(base) if base else Path.cwd(), value).absolute()
            name = path.relative_to(self.root)
        except (ValueError, OSError):
            return
        if NOT_INPUTS & set(name.parts):
            return
        if path.is_file():
            self.current.add(name.as_posix())  # type: ignore[union-attr]
        elif path.is_dir() and path != self.root:
            for inner in sorted(path.rglob("*")):
                if inner.is_file() and not NOT_INPUTS & set(inner.relative_to(self.root).parts):
                    self.current.add(inner.relative_to(self.root).as_posix())  # type: ignore[union-attr]

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if self.current is None or event not in ("open", "subprocess.Popen"):
            return
        if event == "open":
            self.note(args[0])
            return
        _, argv, cwd, _ = args  # a relative argument is relative to the subprocess's cwd
        for arg in argv if isinstance(argv, list | tuple) else [argv]:
            self.note(arg, cwd)
        self.note(cwd)


def sheet_file(item: pytest.Item) -> str | None:
    """``tests/test_x.py`` when ``item`` is a test of a sheet-side test file, else None."""
    try:
        name = item.path.relative_to(item.config.rootpath).as_posix()
    except ValueError:
        return None
    return name if name.startswith(SHEET_DIR) else None


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


_READS: Reads | None = None  # one hook per process (an audit hook cannot be removed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    global _READS
    if sheet_file(item) is None:
        yield
        return
    if _READS is None:
        _READS = Reads(item.config.rootpath)
        sys.addaudithook(_READS.hook)
    _READS.current = set()
    try:
        yield
    finally:
        item.stash[READ_KEY] = sorted(_READS.current)
        _READS.current = None


READ_KEY = pytest.StashKey[list[str]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    outcome = yield
    if call.when == "call" and READ_KEY in item.stash:
        outcome.get_result().user_properties.append((PROPERTY, item.stash[READ_KEY]))


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller writes
        config.pluginmanager.register(TestFileRecorder(config), "torchsheet-test-file-reads")


class TestFileRecorder:
    """The controller's side: each sheet test file's reads and outcome, written at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.reads: dict[str, set[str]] = defaultdict(set)
        self.failed: set[str] = set()
        self.ran: set[str] = set()
        # A run that may have left tests out records no test file (pytest-xdist deselects in the
        # workers, out of the controller's sight): -k, -m, --deselect, or a test named.
        option = config.option
        narrowed = getattr(option, "keyword", "") or getattr(option, "markexpr", "")
        narrowed = narrowed or getattr(option, "deselect", None) or getattr(option, "lf", False)
        named = {arg.split("::")[0] for arg in config.args if "::" in arg}
        self.partial: set[str] | None = None if narrowed else named

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = report.nodeid.split("::")[0]
        if not name.startswith(SHEET_DIR):
            return
        self.ran.add(name)
        if report.failed:
            self.failed.add(name)
        for key, value in report.user_properties:
            if key == PROPERTY:
                self.reads[name].update(value)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if session.shouldstop or session.shouldfail:
            return
        if self.partial is None:
            whole: set[str] = set()
        else:
            base = self.config.invocation_params.dir
            named = {_relative(Path(base, arg), self.config.rootpath) for arg in self.partial}
            whole = self.ran - self.failed - named
        if not whole and not self.failed:
            return
        found = environment.current()
        path = recorded_path(self.config, found)
        if path is None:
            return
        root = self.config.rootpath
        inputs = (reuse_key.harness_digest(root), environment.fingerprint(found))
        finished = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        entries: dict[str, dict[str, Any]] = {
            name: {"finished": finished, "outcome": "failed"} for name in self.failed
        }  # a failure replaces an earlier pass: it is never reused
        for name in sorted(whole):
            entries[name] = {
                "finished": finished,
                "outcome": "passed",
                "reuse": reuse_key.test_file_inputs(name, root, *inputs, self.reads[name]),
            }
        run = {"args": list(self.config.invocation_params.args), "finished": finished}
        results.write_results(path, found, {}, run, test_files=entries)
