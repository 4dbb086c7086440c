"""The files a project carries: licence, notice, contributing guide, changelog; its CI (what
.ci/run runs, and .ci/run-sessions with a stand-in nox: each session in the venv built ahead for
it, a failed build or session failing the run, the builder never outliving it); its layout
(module size, test sides, and the sides import nothing across: ``modulefinder`` reads the
imports, nothing is imported)."""

import os
import re
import subprocess
import sys
import time
from modulefinder import ModuleFinder
from pathlib import Path

import pytest

from torchsheet_harness.run.process import alive

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = (ROOT / "pyproject.toml").read_text()
BOOK = "Build a Large Language Model"
RULE = (
    "A sentence that states a behaviour is shown by the block next to it (an output or an "
    "`assert`). A claim no block can show on a CPU is either backed by a gated block or worded "
    "as what it is."
)


def pyproject_field(name: str) -> str:
    """A [project] string field, or the text of a ``{ text = ... }`` table (no tomllib on 3.10)."""
    match = re.search(rf'^{name}\s*=\s*(?:\{{\s*text\s*=\s*)?"([^"]+)"', PYPROJECT, re.M)
    assert match, f"pyproject.toml: no {name}"
    return match.group(1)


def test_license_is_mit_as_pyproject_says() -> None:
    assert pyproject_field("license") == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.splitlines()[0] == "MIT License"
    assert "Copyright (c) 2026 the torchsheet authors" in text
    assert "Permission is hereby granted, free of charge, to any person obtaining a copy" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text


def test_notice_credits_the_adapted_code() -> None:
    notice = (ROOT / "NOTICE").read_text()
    assert "Sebastian Raschka" in notice
    assert "https://github.com/rasbt/LLMs-from-scratch" in notice
    assert "Copyright (c) Sebastian Raschka under Apache License 2.0" in notice
    # Apache-2.0 4(a): recipients get a copy of the licence.
    copy = re.search(r"LICENSES/\S+\.txt", notice)
    assert copy, "NOTICE does not say where the Apache licence copy is"
    licence = (ROOT / copy.group(0)).read_text()
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    # Each file NOTICE lists exists and names its source (4(b), 4(c)).
    used = re.findall(r"^\s*- (\S+\.(?:md|py))\b", notice, re.M)
    adapted = {
        "docs/training/training-loop.md",
        "snippets/ddp_spawn.py",
        "snippets/ddp_torchrun.py",
    }
    assert adapted <= set(used), used
    for path in used:
        assert BOOK in (ROOT / path).read_text(), f"{path} does not name {BOOK!r}"


def test_contributing_states_the_rule_and_the_commands() -> None:
    text = " ".join((ROOT / "CONTRIBUTING.md").read_text().split())
    assert RULE in text
    for command in ("nox -s docs-tests", "nox -s docs", "nox -s lint", "Adding a page"):
        assert command in text, command


def test_changelog_has_unreleased_and_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "keepachangelog.com" in text
    assert re.search(r"^## \[Unreleased\]$", text, re.M)
    version = pyproject_field("version")
    assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", text, re.M), (
        version
    )


def test_ci_runs_lint_every_leg_and_the_other_sessions_with_nox_in_a_venv() -> None:
    assert os.access(ROOT / ".ci" / "run", os.X_OK), ".ci/run is not executable"
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    commands = [line.strip() for line in lines if line.strip() and not line.strip()[0] == "#"]
    assert "set -euo pipefail" in commands  # any failing step fails CI
    # Its sessions=(...) and sessions+=(...), in order: a leg per torch version by default, then
    # once per run, between the legs and the build, the harness's tests.
    found = [re.fullmatch(r"sessions\+?=\((.*)\)", command) for command in commands]
    assert [match[1].strip('"') for match in found if match] == [
        "lint", "docs-tests(torch='$torch')", "harness-tests", "paste-repls", "docs",
    ]  # fmt: skip
    assert "for torch in $legs; do" in commands
    assert any("noxfile.TORCH_VERSIONS" in c for c in commands)
    # Each in the venv built for it ahead (the .ci/run-sessions tests below).
    assert '.ci/run-sessions .nox/ci-prepared "$nox" "${sessions[@]}"' in commands
    assert "python3 -m venv .venv" in commands  # nox installed as the README does
    assert any(c.startswith(".venv/bin/python -m pip install") and "nox" in c for c in commands)


#: The most lines a harness module may have: past it, a module does more than one job.
MODULE_LINES = 250


def test_no_harness_module_is_over_a_screenful() -> None:
    over = {
        str(path.relative_to(ROOT)): count
        for path in sorted((ROOT / "torchsheet_harness").rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES
    }
    assert not over, f"harness modules over {MODULE_LINES} lines (split them by job): {over}"


def test_every_test_file_is_on_a_side() -> None:
    """A test file outside tests/sheet/ and tests/harness/ would be run by no nox session."""
    stray = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if path.parent.name not in ("sheet", "harness") or path.parent.parent != ROOT / "tests"
    ]
    assert not stray, f"test files on no side (move to tests/sheet/ or tests/harness/): {stray}"


