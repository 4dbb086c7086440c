"""What the manuals tell a reader to type exists: nox sessions, pytest options, files, anchors
(:mod:`documented_names`, against what ``nox --list``, ``pytest --help`` and ``pytest --markers``
list here and the repository's files); a planted wrong word fails with document and line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache

import pytest
from documented_names import ROOT, Facts, commands, problems_of

DOCUMENTS = ("README.md", "CONTRIBUTING.md", "MAINTAINING.md", "docs/verification.md")
SKIPPED_DIRS = {".git", ".venv", ".nox", "_build", "__pycache__", ".ruff_cache"}


def _run(*args: str) -> str:
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{' '.join(args)}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@cache
def facts() -> Facts:
    listed = _run(sys.executable, "-m", "nox", "--list", "--noxfile", "noxfile.py")
    sessions = set(re.findall(r"^[*-] (\S+)", listed, re.M))
    sessions |= {name.split("(")[0] for name in sessions}
    pytest_cmd = (sys.executable, "-m", "pytest")  # cacheprovider on: it gives --lf
    helped = _run(*pytest_cmd, "--help")
    header = r"^\[pytest\] (?:ini-options|configuration options)"
    usage, ini_part = re.split(header, helped, maxsplit=1, flags=re.M)
    options = {
        option
        for line in usage.splitlines()
        if line.lstrip().startswith("-")
        for option in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", line.lstrip().split("  ")[0])
    }
    ini = set(re.findall(r"^  ([\w-]+) \(", ini_part, re.M))
    markers = set(re.findall(r"^@pytest\.mark\.(\w+)", _run(*pytest_cmd, "--markers"), re.M))
    names = set()
    for _, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        names.update(files)
    return Facts(*map(frozenset, (sessions, options, ini, markers, names)))


@pytest.mark.parametrize("document", DOCUMENTS)
def test_what_the_document_names_exists(document: str) -> None:
    text = (ROOT / document).read_text(encoding="utf-8")
    assert commands(text), f"{document}: no command or code span found"
    assert problems_of(document, text, facts()) == []


def planted_problems(document: str, right: str, planted: str) -> tuple[int, list[str]]:
    """The line of ``right`` in ``document``, and the problems once it reads ``planted``."""
    text = (ROOT / document).read_text(encoding="utf-8")
    assert right in text, f"{document} no longer holds {right!r}: plant another"
    line = text[: text.index(right)].count("\n") + 1
    return line, problems_of(document, text.replace(right, planted, 1), facts())


@pytest.mark.parametrize(
    ("document", "right", "planted", "problem"),
    [
        ("README.md", "nox -s docs\n", "nox -s doc\n", "the noxfile has no session 'doc'"),
        ("CONTRIBUTING.md", "nox -s lint", "nox -s lints", "no session 'lints'"),
        (
            "docs/verification.md",
            "\"docs-tests(torch='2.15.0')\"",
            "\"docs-test(torch='2.15.0')\"",
            "no session \"docs-test(torch='2.15.0')\"",
        ),
        ("README.md", "--torchsheet-expect-gpu", "--torchsheet-expects-gpu", "no option"),
        ("README.md", "pytest -m gpu --", "pytest -m gpus --", "no pytest marker 'gpus'"),
        ("CONTRIBUTING.md", "-o torchsheet_block_timeout", "-o block_timeout", "no pytest ini"),
        ("README.md", "docs/tensors/layout.md ", "docs/tensors/layouts.md ", "does not exist"),
        ("MAINTAINING.md", "`conftest.py`", "`conftests.py`", "no file named 'conftests.py'"),
        (
            "README.md",
            "verification.md#pasting-into-a-repl",
            "verification.md#pasting",
            "no heading",
        ),
    ],
)
def test_a_planted_wrong_name_fails_with_document_and_line(
    document: str, right: str, planted: str, problem: str
) -> None:
    line, problems = planted_problems(document, right, planted)
    assert any(p.startswith(f"{document}:{line}:") and problem in p for p in problems), problems
