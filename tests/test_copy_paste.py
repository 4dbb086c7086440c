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

import json
import subprocess
import sys
from pathlib import Path

import pytest
from built_site import DOCS, build_site
from pasted_steps import page_steps, prompt_problems
from prompt_session import TRACEBACK, ClassicPrompt

from torchsheet_harness.locations import page_files

SESSION = Path(__file__).with_name("paste_session.py")
PAGE_TIMEOUT_SECONDS = 300
#: The longest a pasted line may run at the prompt before the test gives up on the page.
LINE_TIMEOUT_SECONDS = 120
SOURCES = page_files(DOCS)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(tmp_path_factory.getbasetemp())


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


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_pastes_at_the_classic_prompt(source: Path, site: Path, tmp_path: Path) -> None:
    steps = page_steps(source, site)
    prompt = ClassicPrompt(tmp_path, timeout=LINE_TIMEOUT_SECONDS)
    problems = []
    try:
        for step in steps:
            shown = prompt.paste(step["copied"])
            found = prompt_problems(step, shown, TRACEBACK)
            if found:
                problems.append(
                    f"{step['name']}: pasted at the python prompt: " + "; ".join(found)
                    + f"\n--- pasted ---\n{step['copied']}\n--- the terminal showed ---\n"
                    + shown[-3000:]
                )  # fmt: skip
    finally:
        prompt.close()
    assert not problems, "\n\n".join(problems)
