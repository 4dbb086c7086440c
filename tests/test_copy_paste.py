"""What a reader copies from the built site runs in a fresh ``python``, block after block.

For every page: take each CPU Python block from the built HTML, in page order, apply what the
copy button does (sphinx-copybutton's formatCopyText with the settings in the built
copybutton.js, then torchsheet's pasteReady; ported in
:mod:`torchsheet_harness.sphinx_ext.copy_text`, and the browser test checks the port against
the real JavaScript), and paste the lot into one fresh interpreter, twice:

- as code run from a file (tests/paste_session.py, ``python -I`` in an empty directory): no
  harness setup, no seeding, no names the page does not define. A ``>>>`` block must copy to
  exactly its statements and print what the page shows; a plain block must run and print its
  output block.
- at the real classic prompt on a pseudo-terminal (tests/prompt_session.py), the interpreter
  the suite runs: each block pasted, then Enter, as a reader does. No SyntaxError or
  IndentationError, no traceback the page does not show, and every line of the page's output
  (those without '...') appears on the terminal.

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
    copy_settings,
    html_blocks,
)
from prompt_session import SYNTAX, TRACEBACK, ClassicPrompt

from torchsheet_harness.locations import page_files
from torchsheet_harness.sphinx_ext.copy_text import copied_text

SESSION = Path(__file__).with_name("paste_session.py")
PAGE_TIMEOUT_SECONDS = 300
#: The longest a pasted line may run at the prompt before the test gives up on the page.
LINE_TIMEOUT_SECONDS = 120
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


def page_steps(source: Path, site: Path) -> list[dict]:
    """What a reader pastes from ``source``'s built page, block after block, in page order.

    Each step: kind ('doctest' or 'plain'), name (page:line and section), code (a doctest
    block's text; a plain block's copied text), copied (what the button yields), expected (a
    plain block's output block). Skips the test when the page has no CPU Python block, and fails
    it when a ``>>>`` block does not copy to exactly its statements.
    """
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
            steps.append({"kind": "doctest", "name": name, "code": block.text, "copied": copied})
        else:
            expected = output.text if output is not None else None
            steps.append(
                {"kind": "plain", "name": name, "code": copied, "copied": copied,
                 "expected": expected}
            )  # fmt: skip
    assert not problems, "\n\n".join(problems)
    return steps


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_pastes_into_a_fresh_interpreter(source: Path, site: Path, tmp_path: Path) -> None:
    steps = page_steps(source, site)
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


def shown_outputs(step: dict) -> list[str]:
    """The lines of what the page shows the block print (and, for >>>, the exceptions)."""
    if step["kind"] == "doctest":
        examples = doctest.DocTestParser().get_examples(step["code"])
        shown = "".join(example.want for example in examples)
    else:
        shown = step["expected"] or ""
    return [" ".join(line.split()) for line in shown.splitlines() if line.strip()]


def expected_tracebacks(step: dict) -> int:
    """The tracebacks a doctest block shows: one per example that raises, and any its message
    carries (a DataLoader worker's "Original Traceback (most recent call last):")."""
    if step["kind"] != "doctest":
        return 0
    examples = doctest.DocTestParser().get_examples(step["code"])
    return sum(1 + ex.exc_msg.count(TRACEBACK) for ex in examples if ex.exc_msg is not None)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_pastes_at_the_classic_prompt(source: Path, site: Path, tmp_path: Path) -> None:
    steps = page_steps(source, site)
    prompt = ClassicPrompt(tmp_path, timeout=LINE_TIMEOUT_SECONDS)
    problems = []
    try:
        for step in steps:
            shown = prompt.paste(step["copied"])
            flat = " ".join(shown.split())
            errors = [match[0].strip() for match in SYNTAX.finditer(shown)]
            tracebacks = shown.count(TRACEBACK) - expected_tracebacks(step)
            missing = [
                line
                for line in shown_outputs(step)
                if "..." not in line and line not in flat and not line.startswith("Traceback")
            ]
            found = errors + [f"{tracebacks} traceback(s) the page does not show"] * (
                tracebacks > 0
            )
            if missing:
                found.append(f"the terminal did not show these output lines: {missing}")
            if found:
                problems.append(
                    f"{step['name']}: pasted at the python prompt: " + "; ".join(found)
                    + f"\n--- pasted ---\n{step['copied']}\n--- the terminal showed ---\n"
                    + shown[-3000:]
                )  # fmt: skip
    finally:
        prompt.close()
    assert not problems, "\n\n".join(problems)
