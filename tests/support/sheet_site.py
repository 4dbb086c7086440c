"""A two-page site built with ``sphinx-build -W``: the quick reference and one planted page.

Test support for the sheets' build checks (tests/harness/test_sheet_markers.py,
tests/harness/test_sheet_checks.py, tests/harness/test_error_markers.py): the page is written as
given, optionally with a recorded test run of it, and the finished build (its return code and
warnings) is handed back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from built_site import DOCS

from torchsheet_harness.results import (
    BlockEntry,
    Environment,
    PageEntry,
    environment_key,
    page_digest,
    write_results,
)

CPU = Environment(torch="2.13.0+cpu", cuda=None, device="CPU", gpus=0, python="3.11.7")


QUICK_REFERENCE = "```{quick-reference}\nCreation\n```"


def build(
    tmp_path: Path,
    page_text: str,
    blocks: dict[str, BlockEntry] | None = None,
    index_body: str = QUICK_REFERENCE,
) -> subprocess.CompletedProcess:
    """Build a two-page site (``index_body``, by default the quick reference, and ``page_text``)
    with -W; ``blocks``, when given, is what a recorded run of page.md found (block line →
    entry). Called again with the same ``tmp_path``, it builds incrementally into the same
    folder, as ``nox -s docs`` does."""
    source = tmp_path / "src"
    source.mkdir(exist_ok=True)  # built again: an incremental build into the same folder
    if not (source / "conf.py").is_file():
        shutil.copy(DOCS / "conf.py", source)
    shutil.copytree(DOCS / "_static", source / "_static", dirs_exist_ok=True)
    index = f"# Sheet\n\nThe sheet.\n\n{index_body}\n\n```{{toctree}}\n:hidden:\n\npage\n```\n"
    for name, text in (("index.md", index), ("page.md", page_text)):
        if not (source / name).is_file() or (source / name).read_text(encoding="utf-8") != text:
            (source / name).write_text(text, encoding="utf-8")  # else left as is, unchanged
    if blocks is not None:
        digest = page_digest(source / "page.md")
        entry = PageEntry(sha256=digest, finished="2026-01-01 00:00 UTC", errors=0, blocks=blocks)
        path = source / "_build" / "results" / f"{environment_key(CPU)}.json"
        write_results(path, CPU, {"page.md": entry}, run={})
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    return subprocess.run(
        [*command, str(source), str(tmp_path / "html")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(DOCS.parent)},
    )
