"""What the manuals tell a reader to type exists: nox sessions, pytest options, files, anchors
(:mod:`documented_names`, against what ``nox --list``, ``pytest --help`` and ``pytest --markers``
list here and the repository's files); a planted wrong word fails with document and line. And
the README's first command works as written with a Python marked externally managed (PEP 668:
Debian 12, Ubuntu 24.04), where the old ``pip install nox`` is refused: its install part runs
with ``/usr/bin/python3`` first on PATH, up to ``nox --list`` (needs the package registry)."""

import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

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


README = ROOT / "README.md"
SYSTEM_PYTHON = Path("/usr/bin/python3")
OLD_COMMAND = "python3 -m pip install nox"  # the README's first command before it had a venv step
# Variables that would let pip install into the system Python, or point python at another one.
DROPPED = {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PIP_USER", "PIP_REQUIRE_VIRTUALENV"}


def readme_commands() -> list[str]:
    """The command lines of the first ```bash block under "## Two commands"."""
    text = README.read_text()
    section = text.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```bash\n(.*?)^```$", section, re.S | re.M)
    assert block, 'README: no ```bash block under "## Two commands"'
    lines = block.group(1).replace("\\\n", " ").splitlines()
    return [line.split(" #")[0].strip() for line in lines if line.strip() and line[0] != "#"]


def install_part() -> tuple[str, str]:
    """(the first command up to its nox call, the nox executable it installs)."""
    first = readme_commands()[0]
    *install, run = first.split(" && ")
    match = re.fullmatch(r"(\S+) -s docs-tests harness-tests", run)
    expected = "nox -s docs-tests harness-tests"
    assert install and match, f"README: first command does not end in `{expected}`: {first}"
    return " && ".join(install), match.group(1)


def system_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED}
    env["PATH"] = f"{SYSTEM_PYTHON.parent}{os.pathsep}{env.get('PATH', '')}"
    # Overrides any pip config that allows it: the old command must not touch the system Python.
    env["PIP_BREAK_SYSTEM_PACKAGES"] = "0"
    return env


@pytest.fixture(scope="module")
def system_python() -> Path:
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"{SYSTEM_PYTHON} is missing: no distribution Python to try the README with")
    probe = "import os, sysconfig; os.stat(sysconfig.get_path('stdlib') + '/EXTERNALLY-MANAGED')"
    if subprocess.run([SYSTEM_PYTHON, "-c", probe], capture_output=True).returncode:
        pytest.skip(f"{SYSTEM_PYTHON} is not marked externally managed (PEP 668)")
    found = shutil.which("python3", path=system_env()["PATH"])
    assert found and Path(found).resolve() == SYSTEM_PYTHON.resolve(), found
    if subprocess.run([SYSTEM_PYTHON, "-c", "import ensurepip, venv"]).returncode:
        pytest.skip(f"{SYSTEM_PYTHON} lacks venv/ensurepip: apt-get install python3-venv")
    return SYSTEM_PYTHON


def run_on_system(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env, bash = system_env(), ["bash", "-c", command]
    return subprocess.run(bash, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_old_command_is_refused(system_python: Path, tmp_path: Path) -> None:
    done = run_on_system(OLD_COMMAND, tmp_path)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "externally-managed-environment" in done.stderr, done.stderr


def test_readme_first_command_installs_nox(system_python: Path, tmp_path: Path) -> None:
    install, nox = install_part()
    shutil.copy(ROOT / "noxfile.py", tmp_path)
    done = run_on_system(f"{install} && {nox} --list", tmp_path)
    assert done.returncode == 0, f"{install}\n{done.stdout}\n{done.stderr}"
    assert "docs-tests" in done.stdout and "harness-tests" in done.stdout, done.stdout
    # The venv is built on the system Python the test put first on PATH.
    cfg = (tmp_path / nox).parent.parent / "pyvenv.cfg"
    assert f"home = {system_python.parent}" in cfg.read_text(), cfg.read_text()


def test_readme_commands_use_the_installed_nox_and_ci_installs_venv() -> None:
    _, nox = install_part()
    for command in readme_commands()[1:]:
        assert command.startswith(f"{nox} "), f"README: {command!r} does not run {nox}"
    lines = (ROOT / ".ci" / "apt-packages.txt").read_text().splitlines()
    packages = {line.strip() for line in lines if line.strip() and not line.startswith("#")}
    assert {"python3-venv", "python3-pip"} <= packages, packages
