"""Temporary projects with planted pages, run by a fresh pytest: how the harness is tested."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLUGIN = "torchsheet_harness.pytest_plugin"
RECORDER = "torchsheet_harness.pytest_plugin.recorder"


def conftest(*plugins: str) -> str:
    """The conftest.py of a planted project: the harness's collector and ``plugins``."""
    return (
        "from pathlib import Path\n"
        "from torchsheet_harness.pages.collect import page_sybil\n\n"
        f"pytest_plugins = {list(plugins)!r}\n"
        'pytest_collect_file = page_sybil(Path(__file__).parent / "docs").pytest()\n'
    )


def write_project(root: Path, pages: dict[str, str]) -> Path:
    """A minimal project: the harness's conftest and ``pages`` under ``root/docs``."""
    (root / "conftest.py").write_text(conftest(PLUGIN))
    docs = root / "docs"
    docs.mkdir()
    for name, text in pages.items():
        (docs / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return docs


def run_pytest(root: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest in a fresh interpreter in ``root``, with this checkout's harness importable."""
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
