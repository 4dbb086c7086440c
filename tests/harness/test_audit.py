"""The static checks of pages: every code block in docs/ is executed or exempted with a reason,
every snippet is included; GPU blocks define every name they use (so `pytest -m gpu` can run them
without the CPU blocks); the page linter finds an undefined name and an unused import at their
page lines (a torchrun block is a program of its own), and a >>> block that goes on after the
exception it shows (IPython and Jupyter stop a pasted block at its first exception)."""

from pathlib import Path

import pytest

from torchsheet_harness.checks.audit import audit_docs
from torchsheet_harness.checks.block_lint import lint_page, paste_findings
from torchsheet_harness.checks.self_contained import free_names, gpu_dependencies
from torchsheet_harness.locations import page_files
from torchsheet_harness.pages.page import read_page

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def test_no_code_block_goes_unchecked() -> None:
    result = audit_docs(DOCS, REPO / "snippets")
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


@pytest.mark.parametrize("page", page_files(DOCS), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_gpu_blocks_are_self_contained(page: Path) -> None:
    missing = gpu_dependencies(read_page(page))
    assert not missing, (
        f"{page.relative_to(REPO)}: GPU blocks use {sorted(missing)} defined only by CPU blocks; "
        "`pytest -m gpu` would deselect those. Import/define them in the GPU block."
    )


def test_a_dependent_gpu_block_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nimport torch\nx = torch.ones(2)\n```\n\n```{code-block} python\n"
        ":class: needs-cuda\n>>> y = x.cuda()\n>>> import math\n>>> math.pi > 3\nTrue\n```\n"
    )
    assert gpu_dependencies(read_page(page)) == {"x"}
    source = "import torch\ndef f(a):\n    return a + g() + y\ndef g():\n    return 1\nf(1)\n"
    assert free_names(source) == {"y"}
    assert free_names("for i in range(2):\n    print(i)\nwith open('f') as h:\n    h\n") == set()


LINTED = """\
# Page

```python
import os
x = 1
```

```python
>>> y = x + undefined_name
```

```{code-block} python
:class: needs-torchrun-2
import sys
print(x)
```

```python
>>> 1 / 0
Traceback (most recent call last):
    ...
ZeroDivisionError: division by zero
>>> z = 1
```

```python
>>> 1 / 0
Traceback (most recent call last):
    ...
ZeroDivisionError: division by zero
```
"""


def test_lint_and_paste_findings_name_their_page_lines(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(LINTED)
    found = sorted(finding.split("page.md:")[1] for finding in lint_page(page))
    assert found == [
        "14:8: F401 [*] `sys` imported but unused",
        "15:7: F821 Undefined name `x`",
        "4:8: F401 [*] `os` imported but unused",
        "9:9: F821 Undefined name `undefined_name`",
    ]
    (finding,) = paste_findings(page)
    assert "page.md:19: this exception is not the end of its >>> block" in finding
