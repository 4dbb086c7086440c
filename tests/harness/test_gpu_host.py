"""GPU-host mode: a CPU torchrun block that leans on the machine's default device fails with what
a GPU host would do, at its page line; one that names its backend and device passes. A block run
at the page's prompt whose output holds only without a GPU (torch's own "CUDA is not available"
warning shown, a device picked from is_available()) fails at its line too, unless it declares
`needs-no-gpu` or says with '% gpu-host:' why it holds on both. One run in the mode over a page
per pattern, the right pages and the misplaced declarations; a run without the mode, side by
side with it, shows the wrong pages pass there."""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from planted import run_pytest, write_project

from torchsheet_harness.run import gpu_host
from torchsheet_harness.run.torchrun import launch_env

NCCL_ONLY = "on a machine with a GPU this block would create an NCCL-only group"
CUDA_MESH = "fully_shard without mesh= makes its default mesh on the machine's accelerator"


def page(title: str, code: str, output: str | None = None) -> str:
    """A page: its title on line 1, one two-rank torchrun block from line 3 (code on line 5)."""
    text = f"# {title}\n\n```{{code-block}} python\n:class: needs-torchrun-2\n{code}```\n"
    if output is not None:
        text += f"\n```{{code-block}} text\n:class: output\n{output}```\n"
    return text


PAGES = {
    "bare_init.md": page(
        "Bare init",
        "import os\n\nimport torch.distributed as dist\n\ndist.init_process_group()\nos._exit(0)\n",
    ),
    "mesh_for_gloo.md": page(
        "Mesh for gloo",
        "import os\n\nfrom torch.distributed.device_mesh import init_device_mesh\n\n"
        'mesh = init_device_mesh("cpu", (2,))\nos._exit(0)\n',
    ),
    "shard_no_mesh.md": page(
        "Shard without mesh",
        "import os\n\nimport torch\nimport torch.distributed as dist\n"
        "from torch.distributed.fsdp import fully_shard\n\n"
        'dist.init_process_group("gloo")\nmodel = torch.nn.Linear(4, 4)\n'
        "fully_shard(model)\nos._exit(0)\n",
    ),
    # snippets/dcp_reshard.py before the fix: NCCL only when every rank has a GPU, else gloo,
    # and then a shard without a mesh (rank 1 of a 1-GPU host: "invalid device ordinal").
    "fallback.md": page(
        "Fallback to gloo",
        "import os\n\nimport torch\nimport torch.distributed as dist\n"
        "from torch.distributed.fsdp import fully_shard\n\n"
        'use_nccl = torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"])\n'
        'dist.init_process_group("nccl" if use_nccl else "gloo")\n'
        "fully_shard(torch.nn.Linear(4, 4))\nos._exit(0)\n",
    ),
    "shown_on_purpose.md": "% gpu-host: shows the default group on purpose\n"
    + page(
        "The default group, shown",
        "import os\n\nimport torch.distributed as dist\n\n"
        # The barrier: a rank that exits while the other still connects its gloo mesh fails
        # that rank with "Connection closed by peer" (seen once in a CI run).
        "dist.init_process_group()\nprint(dist.get_backend())\ndist.barrier()\nos._exit(0)\n",
        "undefined\nundefined\n",
    ).replace("# The default group, shown\n\n", ""),
    "named.md": page(
        "Named backend and device",
        "import os\n\nimport torch\nimport torch.distributed as dist\n"
        "from torch.distributed.device_mesh import init_device_mesh\n"
        "from torch.distributed.fsdp import fully_shard\n\n"
        'dist.init_process_group("gloo")\nmesh = init_device_mesh("cpu", (2,))\n'
        "model = torch.nn.Linear(4, 4)\nfully_shard(model, mesh=mesh)\n"
        "print(dist.get_backend(), model(torch.ones(1, 4)).shape)\n"
        "dist.barrier()\nos._exit(0)\n",
        "gloo torch.Size([1, 4])\ngloo torch.Size([1, 4])\n",
    ),
}
PAGES["plain.md"] = "# Plain\n\n% gpu-host: a reason\n```python\nx = 1\n```\n"
#: A block showing what torch warns without a GPU (install.md's autocast entry before the fix).
AUTOCAST = (
    ">>> import warnings\n>>> import torch\n"
    ">>> with warnings.catch_warnings(record=True) as caught:\n"
    '...     warnings.simplefilter("always")\n...     with torch.autocast("cuda"):\n'
    "...         pass\n...\n>>> [str(w.message)[:24] for w in caught]\n"
    "['CUDA is not available or']\n"
)
#: The fallback idiom: it creates its tensor on CUDA where there is one.
FALLBACK = (
    ">>> import torch\n"
    '>>> device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
    ">>> torch.ones(2, device=device).device.type == device.type\nTrue\n"
)
PAGES["autocast.md"] = f"# Autocast\n\n```python\n{AUTOCAST}```\n"
PAGES["autocast_declared.md"] = (
    f"# Declared\n\n```{{code-block}} python\n:class: needs-no-gpu\n{AUTOCAST}```\n"
)
PAGES["fallback_idiom.md"] = f"# Fallback\n\n```python\n{FALLBACK}```\n"
PAGES["fallback_exempt.md"] = (
    f"# Exempt\n\n% gpu-host: runs on any device\n```python\n{FALLBACK}```\n"
)
PAGES["no_gpu_launched.md"] = page("Launched", "pass\n").replace(
    "needs-torchrun-2", "needs-torchrun-2 needs-no-gpu"
)
PAGES["no_reason.md"] = page("No reason", "pass\n").replace("```{", "% gpu-host:\n```{")
#: page: what its run prints (a wrong page: its block's line, then the line leaning on a default)
WRONG = {"bare_init.md": (9, NCCL_ONLY), "mesh_for_gloo.md": (9, NCCL_ONLY)}
WRONG |= {"shard_no_mesh.md": (13, CUDA_MESH), "fallback.md": (13, CUDA_MESH)}
REPORTS = {
    **{
        page: f"*docs/{page}:3: GPU-host check at docs/{page}:{line}: *{says}*"
        for page, (line, says) in WRONG.items()
    },
    "named.md": "PASSED docs/named.md*",
    # The exempted block runs as without the mode, its output compared: once, in the same run.
    "shown_on_purpose.md": "PASSED docs/shown_on_purpose.md*",
    "plain.md": "PASSED docs/plain.md*",
    "autocast.md": "*(it asked: torch.cuda.is_available() (at docs/autocast.md:8)): its output "
    "holds only where no GPU is visible*needs-no-gpu*",
    "autocast_declared.md": "PASSED docs/autocast_declared.md*",
    "fallback_idiom.md": "*takes a CUDA path*(torch.cuda.is_available() (at docs/fallback_idiom."
    "md:5); it would initialise CUDA (at docs/fallback_idiom.md:6))*% gpu-host: <reason>*",
    "fallback_exempt.md": "PASSED docs/fallback_exempt.md*",
    "no_gpu_launched.md": "*docs/no_gpu_launched.md:3: needs-no-gpu goes on a block run at the "
    "page's prompt alone*",
    "no_reason.md": "*docs/no_reason.md:3: write '% gpu-host: <why it shows the default device>'*",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("gpu-host"), PAGES).parent