def fake_nox(tmp_path: Path, failing: str = "", slow: str = "") -> Path:
    """A nox that notes its arguments and prints what it does ("build S" for ``-s S
    --install-only``, "run S" for ``-R -s S``); ``failing`` is the one of those that fails,
    ``slow`` the session whose build writes its pid and sleeps, which every run waits for."""
    script = tmp_path / "nox"
    script.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$*" >> {tmp_path}/calls\n'
        'if [ "$1" = -s ]; then what="build $2"; else what="run $3"; fi\n'
        'echo "$what"\n'
        f'if [ "$what" = "build {slow}" ]; then echo $$ > {tmp_path}/slow.pid; sleep 60; fi\n'
        # A run waits until the slow build has begun: it is then surely under way.
        f'if [ -n "{slow}" ] && [ "${{what%% *}}" = run ]; then\n'
        f"  for _ in $(seq 100); do [ -f {tmp_path}/slow.pid ] && break; sleep 0.1; done\n"
        "fi\n"
        f'[ "$what" != {failing!r} ]\n'
    )
    script.chmod(0o755)
    return script


def calls(tmp_path: Path) -> list[str]:
    return (tmp_path / "calls").read_text().splitlines()


def run_sessions(tmp_path: Path, nox: Path, *sessions: str) -> subprocess.CompletedProcess:
    command = [ROOT / ".ci" / "run-sessions", tmp_path / "prepared", nox, *sessions]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_each_session_runs_in_order_in_the_venv_built_for_it(tmp_path: Path) -> None:
    sessions = ["lint", "docs-tests(torch='2.14.1')", "docs"]
    done = run_sessions(tmp_path, fake_nox(tmp_path), *sessions)
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["run", "ci:"] * 3
    made = calls(tmp_path)
    for session in sessions:
        built, ran = made.index(f"-s {session} --install-only"), made.index(f"-R -s {session}")
        assert built < ran
    assert [call for call in made if call.startswith("-R")] == [f"-R -s {s}" for s in sessions]
    builds = [call for call in made if call.endswith("--install-only")]
    assert builds == [f"-s {s} --install-only" for s in sessions]
    assert "after" in done.stdout and "waiting for its venv" in done.stdout


def test_a_failed_build_fails_at_its_session_with_its_log(tmp_path: Path) -> None:
    done = run_sessions(tmp_path, fake_nox(tmp_path, failing="build harness-tests"),
                        "lint", "harness-tests", "docs")  # fmt: skip
    assert done.returncode != 0
    assert "build harness-tests" in done.stderr  # the build's own log
    assert "ci: building harness-tests's venv failed (exit 1)" in done.stderr
    assert "-R -s lint" in calls(tmp_path)
    assert not {"-R -s harness-tests", "-s docs --install-only"} & set(calls(tmp_path))


def test_a_failed_session_stops_the_run_and_the_builder(tmp_path: Path) -> None:
    nox = fake_nox(tmp_path, failing="run lint", slow="docs")
    done = run_sessions(tmp_path, nox, "lint", "docs")
    assert done.returncode != 0
    assert "-R -s docs" not in calls(tmp_path)
    # The builder was still building docs' venv when lint failed: it is ended with the run.
    deadline = time.monotonic() + 10
    while not (tmp_path / "slow.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    pid = int((tmp_path / "slow.pid").read_text())
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.1)
    assert not alive(pid), "the venv builder outlived .ci/run-sessions"


PACKAGE = ROOT / "torchsheet_harness"
HARNESS = "torchsheet_harness"
RUNNERS = ("sybil", "pytest", f"{HARNESS}.run", f"{HARNESS}.pytest_plugin")
SITE = (f"{HARNESS}.sphinx_ext", "sphinx", "docutils")
#: Each side, and what it must never import: the page model is pure (every consumer reads it,
#: it reads none of them); the checks and the exports are read by the site, never the reverse;
#: the site reads the page model and the results, never the run.
NEVER = {
    "pages": ("torch", *RUNNERS, *SITE, f"{HARNESS}.checks", f"{HARNESS}.exports"),
    "checks": SITE,
    "exports": ("torch", *RUNNERS, *SITE),
    "sphinx_ext": RUNNERS,
}
MODULES = [
    (f"{HARNESS}.{side}.{path.stem}", forbidden)
    for side, forbidden in NEVER.items()
    for path in sorted((PACKAGE / side).glob("*.py"))
]


@pytest.mark.parametrize(("module", "forbidden"), MODULES, ids=[m for m, _ in MODULES])
def test_a_side_imports_nothing_from_across(module: str, forbidden: tuple[str, ...]) -> None:
    finder = ModuleFinder(path=[str(PACKAGE.parent)])  # the harness's modules; others: not found
    finder.import_hook(module)
    imported = {*finder.modules, *finder.badmodules}
    found = sorted(
        n for n in imported if n in forbidden or n.startswith(tuple(f"{f}." for f in forbidden))
    )
    assert found == [], f"{module} imports {found}"


def test_the_page_linter_runs_without_torch() -> None:
    """nox -s lint installs no torch (its venv builds in seconds): the linter, run on real pages
    with ``import torch`` made to fail, still lints them."""
    blocked = (
        "import sys; sys.modules['torch'] = None;"
        "from torchsheet_harness.checks.block_lint import main;"
        "raise SystemExit(main(['docs/distributed']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", blocked], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout) == (0, "page blocks: no findings\n"), done.stderr
