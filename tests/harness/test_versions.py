"""What the site says each block ran on and what changed between torch versions, from the
results files (torchsheet_harness/sphinx_ext/versions.py, changes.py): the pure functions, and a
planted site whose two legs printed one example differently and saw one name change."""

import html
import re
from pathlib import Path

from sheet_site import CPU_213, CPU_214, CPU_215, build, plant, record

from torchsheet_harness.results import Environment, Results, environment_key
from torchsheet_harness.sphinx_ext import versions
from torchsheet_harness.sphinx_ext.verdicts import page_view

PAGE = """\
# Changes

What changed.

## A section

```python
>>> import torch
>>> torch.tensor([0.1, 0.2]).sum()
tensor(0.3000)
>>> torch.ones(1)
tensor([1.])
```

```{what-changed}
```
"""


def results_of(environment: Environment, printed: dict, api: dict | None = None) -> Results:
    key = environment_key(environment)
    entry = {"outcome": "passed", "printed": printed, "uses": ["torch.ones"]}
    page = {"sha256": "now", "finished": "1", "blocks": {"7": entry}}
    data = Results(
        schema=3, environment={**environment, "key": key}, last_run={}, pages={"p.md": page}
    )
    if api is not None:
        data["api"] = api
    return data


def test_a_block_ran_on_each_version_and_printed_differently_on_one() -> None:
    same = {"9": "tensor(0.3000)\n", "11": "tensor([1.])\n"}
    other = {"9": "tensor(0.3000, dtype=torch.float32)\n", "11": "tensor([1.])\n"}
    found = [results_of(CPU_215, other), results_of(CPU_213, same), results_of(CPU_214, same)]
    view = page_view(found, "p.md", "now")
    assert versions.ran_on(view, 7) == "torch 2.13.0, 2.14.1 and 2.15.0+cu132 on CPU"
    keys = [environment_key(e) for e in (CPU_213, CPU_214, CPU_215)]
    assert versions.differences(view, 7) == {
        "9": dict(zip(keys, [same["9"], same["9"], other["9"]], strict=True))
    }
    view = page_view(found[1:], "p.md", "now")
    assert versions.differences(view, 7) == {}  # the same on every version: nothing to show


def test_what_changed_in_a_name_between_versions() -> None:
    later = {"signature": "(x, y=1)"}
    found = [
        results_of(CPU_213, {}, {"torch.a": {"missing": True}, "torch.b": {"signature": "(x)"}}),
        results_of(CPU_214, {}, {"torch.a": {}, "torch.b": later}),
        results_of(CPU_215, {}, {"torch.a": {"deprecated": "use c"}, "torch.b": later}),
    ]
    changes = versions.api_changes(found)
    assert [(c.name, c.what, c.version) for c in changes] == [
        ("torch.a", "new", "2.14.1"),
        ("torch.a", "deprecated", "2.15.0"),
        ("torch.b", "signature changed", "2.14.1"),
    ]
    assert (
        versions.in_words(changes[:1])
        == "API read from each torch (not run): `torch.a` new in 2.14.1."
    )
    assert versions.api_changes(found, names=["torch.c"]) == []


def text(html_text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


def test_the_block_line_and_the_what_changed_page(tmp_path: Path) -> None:
    plant(tmp_path, {"index.md": PAGE})
    printed = {"9": "tensor(0.3000)\n", "11": "tensor([1.])\n"}
    for environment, sum_printed, ones in (
        (CPU_213, "tensor(0.3000)\n", {"signature": "(*size)"}),
        (CPU_215, "tensor(0.30000001)\n", {"signature": "(*size, device=None)"}),
    ):
        record(tmp_path, environment,
               {"7": {"outcome": "passed", "printed": {**printed, "9": sum_printed},
                      "uses": ["torch.ones"]}},
               api={"torch.ones": ones})  # fmt: skip
    site = build(tmp_path)
    assert site.warnings == ""
    line = re.search(r'<p class="ts-versions[^"]*">(.*?)</p>', site.html(), re.S)
    assert text(line[1]) == (
        "Ran with torch 2.13.0 and 2.15.0+cu132 on CPU; prints differently with torch "
        "2.15.0+cu132 on CPU than with torch 2.13.0 on CPU: what changed. API read from each "
        "torch (not run): "
        "torch.ones signature changed in 2.15.0."
    )
    page = text(site.html())
    assert (
        "1 blocks print differently between the torch versions the tests ran (1 examples)" in page
    )
    assert "tensor(0.30000001)" in page and "torch.tensor([0.1, 0.2]).sum()" in page
    assert "torch.ones" in page and "added: device=None" in page
