"""Sessions: docs (build the HTML), docs-tests (run every page and snippet, and the checks that
depend on the torch version; on the default torch, the CPU torchrun blocks as on a machine with
a GPU), harness-tests (the harness's own tests, once, on the default torch), gpu-host (only the
CPU torchrun blocks, as on a machine with a GPU),
paste-repls (paste a page at Python 3.13's REPL and IPython), update-outputs (rewrite the outputs
of the pages named), gpu, lint, bench. Which test file runs where: its folder, ``tests/sheet/``
(every torch leg, with the pages) or ``tests/harness/`` (once).

torch comes from TORCH_SPEC, default ``torch==2.13.0`` (an unpinned spec makes pip download a
multi-GB CUDA build). Example: ``TORCH_SPEC="torch>=2.6" nox -s docs-tests``.

docs-tests is parametrized over the torch versions of the matrix, ``TORCH_VERSIONS``:
``nox -s "docs-tests(torch='2.14.1')"`` runs one leg in a venv of its own. A bare
``nox -s docs-tests`` runs the first (default) leg only, with TORCH_SPEC when it is set; the
other legs run when named. Each leg records its results in a file of its own
(``docs/_build/results/<environment>.json``), and ``nox -s docs`` shows them all.

The default leg is the oldest version of the matrix, 2.13.0, not the newest: it is the floor
the pages promise to run on, the version their outputs were written with (``update-outputs``
and ``gpu`` install it by default, and the README's CPU-wheel recipe names it), so a bare run
checks the oldest torch a reader may have. The newest release, 2.15.0, is a leg of every CI
run (.ci/run and the workflow run every leg), so a page that breaks or warns on it fails CI;
where a block prints differently on the legs, the page says which version prints what.
"""

from __future__ import annotations

import os
import re
import sys

import nox

