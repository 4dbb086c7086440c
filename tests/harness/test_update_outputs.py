"""``pytest --update-outputs``: planted pages with stale outputs are rewritten to exactly what their
code prints, and nothing else; failures mark the first differing column.

The alignment and the marker are tested in-process; the update itself by a fresh pytest in a
planted project (:mod:`planted`), which also shows the page passing afterwards, a second update
changing nothing, and a real page made stale in a temporary copy coming back as it was.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from planted import RECORDER, REPO, conftest, run_pytest
from sybil.example import SybilFailure
from sybil.testing import check_parser

from torchsheet_harness.pages.parser import PageParser
from torchsheet_harness.run.evaluators import compare_output
from torchsheet_harness.run.outputs import first_difference, updated_expected

# Every kind of stale output, and what must stay: a line with '...' that still matches, a
# GPU-gated block (skipped here, its wrong output untouched), a not-run block.
STALE = """\
# Stale

## A doctest

```python
>>> import torch
>>> torch.tensor([3, 12, 21])
tensor([3, 12, 21])
>>> print("a\\nb\\nc")
a
B
c
>>> x = 1
>>> print("printed now")
>>> int("x")
Traceback (most recent call last):
    ...
ValueError: invalid literal for int() with base 10: 'y'
```

## An output block

```python
print("one")
print("two")
print("id", id(object()))
```

```{code-block} text
:class: output
one
three
id ...
```

## An ellipsis over lines

```python
>>> print("\\n".join(map(str, range(5))))
0
...
4
5
```

## Gated

```{code-block} python
:class: needs-cuda
>>> import torch
>>> torch.ones(2, device="cuda")
tensor([9., 9.], device='cuda:0')
```

% not-run: shown only
```bash
echo hi
```
"""

# STALE with exactly its stale lines rewritten.
FRESH = (
    STALE.replace("\ntensor([3, 12, 21])\n", "\ntensor([ 3, 12, 21])\n")
    .replace("a\nB\nc\n", "a\nb\nc\n")
    .replace('>>> print("printed now")\n', '>>> print("printed now")\nprinted now\n')
    .replace("base 10: 'y'", "base 10: 'x'")
    .replace("one\nthree\n", "one\ntwo\n")
    .replace("...\n4\n5\n", "...\n4\n")
)

# Blocks that raise or print nothing are never rewritten; the stale example after them is.
RAISING = """\
# Raising

```python
>>> int("x")
0
>>> print("after")
before
```

```python
print("printed first")
raise KeyError("planted")
```

```{code-block} text
:class: output
stale
```

```python
x = 1
```

```{code-block} text
:class: output
something
```
"""

RANKS = """\
# Ranks

```{code-block} python
:class: needs-torchrun-2
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
print(f"rank {rank} of {dist.get_world_size()}")
print(f"rank {rank} done")
dist.barrier()
dist.destroy_process_group()
```

```{code-block} text
:class: output
rank 0 of 4
rank 0 done
rank 1 of 4
rank 1 done
```
"""


def project(root: Path, pages: dict[str, str]) -> Path:
    """A planted project with the harness's plugins (the recorder included) and ``pages``."""
    (root / "conftest.py").write_text(conftest("torchsheet_harness.pytest_plugin", RECORDER))
    docs = root / "docs"
    for name, text in pages.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text)
    return docs


def diff_lines(stdout: str) -> list[str]:
    """The changed lines of the unified diffs the run printed in its summary."""
    summary = re.split(r"\n-+ torchsheet --update-outputs -+\n", stdout)[-1]
    summary = summary.split("\ntorchsheet: ")[0]  # up to the count line
    return [
        line
        for line in summary.splitlines()
        if line.startswith(("-", "+")) and not line.startswith(("--- a/", "+++ b/"))
    ]


@pytest.mark.parametrize(
    ("expected", "got", "rewritten"),
    [
        ("a\nB\nc\n", "a\nb\nc\n", ["a", "b", "c"]),
        ("id ... at ...\nstale\n", "id 1 at 0x7f\nfresh\n", ["id ... at ...", "fresh"]),
        ("0\n...\n4\n5\n", "0\n1\n2\n3\n4\n", ["0", "...", "4"]),
        ("a\n...\nz\n", "a\nb\nc\nz\nnew\n", ["a", "...", "z", "new"]),
        (
            "Traceback (most recent call last):\n    ...\nValueError: 'y'\n",
            "Traceback (most recent call last):\n  File x\n    f()\nValueError: 'x'\n",
            ["Traceback (most recent call last):", "    ...", "ValueError: 'x'"],
        ),
        ("W: a is\nshown ...\nold\n", "W: a is shown here\nnew\n", ["W: a is", "shown ...", "new"]),
        ("", "printed\n", ["printed"]),
        ("shown\n", "", []),
    ],
    ids=[
        "a line",
        "inline ...",
        "... over lines",
        "... then more",
        "traceback",
        "wrapped by the page",
        "new",
        "gone",
    ],
)
def test_only_differing_lines_are_rewritten(expected: str, got: str, rewritten: list[str]):
    assert updated_expected(expected, got) == rewritten


def test_a_mismatch_marks_the_padding_space() -> None:
    message = compare_output("tensor([3, 12, 21])\n", "tensor([ 3, 12, 21])\n", "page.md:3")
    assert message.splitlines()[-5:] == [
        "--- first difference: line 1 of the output, column 9: '3' expected, ' ' printed ---",
        "expected: tensor([3, 12, 21])",
        "                  ^",
        "got:      tensor([ 3, 12, 21])",
        "                  ^",
    ]
    assert (message.expected, message.got) == ("tensor([3, 12, 21])\n", "tensor([ 3, 12, 21])\n")


