"""Faults planted in pages (:data:`PAGES`), each reported by ``pytest`` at its page and line, in
one run over every page (a collection error does not stop the others); ``--tb=long`` needs a run
of its own. In-process (``pytester``): what collection alone decides."""

import subprocess
import sys

import pytest
from planted import run_pytest, write_project
from test_error_markers import PAGE as ERRORS

FRESH_NAMES = subprocess.run(
    [sys.executable, "-q", "-i"], input="print(sorted(globals()))", text=True, capture_output=True
).stdout
SECTIONS = """# Sections

## Making data

```python
data = [1, 2, 3]
```

## Summing it

```python
>>> sum(data)
6
```

## Broken on purpose

```python
data = None
data.append(1)
```

## Using it after the break

```python
>>> data
```
"""
#: page: (its text, what the run prints of it, in the order it prints it)
PAGES = {
    "wrong.md": (
        '# A tensor\n\n```python\n>>> import torch\n>>> torch.tensor([1.5, 2.0]).sum()\n'
        "tensor(3.4000)\n```\n",
        ["Expected:", "    tensor(3.4000)", "Got:", "    tensor(3.5000)",
         "FAILED docs/wrong.md::line:5,*"],
    ),
    "raising.md": (
        "# Raising\n\n```python\nimport torch\n\nx = torch.ones(3)\n"
        'torch.einsum("ij,jk->ik", x, x)\n```\n',
        ["docs/raising.md:7: RuntimeError: einsum(): the number of subscripts*",
         '    torch.einsum("ij,jk->ik", x, x)',
         "(in the block at docs/raising.md:3; the full traceback: --tb=long)"],
    ),
    "misspelled.md": (
        "# Requirement\n\n```{code-block} python\n:class: needs-gpu3\nx = 1\n```\n\n"
        "% quickref: Creation | 4\n```python\n>>> x = 1\n```\n",
        ["*PageProblems: docs/misspelled.md:3: unknown requirement 'needs-gpu3'; known:*",
         "*docs/misspelled.md:8: line 4 of the block is not the start of a statement*",
         "ERROR docs/misspelled.md*"],
    ),
    "gpu_block.md": (
        "# GPU blocks on a CPU machine\n\n```{code-block} python\n:class: needs-gpus-64\n"
        '>>> import torch\n>>> x = torch.ones(2, device="cuda")\n'
        '>>> raise AssertionError("a GPU block must not run where its hardware is missing")\n```\n',
        ["SKIPPED [[]3] docs/gpu_block.md:3: needs 64 CUDA GPUs, found *"],
    ),
    "hanging.md": (
        "# Hanging\n\n```python\nimport time\ntime.sleep(600)\n```\n",
        ["docs/hanging.md:5: Failed: Timeout (>4.0s) from pytest-timeout."],
    ),
    "sections.md": (
        SECTIONS,
        ["docs/sections.md:26 (section 'using-it-after-the-break') needs the blocks before it, "
         "which this run did not select; running them for it, docs/sections.md:18 (section "
         "'broken-on-purpose') failed:",
         "AttributeError: 'NoneType' object has no attribute 'append'",
         "PASSED docs/sections.md::line:12,column:1[summing-it]"],
    ),
    "unseeded.md": (  # random.random() after random.seed(0): the harness must not seed it
        "# Unseeded\n\n```python\n>>> import random\n>>> random.random()\n"
        "0.8444218515250481\n```\n",
        ["FAILED docs/unseeded.md::line:5,*"],
    ),
    "fresh_names.md": (
        f"# What a fresh prompt defines\n\n```python\n>>> sorted(globals())\n{FRESH_NAMES}```\n",
        ["PASSED docs/fresh_names.md::line:4,*"],
    ),
    "echoes.md": (
        "# A value the prompt echoes\n\n```python\nvalues = [3, 1, 2]\nsorted(values)\n```\n",
        ["docs/echoes.md:3: the block printed output but the page shows none (a value the "
         "prompt echoes counts)*", "[1, 2, 3]"],
    ),
    "drifted.md": (  # an error entry whose block no longer raises its message
        ERRORS.replace(">>> 1 / 0", ">>> 1 / 2"),
        ["*ZeroDivisionError: division by zero", "FAILED docs/drifted.md::line:10,*"],
    ),
    "exits.md": (
        "# Ending the interpreter\n\n```python\n>>> raise SystemExit(3)\n```\n\n```python\n"
        "import sys\nsys.exit()\n```\n",
        ["docs/exits.md:4: the block ends the interpreter (SystemExit: 3)*",
         "docs/exits.md:9: the block ends the interpreter (SystemExit: )*"],
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> pytest.RunResult:
    """One run over every page (sections.md: two of its examples, chosen by node id)."""
    root = tmp_path_factory.mktemp("faults")
    write_project(root, {name: text for name, (text, _) in PAGES.items()})
    pages = [f"docs/{name}" for name in PAGES if name != "sections.md"]
    sections = [f"docs/sections.md::line:{line},column:1" for line in (12, 26)]
    timeout = ("-o", "torchsheet_block_timeout=4")
    return run_pytest(root, "--continue-on-collection-errors", *timeout, *pages, *sections)


@pytest.mark.parametrize("page", PAGES)
def test_each_fault_is_reported_at_its_page_and_line(run: pytest.RunResult, page: str) -> None:
    run.stdout.fnmatch_lines(PAGES[page][1])


def test_only_the_right_examples_pass(run: pytest.RunResult) -> None:
    run.assert_outcomes(passed=8, failed=8, skipped=3, errors=2)
    run.stdout.no_fnmatch_line("PASSED docs/gpu_block.md*")


def test_a_raising_block_shows_neither_the_page_nor_torchs_source(run: pytest.RunResult) -> None:
    failures = run.stdout.str().split("= FAILURES =")[1].split("= PASSES =")[0]
    raising = failures.split(" raising.md line=3 column=1 ")[1].split("\n___")[0]
    assert "x = torch.ones(3)" not in raising and "Sums the product" not in raising, raising
    assert len(raising.splitlines()) < 10, raising


def test_tb_long_shows_the_whole_traceback(tmp_path) -> None:
    write_project(tmp_path, {"raising.md": PAGES["raising.md"][0]})
    run_pytest(tmp_path, "--tb=long").stdout.fnmatch_lines(
        ["*x = torch.ones(3)", "*functional.py*"]
    )


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    write_project(pytester.path, {"sections.md": SECTIONS, "blocks.md": BLOCKS})
    return pytester


BLOCKS = """# Blocks

```python
import time
```

```{code-block} python
:class: needs-torchrun-2
print("launched")
```

```{code-block} text
:class: output
launched
launched
```
"""


def test_k_with_a_section_slug_selects_that_section(project: pytest.Pytester) -> None:
    for selection in (
        ["-k", "Summing", "docs/sections.md"],
        ["docs/sections.md::line:12,column:1"],
    ):
        result = project.runpytest_inprocess("--collect-only", "-q", *selection)
        ids = [line for line in result.outlines if "::" in line]
        assert ids == ["docs/sections.md::line:12,column:1[summing-it]"], result.outlines


def test_a_page_block_times_out_after_its_own_default(project: pytest.Pytester) -> None:
    items, _ = project.inline_genitems("docs/blocks.md")
    timeouts = [item.get_closest_marker("timeout") for item in items]
    assert timeouts[0].args == (120.0,)
    assert timeouts[1] is None  # torchrun keeps the suite's timeout and its launcher's own
    items, _ = project.inline_genitems("docs/blocks.md", "-o", "torchsheet_block_timeout=5")
    assert items[0].get_closest_marker("timeout").args == (5.0,)


def test_the_sites_markdown_twins_are_not_pages(pytester: pytest.Pytester) -> None:
    """A docs build writes a ``.md`` twin of every page under ``docs/_build/html``; a run after a
    build collects the pages, never their twins (whose setup blocks are plain text)."""
    twin = "# Sections\n\n```text\nnot a page\n```\n"
    write_project(pytester.path, {"sections.md": SECTIONS, "_build/html/a/sections.md": twin})
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids and all(line.startswith("docs/sections.md::") for line in ids), result.outlines
    assert result.ret == 0, result.outlines


def test_a_selected_block_gets_the_names_of_a_no_gpu_block_before_it(tmp_path) -> None:
    """A block that holds only without a GPU still runs at the page's prompt: one selected after
    it (a benchmark, ``-k``) gets its names, as in a whole-page run."""
    page = (
        "# No GPU\n\n```{code-block} python\n:class: needs-no-gpu\n>>> import torch\n"
        ">>> torch.cuda.is_available()\nFalse\n```\n\n```python\n>>> torch.ones(2).sum()\n"
        "tensor(2.)\n```\n"
    )
    write_project(tmp_path, {"nogpu.md": page})
    result = run_pytest(tmp_path, "docs/nogpu.md::line:11,column:1")
    result.assert_outcomes(passed=1)


def test_nothing_a_page_made_outlives_it(tmp_path) -> None:
    """A page's objects are freed when it ends: a later page's fork (DataLoader workers) must not
    inherit them (a live DataLoader iterator's clean-up would run in the forked worker)."""
    made = (
        "# Makes\n\n```python\n>>> import sys, weakref\n>>> class Iterator:\n...     pass\n"
        "...\n>>> made = Iterator()\n>>> sys.torchsheet_probe = weakref.ref(made)\n```\n"
    )
    later = "# Later\n\n```python\n>>> import sys\n>>> sys.torchsheet_probe() is None\nTrue\n```\n"
    write_project(tmp_path, {"a_makes.md": made, "b_later.md": later})
    result = run_pytest(tmp_path, "docs/a_makes.md", "docs/b_later.md")
    result.assert_outcomes(passed=6)
