"""Every code block in docs/ is executed or exempted with a reason; every snippet is included."""

from __future__ import annotations

from pathlib import Path

from torchsheet_harness.checks.audit import audit_docs

REPO = Path(__file__).resolve().parents[2]


def test_no_code_block_goes_unchecked() -> None:
    result = audit_docs(REPO / "docs", REPO / "snippets")
    assert not result.problems, "\n" + "\n".join(result.problems)
    assert result.counts["covered"] > 0