@pytest.fixture(scope="module")
def runs(project: Path) -> list[pytest.RunResult]:
    in_mode = ("-n", "0", "--continue-on-collection-errors", "--torchsheet-gpu-host")
    passing = ["mesh_for_gloo.md", "shard_no_mesh.md", "fallback.md", "shown_on_purpose.md"]
    passing += ["autocast.md", "fallback_idiom.md"]
    without = ("-n", "0", *(f"docs/{page}" for page in passing))
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda args: run_pytest(project, *args), (in_mode, without)))


@pytest.mark.parametrize("page", REPORTS)
def test_each_pattern_fails_at_its_line_and_the_named_page_passes(runs, page: str) -> None:
    runs[0].stdout.fnmatch_lines([REPORTS[page]])


def test_nothing_else_fails(runs) -> None:
    runs[0].assert_outcomes(passed=15, failed=6, errors=2)


def test_without_the_mode_the_wrong_pages_pass_on_cpu(runs) -> None:
    runs[1].assert_outcomes(passed=11)


def test_launch_env_puts_the_check_first_only_for_cpu_blocks(monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    monkeypatch.setenv(gpu_host.GPU_HOST_ENV, "1")
    cpu = launch_env(0)
    assert cpu["PYTHONPATH"].split(":") == [str(gpu_host.SITE_DIR), "/elsewhere"]
    assert cpu["CUDA_VISIBLE_DEVICES"] == ""
    assert launch_env(2)["PYTHONPATH"] == "/elsewhere"  # a GPU block runs as declared
    monkeypatch.delenv(gpu_host.GPU_HOST_ENV)
    assert launch_env(0)["PYTHONPATH"] == "/elsewhere"
    monkeypatch.setenv(gpu_host.GPUS_VISIBLE_ENV, "1")  # the runner's devices kept
    assert launch_env(0)["CUDA_VISIBLE_DEVICES"] == "2,3"


def test_a_finding_names_the_snippet_line_when_the_rank_ran_a_snippet() -> None:
    stderr = f"[rank1]: sitecustomize.GpuHostDefault: {gpu_host.MARK} [at train.py:57]: says"
    found = gpu_host.finding([stderr], lambda name, line: f"snippets/{name}:{line}")
    assert found == "GPU-host check at snippets/train.py:57: says"
    assert gpu_host.finding(["an unrelated failure"], lambda name, line: "") is None
