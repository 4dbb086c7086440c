"""The site's exports of a page, on sites planted in-process (sphinx.testing): the notebook and
the Markdown twin beside the page's HTML, llms.txt, llms-full.txt and the archive; the bar under
the status line (Colab and Kaggle only where the site names the repository the notebooks are
published in); and a block the exporter cannot express failing the build at its page line."""

import json
import re
import zipfile
from pathlib import Path

import nbformat
from sheet_site import CPU_213, PASSED, build, record, two_pages

PAGE = """\
# Small page

What this page is for.

## A section

Some prose with a [link to the index](index.md).

```python
>>> 1 + 1
2
>>> x = [1, 2]
>>> x
[1, 2]
```

```python
print("hello")
```

```{code-block} text
:class: output
hello
```
"""


def test_each_page_has_its_notebook_and_twin_and_the_site_its_indexes(tmp_path: Path) -> None:
    build(tmp_path, two_pages("", PAGE))
    record(tmp_path, CPU_213, {"9": PASSED, "17": PASSED}, page="page.md")
    site = build(tmp_path)
    assert site.warnings == ""
    out = tmp_path / "build" / "html"
    notebook = json.loads((out / "page.ipynb").read_text())
    nbformat.validate(nbformat.from_dict(notebook))
    code = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code"]
    assert code[-3:] == ["1 + 1", "x = [1, 2]\nx", 'print("hello")']  # a cell per shown value
    assert notebook["metadata"]["torchsheet"]["torch"] == ["2.13.0"]
    assert "accelerator" not in notebook["metadata"]  # a CPU page
    twin = (out / "page.md").read_text()
    assert twin.startswith("# Small page\n\nWhat this page is for.\n\n*Verified with torch 2.13.0")
    assert "[link to the index](index.html)" in twin and "Output:\n\n```text\nhello\n```" in twin
    llms = (out / "llms.txt").read_text()
    assert llms.startswith("# Sheet\n\n> The sheet.\n") and "- [Small page](page.md): What" in llms
    assert "# Small page" in (out / "llms-full.txt").read_text()
    with zipfile.ZipFile(out / "notebooks.zip") as archive:
        assert sorted(archive.namelist()) == ["torchsheet/index.ipynb", "torchsheet/page.ipynb"]


def actions(html: str) -> list[str]:
    bar = re.search(r'<div class="ts-page-actions[^"]*">(.*?)</div>', html, re.S)
    assert bar is not None
    return re.findall(r'(?:href|data-src)="([^"]+)"', bar[1])


def test_colab_and_kaggle_only_where_the_notebooks_are_published(tmp_path: Path) -> None:
    site = build(tmp_path, two_pages("", PAGE))
    assert actions(site.html("page")) == ["page.ipynb", "page.md", "page.md"]
    assert "File › Upload notebook" in site.html("page")
    conf = "torchsheet_notebooks_repo = 'owner/sheet'\ntorchsheet_notebooks_path = 'nb'\n"
    (tmp_path / "published").mkdir()
    site = build(tmp_path / "published", two_pages("", PAGE), conf=conf)
    assert actions(site.html("page")) == [
        "page.ipynb",
        "https://colab.research.google.com/github/owner/sheet/blob/notebooks/nb/page.ipynb",
        "https://kaggle.com/kernels/welcome?src=https://github.com/owner/sheet/blob/notebooks/"
        "nb/page.ipynb",
        "page.md",
        "page.md",
    ]
    assert "File › Upload notebook" not in site.html("page")


def test_a_block_the_notebook_cannot_express_fails_the_build_at_its_line(tmp_path: Path) -> None:
    skipped = PAGE.replace(">>> x\n", ">>> x  # doctest: +SKIP\n")
    warnings = build(tmp_path, two_pages("", skipped)).warnings
    assert "page.md:13: a notebook cannot express the doctest option '+SKIP'" in warnings
    assert not (tmp_path / "build" / "html" / "page.ipynb").exists()  # none half-written
    unknown = PAGE.replace("Some prose", "```{figure} a.png\n```\n\nSome prose")
    (tmp_path / "figure").mkdir()
    warnings = build(tmp_path / "figure", two_pages("", unknown)).warnings
    assert "page.md:7: the exports cannot express the directive {figure}" in warnings