def test_a_doctest_failure_marks_it_too() -> None:
    with pytest.raises(SybilFailure) as failed:
        check_parser(PageParser(), "```python\n>>> print('tensor([ 3])')\ntensor([3])\n```\n")
    assert str(failed.value).splitlines()[-5:] == [
        "--- first difference: line 1 of the output, column 9: '3' expected, ' ' printed ---",
        "expected: tensor([3])",
        "                  ^",
        "got:      tensor([ 3])",
        "                  ^",
    ]


def test_the_first_difference_is_past_matching_lines_and_whitespace() -> None:
    marked = first_difference("a\n...\nz  is here\n", "a\nb\nz is there\n")
    assert marked.splitlines()[0] == (
        "--- first difference: line 3 of the output, column 7: 'h' expected, 't' printed ---"
    )
    assert first_difference("a\n", "a\nb\n").splitlines()[0] == (
        "--- first difference: line 2 of the output: the page shows no more lines ---"
    )


def test_stale_outputs_are_rewritten_and_nothing_else(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # the gated block is skipped on any runner
    docs = project(tmp_path, {"stale.md": STALE, "raising.md": RAISING})
    results = tmp_path / "results.json"

    updated = run_pytest(
        tmp_path, "-n", "0", "--update-outputs", f"--torchsheet-results={results}", "docs"
    )
    assert updated.returncode == 1, updated.stdout  # the raising blocks still fail
    assert (docs / "stale.md").read_text() == FRESH
    assert (docs / "raising.md").read_text() == RAISING.replace("before\n", "after\n")
    assert diff_lines(updated.stdout) == [
        "-before",
        "+after",
        "-tensor([3, 12, 21])",
        "+tensor([ 3, 12, 21])",
        "-B",
        "+b",
        "+printed now",
        "-ValueError: invalid literal for int() with base 10: 'y'",
        "+ValueError: invalid literal for int() with base 10: 'x'",
        "-three",
        "+two",
        "-5",
    ]
    assert (
        "torchsheet: rewrote 7 outputs in 2 pages (docs/raising.md, docs/stale.md); "
        "1 differing output not rewritten; page results not recorded" in updated.stdout
    )
    assert "not rewritten: the code printed nothing" in updated.stdout
    assert "FAILED docs/raising.md::line:4" in updated.stdout  # raised ValueError, not shown
    assert "KeyError: 'planted'" in updated.stdout
    assert not results.exists()

    again = run_pytest(tmp_path, "-n", "0", "--update-outputs", "docs")
    assert "torchsheet: no page changed" in again.stdout
    assert (docs / "stale.md").read_text() == FRESH

    # The page passes, and a block below a rewrite that added a line is reported at its line.
    passed = run_pytest(tmp_path, "-n", "0", f"--torchsheet-results={results}", "docs/stale.md")
    assert passed.returncode == 0, passed.stdout
    lines = FRESH.splitlines()
    gated = lines.index(":class: needs-cuda")  # the block's opening line, 1-based
    assert re.search(rf"SKIPPED \[\d+\] docs/stale.md:{gated}: needs CUDA", passed.stdout)
    assert f"SKIPPED [1] docs/stale.md:{lines.index('```bash') + 1}: not run" in passed.stdout
    blocks = json.loads(results.read_text())["pages"]["stale.md"]["blocks"].values()
    outcomes = {block["outcome"] for block in blocks}
    assert outcomes == {"passed", "skipped"}, outcomes


def test_a_torchrun_block_gets_every_ranks_output_rank_0_first(tmp_path) -> None:
    docs = project(tmp_path, {"ranks.md": RANKS})
    updated = run_pytest(tmp_path, "-n", "0", "--update-outputs", "docs")
    assert updated.returncode == 0, updated.stdout
    fresh = RANKS.replace(" of 4\n", " of 2\n")
    assert (docs / "ranks.md").read_text() == fresh
    assert diff_lines(updated.stdout) == [
        "-rank 0 of 4",
        "+rank 0 of 2",
        "-rank 1 of 4",
        "+rank 1 of 2",
    ]
    assert run_pytest(tmp_path, "-n", "0", "docs").returncode == 0


def test_real_pages_made_stale_come_back_as_they_were(tmp_path) -> None:
    pages = {
        name: (REPO / "docs" / name).read_text()
        for name in ("tensors/layout.md", "tensors/creating.md")
    }
    stale = {
        "tensors/layout.md": pages["tensors/layout.md"].replace("(3, 1)\n", "(1, 3)\n", 1),
        "tensors/creating.md": pages["tensors/creating.md"].replace(
            "torch.Size([2, 3]) torch.int64\n", "torch.Size([3, 2]) torch.int64\n"
        ),
    }
    assert stale != pages
    docs = project(tmp_path, stale)
    # Under pytest-xdist the controller applies what the workers found.
    updated = run_pytest(tmp_path, "-n", "2", "--dist", "loadfile", "--update-outputs", "docs")
    assert updated.returncode == 0, updated.stdout
    for name, text in pages.items():
        assert (docs / name).read_text() == text
    assert sorted(diff_lines(updated.stdout)) == sorted(
        ["-(1, 3)", "+(3, 1)", "-torch.Size([3, 2]) torch.int64", "+torch.Size([2, 3]) torch.int64"]
    )
