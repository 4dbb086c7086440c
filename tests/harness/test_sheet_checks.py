"""The marker checks on what markers point at, as problems naming page:line: a quick-reference
excerpt that would not run as shown (a body without its header, a header without its body, a
name only a left-out header binds or the page never defines), and a trap with no pitfall."""

from __future__ import annotations

from test_sheet_markers import marked

from torchsheet_harness.pages.excerpts import excerpt_problem, module_bindings
from torchsheet_harness.pages.markers import page_marker_problems


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


def test_excerpts_that_do_not_run_as_shown_are_problems_naming_page_and_line() -> None:
    loop = "for item in range(3):\n    print(item)\n"
    blocks = [
        marked(7, code=">>> import torch\n>>> x = torch.zeros(2)\n"),
        marked(11, "% quickref: Creation", code=">>> x.shape\ntorch.Size([2])\n"),  # fine
        marked(15, "% quickref: Creation | 2", code=loop),
        marked(19, "% quickref: Creation | 1", code="with open('f') as h:\n    t = h.read()\n"),
        marked(23, "% quickref: Creation | 3", code=loop.replace("print", "total =") + "item\n"),
        marked(27, "% quickref: Creation", code="print(undefined_name)\n"),
    ]
    problems = page_marker_problems("docs/p.md", blocks)
    assert [problem.split(": ", 1)[0] for problem in problems] == [
        "docs/p.md:14", "docs/p.md:18", "docs/p.md:22", "docs/p.md:26"
    ]  # fmt: skip
    assert (
        "does not compile as shown (its line 1, '    print(item)': unexpected indent"
        in (problems[0])
    )
    assert "does not compile as shown" in problems[1]
    assert "the excerpt uses 'item', which only the header 'for item in range(3):'" in problems[2]
    assert "the excerpt uses 'undefined_name', which neither" in problems[3]


def test_a_trap_the_pitfalls_page_does_not_list_is_a_problem() -> None:
    blocks = [
        marked(7, section="Pitfall: one without a marker"),
        marked(13, "% pitfall: a | b | c", section="Where it goes wrong, marked"),
        marked(18, code="# WRONG, on purpose: the demonstration\nz = 3\n", section="A script"),
        marked(22, code="# WRONG\n", executed=False, section="A script"),  # prose: owes none
    ]
    assert page_marker_problems("docs/p.md", blocks) == [
        "docs/p.md:7: the section 'Pitfall: one without a marker' is titled as a trap, but no "
        "block in it is listed on the pitfalls page; put '% pitfall: <the mistake> | <what it "
        "does> | <the fix>' before the block that shows it, or retitle the section",
        "docs/p.md:18: this block says WRONG in a comment, but is not listed on the pitfalls "
        "page; put '% pitfall: <the mistake> | <what it does> | <the fix>' before it",
    ]
    blocks[0] = marked(7, "% pitfall: d | e | f", section="Pitfall: one without a marker")
    blocks[2] = marked(18, "% pitfall: g | h | i", code="# WRONG\n", section="A script")
    assert page_marker_problems("docs/p.md", blocks) == []
