"""The README's first command works as written with a Python marked externally managed (PEP 668:
Debian 12, Ubuntu 24.04), where the old ``pip install nox`` is refused; its install part runs
with ``/usr/bin/python3`` first on PATH, up to ``nox --list`` (needs the package registry)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


def run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env, bash = system_env(), ["bash", "-c", command]
    return subprocess.run(bash, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_old_command_is_refused(system_python: Path, tmp_path: Path) -> None:
    done = run(OLD_COMMAND, tmp_path)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "externally-managed-environment" in done.stderr, done.stderr


def test_readme_first_command_installs_nox(system_python: Path, tmp_path: Path) -> None:
    install, nox = install_part()
    shutil.copy(ROOT / "noxfile.py", tmp_path)
    done = run(f"{install} && {nox} --list", tmp_path)
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
