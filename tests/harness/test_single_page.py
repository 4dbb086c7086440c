"""What ``pytest docs/x.md`` tells about one page: the checks that used to run only in the full
suite, the report of a raising block, the block timeout, skips, and selecting a section.

Pages are planted in a project with the harness's collector and plugin. What collection alone
shows runs in-process (pytester); what needs blocks to run goes through two pytest subprocesses
shared by the tests (an in-process run would re-import torch's modules after pytester restores
``sys.modules``, which torch does not allow).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from planted import PLUGIN, conftest, run_pytest, write_project


@pytest.fixture
def planted(pytester: pytest.Pytester):
    pytester.makeconftest(conftest(PLUGIN))
    docs = pytester.mkdir("docs")

    def plant(name: str, text: str) -> str:
        (docs / name).write_text(textwrap.dedent(text).lstrip("\n"))
        return f"docs/{name}"

    return plant


def run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, str]:
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-ra", *args)
    return result, result.stdout.str() + result.stderr.str()


def test_a_page_with_an_unchecked_block_fails_on_its_own(pytester, planted) -> None:
    page = planted(
        "bad.md",
        """
        # A pycon block

        ```python
        >>> 1 + 1
        2
        ```

        ```pycon
        >>> 2 + 2
        4
        ```
        """,
    )
    result, out = run(pytester, page)
    assert result.ret != 0
    assert "bad.md:8: code block ```pycon is neither executed nor exempted" in out
    assert "ERROR docs/bad.md" in out


def test_a_deleted_closing_fence_is_a_collection_error_naming_page_and_line(
    pytester, planted
) -> None:
    page = planted(
        "unclosed.md",
        """
        # Unclosed

        ## First

        ```python
        x = 1

        ## Second

        Its prose.

        ```python
        y = 2
        ```
        """,
    )
    result, out = run(pytester, page)
    assert result.ret != 0
    assert "unclosed.md:5: the block opened here contains a heading (## Second) at line 8" in out


def test_a_page_block_times_out_after_its_own_default(pytester, planted) -> None:
    page = planted(
        "blocks.md",
        """
        # Blocks

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
        """,
    )
    items, _ = pytester.inline_genitems(page)
    timeouts = [item.get_closest_marker("timeout") for item in items]
    assert timeouts[0] is not None and timeouts[0].args == (120.0,)
    assert timeouts[1] is None  # torchrun keeps the suite's timeout and its launcher's own
    items, _ = pytester.inline_genitems(page, "-o", "torchsheet_block_timeout=5")
    assert items[0].get_closest_marker("timeout").args == (5.0,)


SECTIONS = """
    # Sections

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


def test_k_with_a_section_slug_selects_that_section(pytester, planted) -> None:
    page = planted("sections.md", SECTIONS)
    expected = [f"{page}::line:12,column:1[summing-it]"]
    for selection in (["-k", "Summing", page], [f"{page}::line:12,column:1"]):
        # (the old style of id, by line, still selects)
        result = pytester.runpytest_inprocess("--collect-only", "-q", *selection)
        assert [line for line in result.outlines if "::" in line] == expected, result.outlines


PAGES = {
    "raising.md": """
        # Raising

        ```python
        import torch

        x = torch.ones(3)
        torch.einsum("ij,jk->ik", x, x)
        ```
        """,
    "hanging.md": "# Hanging\n\n```python\nimport time\ntime.sleep(60)\n```\n",
    "gated.md": """
        # Gated

        ```{code-block} python
        :class: needs-gpus-64
        >>> import torch
        >>> x = torch.ones(2, device="cuda")
        >>> x.sum().item()
        2.0
        ```
        """,
    "sections.md": SECTIONS,
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("single")
    write_project(root, PAGES)
    return root


@pytest.fixture(scope="module")
def page_run(project: Path) -> str:
    """raising, hanging and gated pages, and two sections of sections.md chosen by node id."""
    finished = run_pytest(
        project,
        "-o", "torchsheet_block_timeout=2",
        "docs/raising.md", "docs/hanging.md", "docs/gated.md",
        "docs/sections.md::line:12,column:1", "docs/sections.md::line:26,column:1",
    )  # fmt: skip
    return finished.stdout + finished.stderr


def test_a_raising_block_shows_its_line_and_the_exception(page_run: str) -> None:
    out = page_run
    assert re.search(r"docs/raising\.md:7: RuntimeError: einsum\(\): the number of subscripts", out)
    assert 'torch.einsum("ij,jk->ik", x, x)' in out
    failures = out[out.index("= FAILURES =") : out.index("short test summary")]
    assert "x = torch.ones(3)" not in failures  # not the page's source
    assert "Sums the product of the elements" not in failures  # not torch's einsum docstring
    assert "docs/raising.md" in failures and len(failures.splitlines()) < 30, failures


def test_tb_long_shows_the_whole_traceback(project: Path) -> None:
    finished = run_pytest(project, "--tb=long", "docs/raising.md")
    assert "x = torch.ones(3)" in finished.stdout and "functional.py" in finished.stdout


def test_a_hanging_block_fails_at_the_block_timeout(page_run: str) -> None:
    assert "docs/hanging.md:5: Failed: Timeout (>2.0s) from pytest-timeout" in page_run


def test_a_gated_block_is_one_skipped_line(page_run: str) -> None:
    skipped = [line for line in page_run.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, skipped
    assert re.match(r"SKIPPED \[3\] docs/gated.md:3: needs 64 CUDA GPUs", skipped[0])


def test_a_selected_section_runs_the_sections_before_it(page_run: str) -> None:
    assert "PASSED docs/sections.md::line:12,column:1[summing-it]" in page_run


def test_a_section_whose_earlier_section_fails_names_it(page_run: str) -> None:
    assert (
        "docs/sections.md:26 (section 'using-it-after-the-break') needs the blocks before it, "
        "which this run did not select; running them for it, docs/sections.md:18 (section "
        "'broken-on-purpose') failed:\nAttributeError: 'NoneType' object has no attribute "
        "'append'" in page_run
    )
