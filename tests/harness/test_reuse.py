"""``--torchsheet-reuse``: a page whose recorded pass still holds is not run again.

One planted project, five pytest sub-runs: the first records every page (and names its slow
block); the next ones plant a
change in each part of the reuse key (the page, an included snippet, the harness's conftest.py,
an installed distribution) and check that exactly the pages it touches run again, with why,
while a page whose record failed always runs. The harness's own code is checked by digest.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from planted import PLUGIN, RECORDER, REPO, conftest

from torchsheet_harness import results, reuse_key
from torchsheet_harness.pytest_plugin import reuse

REUSE = "torchsheet_harness.pytest_plugin.reuse"
PAGES = {  # and extends.md (the project fixture)
    "plain.md": "# Plain\n\nA page.\n\n```python\n>>> 2 + 2\n4\n```\n",
    "edited.md": "# Edited\n\nA page.\n\n```python\n>>> 3 + 3\n6\n```\n",
    "failing.md": "# Failing\n\nA page.\n\n```python\n>>> 1 + 1\n3\n```\n",
    "snippet.md": "# Snippet\n\nA page.\n\n```{literalinclude} ../snippets/check.py\n```\n",
}
SNIPPET = "total = sum(range(4))\nassert total == 6\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reuse")
    (root / "conftest.py").write_text(conftest(PLUGIN, RECORDER, REUSE))
    (root / "docs").mkdir()
    for name, text in PAGES.items():
        (root / "docs" / name).write_text(text)
    (root / "snippets").mkdir()
    (root / "snippets" / "check.py").write_text(SNIPPET)
    # A page that puts a distribution on the import path as it runs (importing setuptools adds
    # its vendored ones): the environment did not change, the next run reuses every page.
    appended = installed(root / "appended", "appended-dist")
    block = f">>> import sys\n>>> sys.path.append({str(appended)!r})\n"
    (root / "docs" / "extends.md").write_text(f"# Extends\n\nA page.\n\n```python\n{block}```\n")
    # A CPU block over its budget (10 s in process): named, with its seconds, not failed.
    (root / "docs" / "slow.md").write_text(
        "# Slow\n\nA page.\n\n```python\n>>> import time\n>>> time.sleep(10.5)\n```\n"
    )
    return root


def installed(site: Path, name: str) -> Path:
    """``site``, a folder holding the metadata of a distribution ``name`` 1.0."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    return site


def run(root: Path, *args: str, extra_path: Path | None = None) -> tuple[str, float]:
    """A pytest sub-run with --torchsheet-reuse: its output and its wall time."""
    import subprocess
    import sys

    path = os.pathsep.join(str(p) for p in (REPO, extra_path) if p)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TORCHSHEET_RESULTS")}
    env |= {"PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "docs", *args]
    command.append(reuse.OPTION)
    start = time.monotonic()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr, time.monotonic() - start


def ran(output: str) -> set[str]:
    """The pages whose examples this run ran (from -rA's PASSED/FAILED lines)."""
    return set(re.findall(r"^(?:PASSED|FAILED) docs/(\w+\.md)", output, re.MULTILINE))


def reused(output: str) -> set[str]:
    return set(re.findall(r"^torchsheet: reused docs/(\w+\.md): its pass of \d{4}-", output, re.M))


def recorded(root: Path) -> dict:
    (path,) = (root / "docs" / "_build" / "results").glob("*.json")
    return json.loads(path.read_text())


def test_each_part_of_the_key_reruns_the_pages_it_touches(project: Path) -> None:
    first, _ = run(project)
    everything = {*PAGES, "extends.md"}
    assert ran(first) == {*everything, "slow.md"}, first
    slow = re.search(
        r"^torchsheet: slow block docs/slow\.md:5 took (\S+) s \(budget 10 s in", first, re.M
    )
    assert slow and float(slow[1]) >= 10.5 and "1 failed, 7 passed" in first, first
    (project / "docs" / "slow.md").unlink()  # not again in the runs below
    entries = recorded(project)["pages"]
    assert "reuse" in entries["plain.md"] and "seconds" in entries["plain.md"]["blocks"]["5"]
    assert entries["snippet.md"]["reuse"]["includes"] == {
        "snippets/check.py": results.page_digest(project / "snippets" / "check.py")
    }

    # Nothing changed: every passing page is reused; the failed one runs again.
    unchanged, _ = run(project)
    assert reused(unchanged) == {"plain.md", "edited.md", "snippet.md", "extends.md"}, unchanged
    assert ran(unchanged) == {"failing.md"}
    assert "not reused docs/failing.md: its record failed (the block at line 5)" in unchanged
    kept = recorded(project)["pages"]
    assert kept["plain.md"] == entries["plain.md"]  # the reused record stays as it was

    # The page itself, and the snippet another page includes.
    (project / "docs" / "edited.md").write_text(PAGES["edited.md"].replace("Edited", "Changed"))
    (project / "snippets" / "check.py").write_text(SNIPPET + "assert total > 5\n")
    edits, _ = run(project)
    assert ran(edits) == {"edited.md", "snippet.md", "failing.md"}, edits
    assert "not reused docs/edited.md: the page changed" in edits
    assert "not reused docs/snippet.md: an included file changed (snippets/check.py)" in edits
    assert reused(edits) == {"plain.md", "extends.md"}

    # The harness: the project's conftest.py (the package's own files: the digest test below).
    (project / "conftest.py").write_text(conftest(PLUGIN, RECORDER, REUSE) + "# edited\n")
    harness, _ = run(project)
    assert ran(harness) == everything and reused(harness) == set(), harness
    assert "not reused docs/plain.md: the harness's code changed" in harness

    # The environment: one more installed distribution.
    environment, _ = run(project, extra_path=installed(project / "site", "planted-dist"))
    assert ran(environment) == everything and reused(environment) == set(), environment
    assert "not reused docs/plain.md: the environment changed" in environment


def test_the_harness_digest_covers_every_module(tmp_path: Path) -> None:
    harness = tmp_path / "torchsheet_harness"
    shutil.copytree(REPO / "torchsheet_harness", harness)
    before = reuse_key.harness_digest(tmp_path, harness)
    assert before == reuse_key.harness_digest(tmp_path, harness)
    (harness / "run" / "outputs.py").write_text("# planted\n", encoding="utf-8")
    assert reuse_key.harness_digest(tmp_path, harness) != before


def test_a_partial_run_drops_the_pages_reuse() -> None:
    whole = results.PageEntry(sha256="a", blocks={"5": {"outcome": "passed"}}, reuse={"x": 1})
    part = results.PageEntry(sha256="a", blocks={"9": {"outcome": "passed"}})
    assert "reuse" not in results.merge_page(whole, part)
    assert results.merge_page(part, whole)["reuse"] == {"x": 1}


def test_ci_refuses_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    config = type("Config", (), {"getoption": lambda self, name, default=None: True})()
    with pytest.raises(pytest.UsageError, match="refused on CI"):
        reuse.pytest_configure(config)
