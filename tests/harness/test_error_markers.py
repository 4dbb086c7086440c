"""Error and warning markers: the errors index, the evidence file, and a marker its block does not
show (a problem naming page:line, at collection; a block that no longer raises it fails its test:
test_harness_faults.py's drifted.md)."""

import re
from pathlib import Path

from sheet_site import build, two_pages
from test_sheet_markers import marked

from torchsheet_harness.pages.markers import page_marker_problems
from torchsheet_harness.pages.messages import raised_class

PAGE = """\
# Errors page

What it is for.

## Zero division

% error: division by zero
% alias: float division by zero | Python 2
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
>>> print(f"{caught[0].category.__name__}: {caught[0].message}")
UserWarning: this is the warning
```
"""
ZERO = (
    ">>> 1 / 0\nTraceback (most recent call last):\n    ...\nZeroDivisionError: division by zero\n"
)
SCRIPT = "ValueError: invalid literal for int() with base 10: 'x'\n"


def test_a_marker_whose_block_does_not_show_it_is_a_problem() -> None:
    blocks = [
        marked(6, "% error: division by nothing", code=ZERO),
        marked(
            10, "% error: this is printed", code=">>> print('this is printed')\nthis is printed\n"
        ),
        marked(14, "% warning: not printed", code=">>> 1 + 1\n2\n"),
        marked(18, "% error: invalid literal", code="int('x')\n", output=SCRIPT),
        marked(22, "% error:", code=ZERO),
    ]
    assert page_marker_problems("docs/p.md", blocks) == [
        "docs/p.md:5: '% error: division by nothing': the message is not in the exception it "
        "shows (found: ZeroDivisionError: division by zero)",
        "docs/p.md:9: '% error: this is printed': the block after it raises nothing: show the "
        "exception as a doctest ('Traceback (most recent call last):', then the exception "
        "line), or the output block of a script",
        "docs/p.md:13: '% warning: not printed': the message is not in the output it shows "
        "(found: 2)",
        "docs/p.md:21: write '% error: <the message as torch prints it>'",
    ]
    assert raised_class("error", "division  by zero", ZERO, None) == "ZeroDivisionError"
    assert raised_class("error", "invalid literal", "int('x')\n", SCRIPT) == "ValueError"


EVIDENCE = """\
rank,count,kind,message,area,cpu,sources,page,marker,section,aliases,why_not
1,90,message,division by zero,math,yes,so,docs/page.md,division by zero,,,
2,80,message,old one,math,yes,so,page.md,float division by zero,,,
3,70,message,not on the page,math,yes,so,docs/page.md,a message nobody marked,,,
4,60,message,no page yet,math,no,so,,,,,needs a GPU
5,50,message,a page that is not,math,yes,so,docs/gone.md,division by zero,,,
6,40,howto,how to divide safely,math,yes,so,docs/page.md,,zero-division,,
7,30,howto,a how-to whose section went,math,yes,so,docs/page.md,,safe-division,,
"""


def test_the_index_groups_messages_by_area_and_the_evidence_file_holds_pages_to_markers(
    tmp_path: Path,
) -> None:
    (tmp_path / "evidence").mkdir()
    pages = two_pages("{errors-count}`messages` indexed.\n\n```{errors}\n```", PAGE)
    conf = "torchsheet_errors_evidence = '../evidence/errors.csv'\n"
    site = build(tmp_path, pages, conf)
    assert site.warnings == ""  # no evidence file: nothing to hold the pages to
    text = site.html()
    assert "3 messages indexed." in text
    area = re.search(r'<section class="ts-errors-area" id="errors-errors-page">(.*?)</section>',
                     text, re.S)[1]  # fmt: skip
    assert "<h2>Errors page (3)" in area
    rows = re.findall(r'<tr class="ts-error[^>]*>(.*?)</tr>', area, re.S)
    shown = [re.sub(r"<[^>]+>", "", re.search(r"<code.*?</code>", row, re.S)[0]) for row in rows]
    assert shown == [
        "ZeroDivisionError: division by zero",
        "ValueError: invalid literal for int() with base 10",
        "UserWarning: this is the warning",
    ]
    assert 'href="page.html#zero-division"' in rows[0] and "Zero division</a>" in rows[0]
    assert "Older wording: float division by zero (Python 2)" in re.sub(r"<[^>]+>", "", rows[0])
    assert "(warning)" in rows[2]
    (tmp_path / "evidence" / "errors.csv").write_text(EVIDENCE)
    warnings = build(tmp_path, pages, conf).warnings
    assert "evidence/errors.csv:4: no '% error:', '% warning:' or '% alias:' marker on " in warnings
    assert "has the text 'a message nobody marked'" in warnings
    assert "evidence/errors.csv:6: page 'docs/gone.md' is not a page of the site" in warnings
    # A how-to row names the section that answers it.
    missing = "evidence/errors.csv:8: no section of docs/page.md has the id 'safe-division'"
    assert missing in warnings
    assert len(re.findall(r"evidence/errors\.csv:\d+", warnings)) == 3
