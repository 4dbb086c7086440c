"""The page linter finds an undefined name and an unused import at their page lines (a torchrun
block is a program of its own), and a >>> block that goes on after the exception it shows
(IPython and Jupyter stop a pasted block at its first exception: the rest never runs)."""

from __future__ import annotations

from pathlib import Path

from torchsheet_harness.checks.block_lint import lint_page, paste_findings

PAGE = """\
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
    page.write_text(PAGE)
    found = sorted(finding.split("page.md:")[1] for finding in lint_page(page))
    assert found == [
        "14:8: F401 [*] `sys` imported but unused",
        "15:7: F821 Undefined name `x`",
        "4:8: F401 [*] `os` imported but unused",
        "9:9: F821 Undefined name `undefined_name`",
    ]
    (finding,) = paste_findings(page)
    assert "page.md:19: this exception is not the end of its >>> block" in finding
