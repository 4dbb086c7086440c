"""``pytest --update-outputs`` rewrites stale outputs to exactly what the code prints, and nothing
else (the alignment in-process; the update by one xdist run over planted pages, a torchrun block
and real pages made stale); failures mark the first differing column."""

import re

import pytest
from planted import RECORDER, REPO, run_pytest, write_project
from sybil.example import SybilFailure
from sybil.testing import check_parser

from torchsheet_harness.run.evaluators import compare_output
from torchsheet_harness.run.outputs import first_difference, updated_expected
from torchsheet_harness.run.regions import PageParser

# Every kind of stale output, and what must stay: a line with '...' that still matches, a
# GPU-gated block (skipped here, its wrong output untouched), a not-run block.
STALE = """\
# Stale

## A doctest

```python
>>> import torch
>>> torch.tensor([3, 12, 21])
tensor([3, 12, 21])
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
    .replace('>>> print("printed now")\n', '>>> print("printed now")\nprinted now\n')
    .replace("base 10: 'y'", "base 10: 'x'")
    .replace("one\nthree\n", "one\ntwo\n")
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


#: Real pages made stale (what to replace with what), which must come back as they were.
REAL = {
    "tensors/layout.md": ("(3, 1)\n", "(1, 3)\n"),
    "tensors/creating.md": ("torch.Size([2, 3]) torch.int64\n", "torch.Size([3, 2]) torch.int64\n"),
}


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
    ids=["a line", "inline ...", "... over lines", "... then more", "traceback",
         "wrapped by the page", "new", "gone"],
)  # fmt: skip
def test_only_differing_lines_are_rewritten(expected: str, got: str, rewritten: list[str]):
    assert updated_expected(expected, got) == rewritten


def test_a_failure_marks_the_first_difference() -> None:
    marked = [
        "--- first difference: line 1 of the output, column 9: '3' expected, ' ' printed ---",
        "expected: tensor([3])",
        "                  ^",
        "got:      tensor([ 3])",
        "                  ^",
    ]
    message = compare_output("tensor([3])\n", "tensor([ 3])\n", "page.md:3")
    assert message.splitlines()[-5:] == marked
    assert (message.expected, message.got) == ("tensor([3])\n", "tensor([ 3])\n")
    for page in (  # a doctest's and an output block's, at the page line
        "```python\n>>> print('tensor([ 3])')\ntensor([3])\n```\n",
        "```python\nprint('tensor([ 3])')\n```\n\n"
        "```{code-block} text\n:class: output\ntensor([3])\n```\n",
    ):
        with pytest.raises(SybilFailure) as failed:
            check_parser(PageParser(), page)
        assert str(failed.value).splitlines()[-5:] == marked
    assert ":1: the output shown on the page is not what the code printed" in str(failed.value)
    assert first_difference("a\n...\nz  is here\n", "a\nb\nz is there\n").splitlines()[0] == (
        "--- first difference: line 3 of the output, column 7: 'h' expected, 't' printed ---"
    )
    assert first_difference("a\n", "a\nb\n").splitlines()[0] == (
        "--- first difference: line 2 of the output: the page shows no more lines ---"
    )


def test_stale_outputs_are_rewritten_and_nothing_else(tmp_path, monkeypatch) -> None:
    """Planted pages, a torchrun block (every rank's output, rank 0 first) and real pages made
    stale: under pytest-xdist the controller applies what the workers found."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # the gated block is skipped on any runner
    real = {name: (REPO / "docs" / name).read_text() for name in REAL}
    stale = {name: real[name].replace(*REAL[name], 1) for name in REAL}
    pages = {"stale.md": STALE, "raising.md": RAISING, "ranks.md": RANKS, **stale}
    docs = write_project(tmp_path, pages, "torchsheet_harness.pytest_plugin", RECORDER)
    results = tmp_path / "results.json"

    options = ("-n", "2", "--dist", "loadfile", f"--torchsheet-results={results}")
    updated = run_pytest(tmp_path, *options, "--update-outputs")
    assert updated.ret == 1, updated.stdout.str()  # the raising blocks still fail
    fresh = {"stale.md": FRESH, "raising.md": RAISING.replace("before\n", "after\n"),
             "ranks.md": RANKS.replace(" of 4\n", " of 2\n"), **real}  # fmt: skip
    assert {name: (docs / name).read_text() for name in fresh} == fresh
    assert sorted(diff_lines(updated.stdout.str())) == sorted([
        "-before", "+after", "-tensor([3, 12, 21])", "+tensor([ 3, 12, 21])", "+printed now",
        "-ValueError: invalid literal for int() with base 10: 'y'",
        "+ValueError: invalid literal for int() with base 10: 'x'", "-three", "+two",
        "-rank 0 of 4", "+rank 0 of 2", "-rank 1 of 4", "+rank 1 of 2",
        "-(1, 3)", "+(3, 1)", "-torch.Size([3, 2]) torch.int64", "+torch.Size([2, 3]) torch.int64",
    ])  # fmt: skip
    for line in (
        "*not rewritten: the code printed nothing*",
        "FAILED docs/raising.md::line:4,*",  # raised ValueError, not shown
        "docs/raising.md:12: KeyError: 'planted'",
        "torchsheet: rewrote 8 outputs in 5 pages (docs/raising.md, docs/ranks.md, docs/stale.md, "
        "docs/tensors/creating.md, docs/tensors/layout.md); 1 differing output not rewritten; "
        "page results not recorded*",
    ):
        updated.stdout.fnmatch_lines([line])
    assert not results.exists()

    # Run again: nothing to rewrite; the page passes, and a block below a rewrite that added a
    # line is reported at its line.
    again = run_pytest(tmp_path, "-n", "0", "--update-outputs", "docs/stale.md", "docs/raising.md")
    lines = FRESH.splitlines()
    again.assert_outcomes(passed=7, failed=3, skipped=3)  # stale.md: 6 passed, 3 skipped
    again.stdout.fnmatch_lines([
        "torchsheet: no page changed*",
        f"SKIPPED [[]2] docs/stale.md:{lines.index(':class: needs-cuda')}: needs CUDA*",
        f"SKIPPED [[]1] docs/stale.md:{lines.index('```bash') + 1}: not run*",
    ])  # fmt: skip
    assert (docs / "stale.md").read_text() == FRESH
    again.stdout.no_fnmatch_line("FAILED docs/stale.md*")
