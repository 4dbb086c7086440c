"""The static check of what this machine cannot run (GPU blocks, snippets' NCCL branches), against
this leg's torch: planted faults fail at page and line, and today's blocks and snippets pass."""

from pathlib import Path
from unittest import SkipTest

import pytest
import torch

from torchsheet_harness.checks.static_check import check, findings
from torchsheet_harness.locations import page_files, place
from torchsheet_harness.pages.page import read_page
from torchsheet_harness.run.collect import page_sybil

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.torchsheet_inputs("docs", "snippets")  # what its verdict reads
CUDA_PAGE = """\
# Planted

```{code-block} python
:class: needs-cuda
>>> import torch
>>> torch.cuda.memory_alocated()
0
>>> torch.cuda.max_memory_allocated(devise=0)
0
```

```{code-block} python
:class: needs-cuda
import torch

with torch.cuda.amp.autocast(dtype=torch.float16):
    pass
```
"""


def outcomes(page: Path, monkeypatch: pytest.MonkeyPatch) -> dict[int, str | None]:
    """Each example's line and failure (None: skipped or passed), run in-process with no GPU."""
    monkeypatch.setattr("torchsheet_harness.run.hardware.cuda_device_count", lambda: 0)
    found = {}
    for example in page_sybil(page.parent).parse(page).examples():
        try:
            found[example.line] = example.region.evaluator(example) or None
        except SkipTest:
            found[example.line] = None
    return found


def test_planted_faults_in_a_cuda_block_fail_at_their_lines(tmp_path, monkeypatch) -> None:
    page = tmp_path / "planted.md"
    page.write_text(CUDA_PAGE)
    version = torch.__version__
    assert outcomes(page, monkeypatch) == {
        5: None,  # import torch
        6: f"{place(page, 6)}: `torch.cuda.memory_alocated` does not exist in torch {version}; "
        "did you mean `memory_allocated`?",
        8: f"{place(page, 8)}: `torch.cuda.max_memory_allocated(devise=0)`: "
        "got an unexpected keyword argument 'devise'",
        12: f"{place(page, 16)}: `torch.cuda.amp.autocast` is deprecated in torch {version}: "
        + torch.cuda.amp.autocast.__deprecated__,
    }
    page.write_text(CUDA_PAGE.replace("cuda\nimport", "cuda shows-deprecation\nimport"))
    assert outcomes(page, monkeypatch)[12] is None


def test_deprecated_call_in_a_snippets_nccl_branch_fails_before_launch(tmp_path, monkeypatch):
    script, page = tmp_path / "collectives_demo.py", tmp_path / "page.md"
    lines = (REPO / "snippets" / script.name).read_text().splitlines(keepends=True)
    line = lines.index('        dist.init_process_group("nccl", device_id=device)\n') + 2
    lines.insert(line - 1, "        torch.cuda.amp.autocast(dtype=torch.float16)\n")  # NCCL branch
    script.write_text("".join(lines))
    page.write_text(
        f"# Snippet\n\n```{{literalinclude}} {script.name}\n:class: needs-torchrun-2\n```\n"
    )
    failure = outcomes(page, monkeypatch)[3]  # fails statically: nothing is launched
    assert failure.startswith(f"{place(page, 3)}: ")
    assert f"\n{place(script, line)}: `torch.cuda.amp.autocast` is deprecated in torch" in failure


# GradScaler: only its __init__ is marked; reset_max_memory_allocated: its body warns.
DEPRECATED = "cuda.amp.GradScaler cuda.amp.custom_fwd distributed._all_gather_base"
DEPRECATED += " cuda.reset_max_memory_allocated"


@pytest.mark.parametrize("api", [f"torch.{name}" for name in DEPRECATED.split()])
def test_torchs_deprecated_apis_fail(api: str) -> None:
    [message] = check(f"import torch.distributed\n{api}\n", "docs/x.md", 1)
    assert message.startswith(f"docs/x.md:2: `{api}` is deprecated in torch {torch.__version__}: ")


def test_a_name_only_other_builds_have_is_left_unresolved_on_a_cpu_build() -> None:
    found = findings("import torch.distributed as dist\ndist.ProcessGroupNCCL\n", "docs/x.md", 10)
    assert found.problems == []
    if torch.version.cuda is None:
        assert [line for line, _ in found.unresolved] == [11]
        assert "left unresolved: no `ProcessGroupNCCL` in this CPU build" in found.unresolved[0][1]
    else:
        assert found.unresolved == [] and found.names == 2


def test_names_the_code_binds_itself_are_not_resolved() -> None:
    code = "import torch\nmodel = torch.nn.Linear(2, 2)\nmodel.cudaa()\ntorch = None\n"
    assert check(code, "docs/x.md", 1) == []  # `torch` is rebound: nothing is resolved
    assert check("def f(torch):\n    torch.nothing\n", "docs/x.md", 1) == []
    unbindable = "import torch\ntorch.cuda.max_memory_allocated(**{'devise': 0})\n"
    assert check(unbindable, "docs/x.md", 1) == []  # ** arguments: not bound


def test_every_gpu_block_and_snippet_of_today_passes() -> None:
    codes: dict[tuple[str, str, int], bool] = {}  # every GPU block's and every snippet's code
    for page in page_files(REPO / "docs"):
        for block in read_page(page).blocks:
            if block.included is not None and block.included.suffix == ".py":
                codes[block.code, str(block.included), 1] = False
            elif block.requirement.gpus and block.executed and not block.requirement.slurm:
                first = block.first_code_line
                codes[block.code, str(page), first] = block.shows_deprecation
    assert sum(path.endswith(".py") for _, path, _ in codes) >= 8, codes
    found = [findings(*code, shown) for code, shown in codes.items()]
    assert [message for f in found for _, message in f.problems] == []
    assert sum(f.names for f in found) > 500 and sum(f.bound for f in found) > 300
