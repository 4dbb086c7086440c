"""The page linter finds an undefined name and an unused import at their page lines, and a
>>> block that goes on after the exception it shows."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchsheet_harness.checks.block_lint import lint_page, paste_findings


def test_lint_reports_page_lines(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        textwrap.dedent("""\
            # Page

            ```python
            import os
            x = 1
            ```

            ```python
            >>> y = x + undefined_name
            ```
            """)
    )
    findings = lint_page(page)
    assert any(f.endswith("page.md:4:8: F401 [*] `os` imported but unused") for f in findings)
    assert any(":9:9: F821 Undefined name `undefined_name`" in f for f in findings), findings
    assert len(findings) == 2, findings


def test_a_torchrun_block_is_linted_as_a_program_of_its_own(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        textwrap.dedent("""\
            ```python
            x = 1
            ```

            ```{code-block} python
            :class: needs-torchrun-2
            import sys
            print(x)
            ```
            """)
    )
    findings = lint_page(page)
    assert any(":7:8: F401 [*] `sys` imported but unused" in f for f in findings), findings
    assert any(":8:7: F821 Undefined name `x`" in f for f in findings), findings


def test_a_block_that_goes_on_after_the_exception_it_shows_is_flagged(tmp_path: Path) -> None:
    """IPython and Jupyter stop a pasted block at its first exception: the rest never runs."""
    page = tmp_path / "page.md"
    page.write_text(
        textwrap.dedent("""\
            ```python
            >>> 1 / 0
            Traceback (most recent call last):
                ...
            ZeroDivisionError: division by zero
            >>> x = 1
            ```

            ```python
            >>> y = 2
            >>> 1 / 0
            Traceback (most recent call last):
                ...
            ZeroDivisionError: division by zero
            ```
            """)
    )
    findings = paste_findings(page)
    assert len(findings) == 1, findings
    assert "page.md:2: this exception is not the end of its >>> block" in findings[0]