# Tests first: the build shows their results.
nox.options.sessions = ["docs-tests", "harness-tests", "docs"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"

TORCH_VERSIONS = ("2.13.0", "2.14.1", "2.15.0")  # docs-tests' matrix; the first is the default leg
TORCH_SPEC = os.environ.get("TORCH_SPEC", f"torch=={TORCH_VERSIONS[0]}")
PYTHON = os.environ.get("TORCHSHEET_PYTHON")  # None: the Python running nox
# paste-repls needs Python 3.13 (its new REPL): a version nox finds, or a path to one (CI passes
# pyenv's, where python3.13 on PATH may be a shim that runs nothing).
PYTHON313 = os.environ.get("TORCHSHEET_PYTHON313", "3.13")
# nox -s gpu records here: a GPU runner's results file is committed
# (MAINTAINING.md, "Publishing a GPU run").
GPU_RESULTS = "docs/_results"
# The blocks gpu-host runs: every torchrun block that declares no GPU (Slurm's run by srun).
CPU_TORCHRUN = "distributed and not gpu and not slurm"
# What nox -s gpu records: the CUDA blocks, and the blocks that hold only without a GPU (skipped
# there, with their reason); then, with the GPUs visible, the CPU blocks the CPU legs cannot
# check as on a GPU host: the CPU torchrun blocks and the blocks exempted with '% gpu-host:'.
GPU_RECORDED = "gpu or nogpu"
GPUS_VISIBLE = f"({CPU_TORCHRUN}) or gpuhost"
# What each side runs when no path is named: pytest's testpaths, overridden (a path in the
# session's arguments runs instead; options alone keep these).
SHEET_PATHS = ("-o", "testpaths=docs tests/sheet")
HARNESS_PATHS = ("-o", "testpaths=tests/harness")
TORCH_INSTALL_ENV = {"PIP_CONSTRAINT": os.devnull}


def workers(per_core: int = 1) -> str:
    """pytest-xdist's ``-n``: $TORCHSHEET_WORKERS, else ``auto`` (a worker per core), else
    ``per_core`` workers per core, for tests that mostly wait (a REPL drawing a paste)."""
    if os.environ.get("TORCHSHEET_WORKERS"):
        return os.environ["TORCHSHEET_WORKERS"]
    return "auto" if per_core == 1 else str(per_core * (os.cpu_count() or 1))


def install(session: nox.Session, *extras: str, torch: str | None = TORCH_SPEC) -> None:
    """torch (None: none, for the docs build, which never imports it), then the extras."""
    if torch is not None:
        # No pip constraint for this install: the spec alone picks the torch under test. A
        # machine's pip config may cap torch (a constraint file pinning torch<=2.14.1 refuses
        # the 2.15.0 leg); PIP_CONSTRAINT overrides the config, and an empty file is no
        # constraint (an empty value is not: pip still reads the config's). The other
        # installs keep the machine's constraints.
        session.install(torch, env=TORCH_INSTALL_ENV)
    session.install("-e", f".[{','.join(extras)}]")


def named_on_command_line(torch: str, argv: list[str]) -> bool:
    """Whether ``argv`` names the docs-tests leg of ``torch`` ("docs-tests(torch='2.14.1')")."""
    wanted = re.compile(rf"""docs-tests\(torch=(['"]){re.escape(torch)}\1\)""")
    return any(wanted.search(arg.replace(" ", "")) for arg in argv)


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build docs/_build/html with warnings as errors."""
    install(session, "docs", torch=None)
    session.run(
        "sphinx-build",
        "-W",
        "--keep-going",
        "-b",
        "html",
        "docs",
        "docs/_build/html",
        *session.posargs,
    )


@nox.session(name="docs-tests", python=PYTHON)
@nox.parametrize("torch", TORCH_VERSIONS)
def docs_tests(session: nox.Session, torch: str) -> None:
    """Run every page's blocks, every snippet and the torch-dependent checks, on one torch."""
    default = torch == TORCH_VERSIONS[0]
    if not default and not named_on_command_line(torch, sys.argv):
        leg = f"docs-tests(torch='{torch}')"
        session.skip(f'not the default torch: run this leg with nox -s "{leg}"')
    install(session, "test", torch=TORCH_SPEC if default else f"torch=={torch}")
    # On the default torch each CPU torchrun block is launched once, as on a GPU host: its
    # output compared and the machine's default device caught in the same run.
    gpu_host_check = ("--torchsheet-gpu-host",) if default else ()
    session.run(
        "pytest", "-n", workers(), "--dist", "loadfile", *SHEET_PATHS, *gpu_host_check,
        *session.posargs,
    )  # fmt: skip


@nox.session(name="harness-tests", python=PYTHON)
def harness_tests(session: nox.Session) -> None:
    """Run the harness's own tests and the torch-independent checks once, on the default torch."""
    install(session, "test")
    session.run(
        "pytest", "-n", workers(), "--dist", "loadfile", *HARNESS_PATHS, *session.posargs,
    )  # fmt: skip


@nox.session(name="gpu-host", python=PYTHON)
def gpu_host(session: nox.Session) -> None:
    """Run every CPU torchrun block as on a machine whose accelerator is CUDA (default torch).

    A block that leans on the machine's default device (a bare ``init_process_group()``,
    ``init_device_mesh`` without a group, ``fully_shard`` without ``mesh=``) fails with what a
    GPU host would do. Records no results; docs-tests' default leg runs its blocks this way.
    """
    install(session, "test")
    session.run(
        "pytest", "-n", workers(), "--dist", "loadfile", "-m", CPU_TORCHRUN,
        "--torchsheet-gpu-host", "--torchsheet-results=", *(session.posargs or ["docs"]),
    )  # fmt: skip


@nox.session(name="paste-repls", python=PYTHON313)
def paste_repls(session: nox.Session) -> None:
    """Paste a planted page at Python 3.13's default REPL, IPython and the classic prompt
    (tests/harness/test_paste_repls.py), once per CI.

    No torch: the page needs none (PyPI's torch for Python 3.13 is the CUDA build, a few GB).
    Without the root conftest.py (``--confcutdir``), which loads the page harness and so torch.
    """
    install(session, "docs,repls", torch=None)
    session.run(
        # Records nothing (no recorder without the root conftest). Two workers a core: a test
        # mostly waits for a REPL to draw.
        "pytest", "-n", workers(per_core=2), "--confcutdir=tests",
        "tests/harness/test_paste_repls.py", *session.posargs, env={"TORCHSHEET_PASTE_REPLS": "1"},
    )  # fmt: skip


@nox.session(name="update-outputs", python=PYTHON)
def update_outputs(session: nox.Session) -> None:
    """Rewrite in the pages the outputs their code prints differently; prints the diff to read.

    ``nox -s update-outputs -- docs/tensors/layout.md`` (default: every page). Records no results.
    """
    install(session, "test")
    session.run("pytest", "-n", "0", "--update-outputs", *(session.posargs or ["docs"]))


@nox.session(python=PYTHON)
def gpu(session: nox.Session) -> None:
    """Run every block that needs CUDA (``pytest -m gpu``) and record it in docs/_results/, with
    the blocks that hold only without a GPU (skipped there: ``nogpu``).

    Fails, unlike a plain ``pytest -m gpu`` on a laptop, when torch is a CPU build, when no
    CUDA device is visible, or when every selected block was skipped
    (``--torchsheet-expect-gpu``). TORCH_SPEC's default from PyPI is the CUDA build on Linux.
    Then the CPU torchrun blocks and the blocks exempted with ``% gpu-host:`` run once more with
    the GPUs visible, as on a reader's machine (``--torchsheet-gpus-visible``; recorded nowhere,
    a failure fails the session).
    """
    install(session, "test")
    session.run(
        "pytest", "-m", GPU_RECORDED, "--torchsheet-expect-gpu",
        f"--torchsheet-results={GPU_RESULTS}", *session.posargs,
    )  # fmt: skip
    session.run(
        "pytest", "-m", GPUS_VISIBLE, "--torchsheet-gpus-visible", "--torchsheet-results=", "docs",
    )  # fmt: skip


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the code and the pages' Python blocks.

    No torch: the page linter reads pages and runs ruff, nothing imports torch (its venv is
    built in seconds, so CI's first session starts sooner)."""
    install(session, "lint", torch=None)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("python", "-m", "torchsheet_harness.checks.block_lint", "docs")


@nox.session(python=PYTHON, reuse_venv=False)
def bench(session: nox.Session) -> None:
    """Time the suite: fresh env setup, collection, single- vs multi-process blocks, docs build."""
    import time

    start = time.perf_counter()
    install(session, "test,docs")
    setup_seconds = time.perf_counter() - start
    session.run(
        "python",
        "benchmarks/suite_timing.py",
        "--env-setup-seconds",
        f"{setup_seconds:.1f}",
        *session.posargs,
    )


@nox.session(python=PYTHON)
def pdf(session: nox.Session) -> None:
    """Build the site, then print the quick reference to docs/_build/quickref.pdf (Chromium)."""
    install(session, "docs", torch=None)
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html")
    session.run(
        "python",
        "tests/support/pdf_print.py",
        "docs/_build/html/quickref.html",
        "docs/_build/quickref.pdf",
    )
