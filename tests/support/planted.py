"""Planted projects: the harness's conftest and pages, run by pytest in a fresh interpreter (torch
cannot be imported twice in one process), its result pytester's ``RunResult``."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGIN = "torchsheet_harness.pytest_plugin"
RECORDER = "torchsheet_harness.pytest_plugin.recorder"
#: A page of each kind of block: a doctest of two examples (line 7), a CUDA one (16), not run (24).
PAGE = """\
# A page

What it is for.

## First `section`

```python
>>> 1 + 1
2
>>> 2 * 3
6
```

## Needs hardware

```{code-block} python
:class: needs-cuda
>>> import torch
>>> torch.ones(1, device="cuda").device.type
'cuda'
```

% not-run: a shell command
```bash
pip install torch
```
"""


def conftest(*plugins: str) -> str:
    """The conftest.py of a planted project: the harness's collector and ``plugins``."""
    return (
        "from pathlib import Path\n"
        "from torchsheet_harness.run.collect import page_sybil\n\n"
        f"pytest_plugins = {list(plugins)!r}\n"
        'pytest_collect_file = page_sybil(Path(__file__).parent / "docs").pytest()\n'
    )


def write_project(root: Path, pages: dict[str, str], *plugins: str) -> Path:
    """``pages`` (dedented) under ``root/docs``, and the conftest of ``plugins`` (default: the
    harness's plugin)."""
    (root / "conftest.py").write_text(conftest(*(plugins or [PLUGIN])))
    for name, text in pages.items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return root / "docs"


def run_pytest(root: Path, *args: str) -> pytest.RunResult:
    """pytest -rA in a fresh interpreter in ``root``, with this checkout's harness importable."""
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    return pytest.RunResult(done.returncode, done.stdout.splitlines(), done.stderr.splitlines(), 0)
