""".ci/run-sessions and .ci/prepare-venvs, with a stand-in nox: each session runs in order in
the venv built ahead for it; a failed build or session fails the run, naming it, and runs
nothing after it; the background builder never outlives the run."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from torchsheet_harness.run.process import alive

ROOT = Path(__file__).resolve().parents[2]


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
