"""Sessions: docs (build the HTML), docs-tests (run every page and snippet), update-outputs
(rewrite the outputs of the pages named), gpu, lint, bench.

torch comes from TORCH_SPEC, default ``torch==2.13.0`` (a CPU wheel; an unpinned spec makes pip
download a multi-GB CUDA build). Example: ``TORCH_SPEC="torch>=2.6" nox -s docs-tests``.
"""

from __future__ import annotations

import os

import nox

nox.options.sessions = ["docs-tests", "docs"]  # tests first: the build shows their results
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"

TORCH_SPEC = os.environ.get("TORCH_SPEC", "torch==2.13.0")
PYTHON = os.environ.get("TORCHSHEET_PYTHON")  # None: the Python running nox


def install(session: nox.Session, *extras: str) -> None:
    session.install(TORCH_SPEC)
    session.install("-e", f".[{','.join(extras)}]")


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build docs/_build/html with warnings as errors."""
    install(session, "docs")
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
def docs_tests(session: nox.Session) -> None:
    """Run every page's blocks, every snippet and the harness tests, in parallel."""
    install(session, "test")
    workers = os.environ.get("TORCHSHEET_WORKERS", "auto")
    session.run("pytest", "-n", workers, "--dist", "loadfile", *session.posargs)


@nox.session(name="update-outputs", python=PYTHON)
def update_outputs(session: nox.Session) -> None:
    """Rewrite in the pages the outputs their code prints differently; prints the diff to read.

    ``nox -s update-outputs -- docs/tensors/layout.md`` (default: every page). Records no results.
    """
    install(session, "test")
    session.run("pytest", "-n", "0", "--update-outputs", *(session.posargs or ["docs"]))


@nox.session(python=PYTHON)
def gpu(session: nox.Session) -> None:
    """Run the CUDA-requiring blocks (``pytest -m gpu``); on a CPU machine they are skipped."""
    install(session, "test")
    session.run("pytest", "-m", "gpu", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the code and the pages' Python blocks."""
    install(session, "test,lint")
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
    install(session, "docs")
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html")
    session.run(
        "python", "tests/pdf_print.py", "docs/_build/html/quickref.html", "docs/_build/quickref.pdf"
    )
