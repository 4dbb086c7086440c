"""The DDP snippets' distributed evaluation counts each sample once, on 2 and 3 ranks (a
``DistributedSampler`` pads each rank's share by repeating samples): with a model that always
predicts class 0, the accuracy is the true one and the ranks see the dataset once."""

import textwrap
from pathlib import Path

import pytest

from torchsheet_harness.run.torchrun import torchrun

pytestmark = pytest.mark.torchsheet_inputs("snippets")

SNIPPETS = Path(__file__).resolve().parents[2] / "snippets"

CHECK = textwrap.dedent(
    """
    import importlib.util
    import os
    import sys

    import torch
    import torch.distributed as dist


    class AlwaysClass0(torch.nn.Module):
        def forward(self, x):
            return torch.tensor([1.0, 0.0]).expand(len(x), 2)


    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    for name in ("ddp_torchrun", "ddp_spawn"):
        path = os.path.join(sys.argv[1], f"{name}.py")
        spec = importlib.util.spec_from_file_location(name, path)
        snippet = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(snippet)
        _, eval_loaders = snippet.prepare_dataset()
        for loader, (correct, total) in zip(eval_loaders, [(3, 5), (1, 2)]):
            mine = [row.tolist() for features, _ in loader for row in features]
            everyone = [None] * world_size
            dist.all_gather_object(everyone, mine)
            seen = sorted(row for rows in everyone for row in rows)
            full = getattr(loader.dataset, "dataset", loader.dataset)  # under a Subset or not
            dataset = sorted(row.tolist() for row in full.features)
            assert seen == dataset, f"{name}: evaluated {seen}, dataset {dataset}"
            accuracy = snippet.compute_accuracy(AlwaysClass0(), loader, torch.device("cpu"))
            wrong = f"{name}: accuracy {accuracy}, not {correct}/{total}"
            assert abs(accuracy - correct / total) < 1e-6, wrong
            if rank == 0:
                print(f"{name}: {len(seen)} samples, accuracy {accuracy:.2f}")

    dist.barrier()
    dist.destroy_process_group()
    sys.stdout.flush()
    os._exit(0)
    """
)


@pytest.mark.distributed
@pytest.mark.parametrize("ranks", [2, 3])
def test_each_sample_counted_once(tmp_path: Path, ranks: int) -> None:
    script = tmp_path / "check_eval.py"
    script.write_text(CHECK)
    launch = torchrun(script, ranks, args=[str(SNIPPETS)], timeout=120)
    assert launch.ok, launch.describe()
    assert launch.rank_stdout[0] == (
        "ddp_torchrun: 5 samples, accuracy 0.60\n"
        "ddp_torchrun: 2 samples, accuracy 0.50\n"
        "ddp_spawn: 5 samples, accuracy 0.60\n"
        "ddp_spawn: 2 samples, accuracy 0.50\n"
    )
