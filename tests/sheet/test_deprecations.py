"""A block that uses a deprecated API fails, naming page, line and the warning; one that shows a
deprecation on purpose declares it and passes; a deprecation raised inside torch is listed. One
pytest run over planted pages (in-process blocks, and a torchrun page of two launches)."""

import pytest
import torch
from planted import run_pytest, write_project

pytestmark = pytest.mark.torchsheet_inputs()

GRADSCALER = "`torch.cuda.amp.GradScaler(args...)` is deprecated"
SCALER = "torch.cuda.amp.GradScaler(enabled=False)"
PAGES = {
    "plain.md": f"# A plain block on CPU\n\n```python\nimport torch\n\nscaler = {SCALER}\n```\n",
    "prompt.md": """# A >>> block

```python
>>> import torch
>>> x = 1
>>> with torch.cpu.amp.autocast(enabled=False):
...     y = torch.ones(2) * x
>>> y
tensor([1., 1.])
```

```python
>>> import warnings
>>> warnings.warn_explicit("planted internal", DeprecationWarning, "/torch/internal.py", 7)
>>> 1 + 1
2
```
""",
    "wrapped.md": """# A deprecated API behind torch's own wrapper

```python
>>> import torch
>>> import torch.distributed as dist
>>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
>>> out = torch.empty(2)
>>> dist.all_gather_into_tensor(out, torch.ones(2))
>>> dist.destroy_process_group()
```
""",
    "declared.md": f"""# A deprecation shown on purpose

```{{code-block}} python
:class: shows-deprecation
>>> import torch
>>> scaler = {SCALER}
FutureWarning: {GRADSCALER}. Please use ...
>>> scaler = torch.amp.GradScaler("cuda", enabled=False)
```

```{{code-block}} python
:class: shows-deprecation
>>> scaler = torch.amp.GradScaler("cuda", enabled=False)
```
""",
    "ranks.md": f"""# Deprecated API in a rank

```{{code-block}} python
:class: needs-torchrun-2
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
x = torch.ones(2)
scaler = {SCALER}  # deprecated on every leg of the matrix
dist.destroy_process_group()
```

```{{code-block}} python
:class: needs-torchrun-2
import warnings

warnings.warn_explicit("planted rank internal", DeprecationWarning, "/torch/rank.py", 9)
print("ok")
```

```{{code-block}} text
:class: output
ok
ok
```
""",
}
#: page: what the run prints of it, in order (the detail of a failure, then the summary)
REPORTS = {
    "plain.md": [
        f"*docs/plain.md:6: deprecated API: FutureWarning: {GRADSCALER}*",
        "FAILED docs/plain.md::line:3,*",
    ],
    "prompt.md": [  # and a deprecation inside torch (line 14), listed
        "*docs/prompt.md:6: deprecated API: FutureWarning: `torch.cpu.amp.autocast*",
        "*/torch/internal.py:7: DeprecationWarning: planted internal",
        "PASSED docs/prompt.md::line:8,*",
        "PASSED docs/prompt.md::line:14,*",
        "FAILED docs/prompt.md::line:6,*",
    ],
    "declared.md": [  # and a declaration nothing uses (line 11)
        "*docs/declared.md:11: the block declares shows-deprecation, but*",
        *(f"PASSED docs/declared.md::line:{line},*" for line in (5, 6, 8)),
        "FAILED docs/declared.md::line:13,*",
    ],
    "ranks.md": [
        f"*docs/ranks.md:10: deprecated API: FutureWarning: {GRADSCALER}*"
        "(an error in rank 0; use what the warning says)",
        "*/torch/rank.py:9: DeprecationWarning: planted rank internal",
        "PASSED docs/ranks.md::line:14,*",
        "FAILED docs/ranks.md::line:3,*",
    ],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> pytest.RunResult:
    root = tmp_path_factory.mktemp("deprecations")
    write_project(root, PAGES)
    return run_pytest(root, "-p", "no:randomly", "-W", "default", "docs")


@pytest.mark.parametrize("page", REPORTS)
def test_a_deprecated_call_fails_at_its_line_and_a_declared_or_internal_one_passes(
    run: pytest.RunResult, page: str
) -> None:
    run.stdout.fnmatch_lines(REPORTS[page])


WRAPPED_DEPRECATION = tuple(int(part) for part in torch.__version__.split(".")[:2]) < (2, 15)


@pytest.mark.skipif(
    not WRAPPED_DEPRECATION,
    reason="torch 2.15 no longer deprecates all_gather_into_tensor, the one deprecated API known "
    "to warn through torch's own wrapper; the rule is checked on the legs that have it",
)
def test_a_deprecated_call_torch_wraps_is_still_the_blocks(run: pytest.RunResult) -> None:
    # torch.distributed's _exception_logger takes the stacklevel: the warning points at
    # c10d_logger.py, whose caller is the block's line.
    gather = "`torch.distributed.all_gather_into_tensor` is deprecated"
    run.stdout.fnmatch_lines([f"*docs/wrapped.md:8: deprecated API: FutureWarning: {gather}*",
                              "FAILED docs/wrapped.md::line:8,*"])  # fmt: skip
