"""The sheets' build checks on what markers point at: an excerpt runs as shown, a trap is listed.

Planted pages: quick-reference excerpts that would not run as the sheet shows them (a body
without its header, a header without its body, a name only a left-out header binds, a name the
page never defines), and traps a page shows (a section titled as one, a block that says WRONG)
with no pitfall marker. Each fails the ``-W`` build naming page:line; the right ones next to
them pass.
"""

from __future__ import annotations

from sheet_site import build

from torchsheet_harness.sphinx_ext.excerpt_checks import excerpt_problem, module_bindings

EXCERPTS = """\
# Excerpts

What it is for.

## Earlier

```python
>>> import torch
>>> x = torch.zeros(2)
```

## A name from an earlier block

% quickref: Creation
```python
>>> x.shape
torch.Size([2])
```

## A body without its header

% quickref: Creation | 2
```python
for item in range(3):
    print(item)
```

## A header without its body

% quickref: Creation | 1
```python
with open("data.txt") as handle:
    text = handle.read()
```

## A name only a header binds

% quickref: Creation | 3
```python
for item in range(3):
    total = item
print(item)
```

## A name nothing defines

% quickref: Creation
```python
print(undefined_name)
```
"""

TRAPS = """\
# Traps

What it is for.

## Pitfall: one without a marker

```python
x = 1
```

## Where it goes wrong, marked

% pitfall: a mistake | what it does | the fix
```python
y = 2
```

## A script for the demonstration

```python
# WRONG, on purpose: the demonstration
z = 3
```

## Pitfalls

```{pitfalls}
```
"""


def line_after(page: str, heading: str, offset: int = 2) -> int:
    """The 1-based line ``offset`` lines below ``heading`` (its marker, or its block's fence)."""
    return page.splitlines().index(heading) + 1 + offset


def test_an_excerpt_must_compile_as_shown() -> None:
    context = ["for item in range(3):\n    print(item)\n"]
    assert "unexpected indent" in excerpt_problem(["    print(item)"], context)
    assert "expected an indented block" in excerpt_problem(["for item in range(3):"], context)
    assert "'(' was never closed" in excerpt_problem(["print(item,"], context)
    assert excerpt_problem(["for item in range(3):", "    print(item)"], context) is None


def test_an_excerpt_uses_only_names_the_page_defines_before_it() -> None:
    page = ["import torch\nx = torch.zeros(2)\n", "for item in x:\n    total = item\n"]
    assert excerpt_problem(["x.sum(), total", "len(torch.ones(1))"], page) is None
    assert "only the header 'for item in x:' binds" in excerpt_problem(["print(item)"], page)
    assert "'later'" in excerpt_problem(["later + 1"], page)
    assert excerpt_problem(["[y for y in x]", "f = lambda z: z"], page) is None


def test_module_bindings_tell_plain_statements_from_headers() -> None:
    source = (
        "import torch.nn as nn\nfrom os import path\nx, (y, *z) = 1, (2, 3)\n"
        "def f(a):\n    inner = a\nfor i in range(2):\n    body = i\n"
        "with open('f') as handle:\n    pass\n"
        "try:\n    pass\nexcept OSError as error:\n    caught = 1\n"
    )
    plain, headers = module_bindings(source)
    assert plain == {"nn", "path", "x", "y", "z", "f", "body", "caught"}
    assert set(headers) == {"i", "handle", "error"}
    assert module_bindings("not python (") == (set(), {})


def test_bad_excerpts_fail_the_build_naming_page_and_line(tmp_path) -> None:
    build(tmp_path, EXCERPTS)
    finished = build(tmp_path, EXCERPTS)  # the page is unchanged: it is read again all the same
    assert finished.returncode != 0
    errors = finished.stderr
    body = line_after(EXCERPTS, "## A body without its header")
    header = line_after(EXCERPTS, "## A header without its body")
    loop_name = line_after(EXCERPTS, "## A name only a header binds")
    undefined = line_after(EXCERPTS, "## A name nothing defines")
    good = line_after(EXCERPTS, "## A name from an earlier block")
    assert f"page.md:{body}: the excerpt does not compile as shown" in errors
    assert "'    print(item)': unexpected indent" in errors
    assert f"page.md:{header}: the excerpt does not compile as shown" in errors
    assert f"page.md:{loop_name}: the excerpt uses 'item', which only the header" in errors
    assert f"page.md:{undefined}: the excerpt uses 'undefined_name'" in errors
    assert f"page.md:{good}:" not in errors, "x is defined by an earlier block of the page"


def test_a_trap_the_pitfalls_page_does_not_list_fails_the_build(tmp_path) -> None:
    build(tmp_path, TRAPS)
    finished = build(tmp_path, TRAPS)  # the page is unchanged: it is read again all the same
    assert finished.returncode != 0
    errors = finished.stderr
    section = line_after(TRAPS, "## Pitfall: one without a marker", offset=0)
    wrong_block = line_after(TRAPS, "## A script for the demonstration")
    assert (
        f"page.md:{section}: the section 'Pitfall: one without a marker' is titled as a trap"
        in (errors)
    )
    assert f"page.md:{wrong_block}: this block says WRONG in a comment" in errors
    assert "goes wrong, marked" not in errors, "its block carries a pitfall marker"
    assert "'Pitfalls'" not in errors and "'Traps'" not in errors, "the pitfalls page, the page"


def test_the_same_traps_with_their_markers_build(tmp_path) -> None:
    page = TRAPS.replace("marker\n\n```python", "marker\n\n% pitfall: a | b | c\n```python")
    page = page.replace("\n```python\n# WRONG", "\n% pitfall: d | e | f\n```python\n# WRONG")
    assert page.count("% pitfall:") == 3
    finished = build(tmp_path, page)
    assert finished.returncode == 0, finished.stderr
