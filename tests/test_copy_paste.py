"""What a reader copies from the built site runs in a fresh ``python``, block after block.

For every page: take each CPU Python block from the built HTML, in page order, apply what the
copy button does (sphinx-copybutton's formatCopyText with the settings in the built
copybutton.js, ported in :func:`built_site.copied_text`; the browser test
checks the port against the real JavaScript), and paste the lot into one fresh interpreter
(tests/paste_session.py, ``python -I`` in an empty directory): no harness setup, no seeding, no
names the page does not define. A ``>>>`` block must copy to exactly its statements and print
what the page shows; a plain block must run and print its output block.

Left out, with reason: blocks that need CUDA, GPUs, torchrun or Slurm (they cannot run here and
are self-contained, so later blocks cannot depend on them), blocks marked not-run, and
literal-included scripts (run as ``python script.py`` by the page tests).
"""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from pathlib import Path

import pytest
from built_site import (
    DOCS,
    HtmlBlock,
    build_site,
    copied_text,
    copy_settings,
    html_blocks,
)

from torchsheet_harness.locations import page_files

SESSION = Path(__file__).with_name("paste_session.py")
PAGE_TIMEOUT_SECONDS = 300
SOURCES = page_files(DOCS)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(tmp_path_factory.getbasetemp())


def pasted_blocks(blocks: list[HtmlBlock]) -> list[tuple[HtmlBlock, HtmlBlock | None]]:
    """The blocks a reader pastes into one interpreter, each with the output block after it."""
    chosen = []
    for index, block in enumerate(blocks):
        if block.language != "python" or block.needs or block.is_output:
            continue
        if block.classes & {"ts-not-run", "ts-script"}:
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        chosen.append((block, following if following and following.is_output else None))
    return chosen


def source_lines(blocks: list[HtmlBlock], source: Path) -> dict[int, int]:
    """Block index → line of its first line in the page source, found in page order."""
    lines = source.read_text(encoding="utf-8").splitlines()
    found, cursor = {}, 0
    for block in blocks:
        first = next((line.strip() for line in block.text.splitlines() if line.strip()), "")
        for number in range(cursor, len(lines)):
            if lines[number].strip() == first:
                found[block.index], cursor = number + 1, number + 1
                break
    return found


def statements_of(doctest_text: str) -> list[str]:
    """The non-empty source lines of a doctest block's examples, as doctest runs them."""
    examples = doctest.DocTestParser().get_examples(doctest_text)
    return [line for ex in examples for line in ex.source.splitlines() if line.strip()]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_pastes_into_a_fresh_interpreter(source: Path, site: Path, tmp_path: Path) -> None:
    settings = copy_settings(site)
    page = site / source.relative_to(DOCS).with_suffix(".html")
    blocks = html_blocks(page)
    chosen = pasted_blocks(blocks)
    if not chosen:
        pytest.skip("no CPU Python block on this page")
    lines = source_lines(blocks, source)
    steps, problems = [], []
    for block, output in chosen:
        name = (
            f"{source.relative_to(DOCS.parent)}:{lines.get(block.index, '?')} (§ {block.section})"
        )
        copied = copied_text(block.text, settings)
        if block.text.startswith(">>>"):
            pasted = [line for line in copied.splitlines() if line.strip()]
            if pasted != statements_of(block.text):
                problems.append(
                    f"{name}: the copy button yields\n{copied}\nbut the block's statements are\n"
                    + "\n".join(statements_of(block.text))
                )
            steps.append({"kind": "doctest", "name": name, "code": block.text})
        else:
            expected = output.text if output is not None else None
            steps.append({"kind": "plain", "name": name, "code": copied, "expected": expected})
    assert not problems, "\n\n".join(problems)

    steps_file, results_file = tmp_path / "steps.json", tmp_path / "results.json"
    steps_file.write_text(json.dumps(steps), encoding="utf-8")
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    command = [sys.executable, "-I", str(SESSION), str(steps_file), str(results_file)]
    finished = subprocess.run(
        command, cwd=workdir, capture_output=True, text=True, timeout=PAGE_TIMEOUT_SECONDS
    )
    results = json.loads(results_file.read_text()) if results_file.exists() else []
    failures = [f"{r['name']}:\n{r['failure']}" for r in results if r["failure"]]
    assert not failures, "pasted into a fresh python, block after block:\n\n" + "\n\n".join(
        failures
    )
    assert finished.returncode == 0 and len(results) == len(steps), (
        f"the interpreter stopped after {len(results)} of {len(steps)} blocks "
        f"(exit {finished.returncode}):\n{finished.stderr[-3000:]}"
    )
