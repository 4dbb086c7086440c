"""Error and warning markers: the errors index, and the two ways an entry can drift.

A ``% error: <message>`` marker is checked by the build against the output its block shows (a
marker whose block does not show the message fails the build naming page:line), and the block's
shown output is checked by the test suite against what the code raised (a block that stops
raising fails its test naming page:line). Both are planted here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import sheet_site
from planted import run_pytest, write_project

PAGE = """\
# Errors page

What it is for.

## Zero division

% error: division by zero
```python
>>> 1 / 0
Traceback (most recent call last):
    ...
ZeroDivisionError: division by zero
```

## A script that prints what it caught

% error: invalid literal for int() with base 10
```python
try:
    int("x")
except ValueError as error:
    print(f"rank 0: ValueError: {error}")
```

```{code-block} text
:class: output
rank 0: ValueError: invalid literal for int() with base 10: 'x'
```

## A captured warning

% warning: this is the warning
```python
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warnings.warn("this is the warning")
...
>>> print(caught[0].message)
this is the warning
```
"""


def build(tmp_path: Path, page_text: str) -> subprocess.CompletedProcess:
    """The errors index and ``page_text``, built with -W (tests/support/sheet_site.py)."""
    return sheet_site.build(tmp_path, page_text, index_body="```{errors}\n```")


def test_the_index_lists_each_message_sorted_with_its_class_and_section(tmp_path: Path) -> None:
    finished = build(tmp_path, PAGE)
    assert finished.returncode == 0, finished.stderr
    html = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr class="ts-error[^>]*>(.*?)</tr>', html)
    messages = [re.search(r"<code>(.*?)</code>", row)[1] for row in rows]
    assert messages == [
        "ZeroDivisionError: division by zero",
        "ValueError: invalid literal for int() with base 10",
        "this is the warning",
    ]
    assert 'href="page.html#zero-division"' in rows[0]
    assert "Errors page › A script that prints what it caught" in rows[1]
    assert "(warning)" in rows[2]


def test_a_marker_whose_block_does_not_show_it_fails_the_build(tmp_path: Path) -> None:
    page = PAGE.replace("% error: division by zero", "% error: division by nothing")
    page = page.replace("% warning: this is the warning", "% error: this is the warning")
    page += "\n## Not raising\n\n% error: anything\n```python\n>>> 1 + 1\n2\n```\n"
    page += "\n## Not run\n\n% error: anything\n% not-run: shown only\n```bash\nls\n```\n"
    page += "\n## Empty\n\n% error:\n```python\n>>> 1 + 1\n2\n```\n"
    finished = build(tmp_path, page)
    assert finished.returncode != 0
    lines = page.splitlines()
    at = {text: lines.index(text, 0) + 1 for text in ("% error: division by nothing",)}
    assert (
        f"page.md:{at['% error: division by nothing']}: '% error: division by nothing': the "
        "message is not in the exception it shows (found: ZeroDivisionError: division by zero)"
    ) in finished.stderr
    warning_line = lines.index("% error: this is the warning") + 1
    assert f"page.md:{warning_line}: '% error: this is the warning': the block after it " in (
        finished.stderr
    )
    assert "raises nothing" in finished.stderr
    not_raising = lines.index("## Not raising") + 3
    assert f"page.md:{not_raising}: '% error: anything': the block after it raises nothing" in (
        finished.stderr
    )
    not_run = lines.index("## Not run") + 3
    assert f"page.md:{not_run}: '% error:' must be directly followed by an executed block" in (
        finished.stderr
    )
    empty = lines.index("## Empty") + 3
    assert f"page.md:{empty}: write '% error: <the message as torch prints it>'" in (
        finished.stderr
    )


def test_a_block_that_no_longer_raises_its_message_fails_its_test(tmp_path: Path) -> None:
    drifted = PAGE.replace(">>> 1 / 0", ">>> 1 / 2")
    write_project(tmp_path, {"page.md": drifted})
    result = run_pytest(tmp_path, "-n", "0", "docs/page.md")
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    line = drifted.splitlines().index(">>> 1 / 2") + 1
    assert f"page.md:{line}" in out and "ZeroDivisionError: division by zero" in out, out
    assert "1 failed" in out, out


def test_the_marked_page_passes_as_it_is(tmp_path: Path) -> None:
    write_project(tmp_path, {"page.md": PAGE})
    result = run_pytest(tmp_path, "-n", "0", "docs/page.md")
    assert result.returncode == 0, result.stdout + result.stderr
