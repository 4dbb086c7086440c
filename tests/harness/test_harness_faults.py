"""Plant faults in temporary pages and check the harness catches each, naming page and line.

One pytest run over all planted pages: what only a run shows (report lines, a collection
error, a timeout, skips). Parser faults alone are checked in-process in test_page_parser.py.
The page run is what a reader's paste at a fresh prompt does, so the faults such a paste shows
are caught by it: a block that relies on a seed the page never set, a name only the harness
would define (the namespace is a fresh prompt's, compared with a real one), a value the prompt
echoes that the page does not show, a block that ends the interpreter.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from planted import run_pytest, write_project

from torchsheet_harness.checks.audit import audit_docs

PAGES = {
    "wrong_output.md": """
        # Wrong output

        ```python
        >>> import torch
        >>> torch.tensor([1.5, 2.0]).sum()
        tensor(3.4000)
        ```
        """,
    "raising.md": """
        # Raising

        ```python
        x = 1
        raise ValueError("planted failure")
        ```
        """,
    "misspelled.md": """
        # Misspelled requirement

        ```{code-block} python
        :class: needs-gpu3
        x = 1
        ```
        """,
    "gpu_block.md": """
        # GPU blocks on a CPU machine

        ```{code-block} python
        :class: needs-gpus-64
        raise AssertionError("a GPU block must not run where its hardware is missing")
        ```
        """,
    "passing.md": """
        # A page that passes

        ```python
        >>> 1 + 1
        2
        ```

        ```python
        print(sum(range(4)))
        ```

        ```{code-block} text
        :class: output
        6
        ```

        % not-run: a shell command shown for reference
        ```bash
        echo hi
        ```
        """,
    "unseeded.md": """
        # Unseeded

        ```python
        >>> import random
        >>> random.random()
        0.8444218515250481
        ```
        """,
    "fresh_names.md": f"""
        # What a fresh prompt defines

        ```python
        >>> sorted(globals())
        {
        sorted(
            eval(
                subprocess.run(
                    [sys.executable, "-q", "-i"],
                    input="print(sorted(globals()))",
                    text=True,
                    capture_output=True,
                    check=True,
                ).stdout
            )
        )
    }
        ```
        """,
    "echoes.md": """
        # A value the prompt echoes

        ```python
        values = [3, 1, 2]
        sorted(values)
        ```
        """,
    "exits.md": """
        # Ending the interpreter

        ```python
        >>> raise SystemExit(3)
        ```

        ```python
        import sys
        sys.exit()
        ```
        """,
    "hanging.md": """
        # Hanging

        ```python
        import time
        time.sleep(600)
        ```
        """,
}


def line_of(page: str, needle: str) -> int:
    """1-based line of the fence opening the block that contains ``needle``."""
    lines = textwrap.dedent(PAGES[page]).lstrip("\n").splitlines()
    index = next(i for i, line in enumerate(lines) if needle in line)
    while not lines[index].startswith("```"):
        index -= 1
    return index + 1


def line_containing(page: str, needle: str) -> int:
    lines = textwrap.dedent(PAGES[page]).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines) if needle in line) + 1


@pytest.fixture(scope="module")
def fault_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str]:
    """One pytest run over all planted pages (collection errors do not stop the others)."""
    root = tmp_path_factory.mktemp("faults")
    write_project(root, PAGES)
    result = run_pytest(root, "--continue-on-collection-errors", "--timeout", "6")
    return result.returncode, result.stdout + result.stderr


def test_a_wrong_output_fails_with_expected_and_got(fault_run):
    _, out = fault_run
    line = line_containing("wrong_output.md", "tensor([1.5, 2.0]).sum()")
    assert f"FAILED docs/wrong_output.md::line:{line}," in out
    assert re.search(r"Expected:\s+tensor\(3.4000\)\s+Got:\s+tensor\(3.5000\)", out)


def test_a_raising_block_fails_at_its_page_line(fault_run):
    _, out = fault_run
    assert "FAILED docs/raising.md::line:" in out
    raise_line = line_containing("raising.md", "raise ValueError")
    assert f"docs/raising.md:{raise_line}: ValueError" in out
    assert "ValueError: planted failure" in out


def test_a_misspelled_requirement_is_a_collection_error(fault_run):
    _, out = fault_run
    line = line_of("misspelled.md", "needs-gpu3")
    assert f"docs/misspelled.md:{line}: unknown requirement 'needs-gpu3'; known:" in out
    assert "ERROR docs/misspelled.md" in out


def test_a_gpu_block_on_a_cpu_machine_is_skipped_with_its_reason(fault_run):
    _, out = fault_run
    line = line_of("gpu_block.md", "needs-gpus-64")
    assert re.search(rf"SKIPPED \[1\] docs/gpu_block.md:{line}: needs 64 CUDA GPUs, found \d+", out)
    assert "PASSED docs/gpu_block.md" not in out


def test_what_a_fresh_prompt_would_show_otherwise_fails(fault_run):
    _, out = fault_run
    # random.random() after random.seed(0): a page that relies on the harness seeding it fails.
    line = line_containing("unseeded.md", "random.random()")
    assert f"FAILED docs/unseeded.md::line:{line}," in out
    line = line_containing("fresh_names.md", "globals")
    assert f"PASSED docs/fresh_names.md::line:{line}," in out
    line = line_of("echoes.md", "sorted(values)")
    assert f"docs/echoes.md:{line}: the block printed output but the page shows none" in out
    assert "(a value the prompt echoes counts)" in out and "[1, 2, 3]" in out
    for needle, shown in (("SystemExit(3)", "SystemExit: 3"), ("sys.exit()", "SystemExit: ")):
        line = line_containing("exits.md", needle)
        assert f"docs/exits.md:{line}: the block ends the interpreter ({shown}" in out


def test_a_hanging_block_fails_at_the_timeout_naming_its_page(fault_run):
    _, out = fault_run
    assert "FAILED docs/hanging.md::line:" in out
    assert "Timeout" in out


def test_a_good_page_passes_and_its_exemption_is_reported(fault_run):
    returncode, out = fault_run
    for line in (line_containing("passing.md", ">>> 1 + 1"), line_of("passing.md", "sum(range")):
        assert f"PASSED docs/passing.md::line:{line}," in out
    skip_line = line_of("passing.md", "echo hi")
    assert f"docs/passing.md:{skip_line}: not run: a shell command shown for reference" in out
    assert returncode == pytest.ExitCode.TESTS_FAILED


def test_the_audit_names_every_block_sybil_would_ignore(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    page = """\
        # Ignored blocks

        ```pycon
        >>> 1 + 1
        2
        ```

        ```python title="example.py"
        x = 1
        ```

        ```{testcode}
        x = 1
        ```

        ```bash
        echo not exempted
        ```

        ```{note}
        Prose in a note is not code.
        ```

        ```python
        y = 2
        ```
        """
    (docs / "ignored.md").write_text(textwrap.dedent(page))
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "orphan.py").write_text("print('never included')\n")
    problems = audit_docs(docs, snippets).problems
    found = sorted(int(re.search(r"ignored\.md:(\d+):", p)[1]) for p in problems if "ignored" in p)
    assert found == [3, 8, 12, 16], problems
    assert any("orphan.py: not literal-included by any page" in p for p in problems)
