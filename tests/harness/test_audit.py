"""Every code block in docs/ is executed or exempted with a reason; every snippet is included."""

from __future__ import annotations

from pathlib import Path

from torchsheet_harness.checks.audit import audit_docs

REPO = Path(__file__).resolve().parents[2]


def test_no_code_block_goes_unchecked() -> None:
    result = audit_docs(REPO / "docs", REPO / "snippets")
    assert not result.problems, "\n" + "\n".join(result.problems)
    assert result.counts["covered"] > 0


def test_the_audit_names_every_block_sybil_would_ignore_and_every_unused_snippet(
    tmp_path: Path,
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    (tmp_path / "docs" / "ignored.md").write_text(
        "# Ignored blocks\n\n```pycon\n>>> 1 + 1\n2\n```\n\n"
        '```python title="example.py"\nx = 1\n```\n\n```{testcode}\nx = 1\n```\n\n'
        "```bash\necho not exempted\n```\n\n```{note}\nProse in a note is not code.\n```\n\n"
        "```python\ny = 2\n```\n"
    )
    (tmp_path / "snippets" / "orphan.py").write_text("print('never included')\n")
    problems = audit_docs(tmp_path / "docs", tmp_path / "snippets").problems
    assert [problem.split(": ")[0].rsplit("/", 1)[-1] for problem in problems] == [
        "ignored.md:3", "ignored.md:8", "ignored.md:12", "ignored.md:16", "orphan.py"
    ], problems  # fmt: skip
    assert problems[-1].endswith("orphan.py: not literal-included by any page, so never tested")
