"""The noxfile's sessions, called with a recording stand-in for nox's Session: a leg per torch
version, paste-repls without torch, gpu recording to docs/_results/ (--torchsheet-expect-gpu)."""

import os
import re
import sys
from pathlib import Path

import pytest

from torchsheet_harness.matrix import torch_versions

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import noxfile  # noqa: E402


class Skipped(Exception):
    pass


class Session:
    """What a session asked nox to do: its installs (each with its env) and runs."""

    posargs: list[str] = []

    def __init__(self) -> None:
        self.installs: dict[tuple[str, ...], dict | None] = {}
        self.runs: list[tuple[str, ...]] = []

    def install(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.installs[args] = env

    def run(self, *args: str, **kwargs: object) -> None:
        self.runs.append(args)
        self.env = kwargs.get("env")

    def skip(self, reason: str) -> None:
        raise Skipped(reason)


def called(session_function, **kwargs) -> Session:
    session = Session()
    session_function(session, **kwargs)
    return session


def test_the_matrix_default_leg_is_the_first_and_ci_and_the_site_read_the_noxfiles() -> None:
    assert noxfile.TORCH_VERSIONS[0] == "2.13.0" and torch_versions() == noxfile.TORCH_VERSIONS
    assert {"2.14.1", "2.15.0"} <= set(noxfile.TORCH_VERSIONS)
    assert noxfile.TORCH_SPEC == "torch==2.13.0" or "TORCH_SPEC" in os.environ
    workflow = (Path(noxfile.__file__).parent / ".github" / "workflows" / "ci.yml").read_text()
    (line,) = re.findall(r"^\s*torch: \[(.*)\]", workflow, re.MULTILINE)
    assert [version.strip(' "') for version in line.split(",")] == list(noxfile.TORCH_VERSIONS)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["nox", "-s", "docs-tests"], False),
        (["nox"], False),
        (["nox", "-s", "docs-tests(torch='2.14.1')"], True),
        (["nox", "-s", 'docs-tests(torch="2.14.1")'], True),
        (["nox", "--session", "lint", "docs-tests(torch = '2.14.1')"], True),
        (["nox", "-s", "docs-tests(torch='2.14.10')"], False),
    ],
)
def test_a_leg_is_named_on_the_command_line(argv: list[str], named: bool) -> None:
    assert noxfile.named_on_command_line("2.14.1", argv) is named


def test_the_bare_session_skips_the_other_legs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["nox", "-s", "docs-tests"])
    with pytest.raises(Skipped, match=r"""nox -s "docs-tests\(torch='2.14.1'\)\""""):
        called(noxfile.docs_tests, torch="2.14.1")
    assert list(called(noxfile.docs_tests, torch="2.13.0").installs)[0] == (noxfile.TORCH_SPEC,)


def test_a_named_leg_installs_its_torch_without_the_pip_constraint(monkeypatch) -> None:
    # A pip config that caps torch at 2.14.1 would refuse the 2.15.0 leg: the torch install
    # (and only it) runs with an empty constraint file.
    monkeypatch.setattr(sys, "argv", ["nox", "-s", "docs-tests(torch='2.15.0')"])
    session = called(noxfile.docs_tests, torch="2.15.0")
    assert list(session.installs) == [("torch==2.15.0",), ("-e", ".[test]")]
    assert list(session.installs.values()) == [{"PIP_CONSTRAINT": os.devnull}, None]
    assert session.runs[-1][0] == "pytest"


def test_the_gpu_session_expects_a_gpu_and_records_to_docs_results() -> None:
    runs = called(noxfile.gpu).runs
    # The CUDA blocks and the blocks that hold only without a GPU (skipped there, counted).
    assert runs[0][:3] == ("pytest", "-m", "gpu or nogpu")
    assert {"--torchsheet-expect-gpu", "--torchsheet-results=docs/_results"} <= set(runs[0])
    # Then the CPU torchrun blocks and the '% gpu-host:' ones with the GPUs visible, as a
    # reader's machine has them.
    assert runs[1][:3] == ("pytest", "-m", f"({noxfile.CPU_TORCHRUN}) or gpuhost")
    assert {"--torchsheet-gpus-visible", "--torchsheet-results="} <= set(runs[1])


def test_the_gpu_host_session_runs_every_cpu_torchrun_block_and_records_nothing() -> None:
    (run,) = called(noxfile.gpu_host).runs
    assert run[run.index("-m") + 1] == "distributed and not gpu and not slurm"
    assert {"--torchsheet-gpu-host", "--torchsheet-results="} <= set(run)


def test_the_default_leg_runs_its_cpu_torchrun_blocks_as_on_a_gpu_host(monkeypatch) -> None:
    """Each CPU torchrun block is launched once on the default torch, in GPU-host mode."""
    default, other = noxfile.TORCH_VERSIONS[:2]
    monkeypatch.setattr(sys, "argv", ["nox", "-s", f"docs-tests(torch='{other}')"])
    run = called(noxfile.docs_tests, torch=default).runs[-1]
    assert run[-3:] == ("-o", "testpaths=docs tests/sheet", "--torchsheet-gpu-host")
    assert "--torchsheet-gpu-host" not in called(noxfile.docs_tests, torch=other).runs[-1]
    (run,) = called(noxfile.harness_tests).runs
    assert run[-2:] == ("-o", "testpaths=tests/harness") and "--torchsheet-gpu-host" not in run


def test_paste_repls_runs_the_repl_tests_and_requires_what_they_need() -> None:
    """Once per CI, in a venv of its own without torch: there a missing Python 3.13 or IPython
    fails, and the root conftest (the page harness, which imports torch) is not loaded."""
    session = called(noxfile.paste_repls)
    assert list(session.installs) == [("-e", ".[docs,repls]")]
    assert session.runs[-1][0] == "pytest"
    assert {"--confcutdir=tests", "tests/harness/test_paste_repls.py"} <= set(session.runs[-1])
    assert session.env == {"TORCHSHEET_PASTE_REPLS": "1"}


def test_the_docs_build_installs_no_torch() -> None:
    assert list(called(noxfile.docs).installs) == [("-e", ".[docs]")]
