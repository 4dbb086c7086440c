"""How often a gloo script aborts at exit, per ending and torch: the DDP page's teardown table.

The method of docs/distributed/ddp.md ("Shutting down cleanly"): 2 ranks under
``torchrun --standalone``, gloo on CPU, a DDP model trained for 5 steps, then one of the
three endings of the table; the same launch repeated, never retried. A launch counts as
aborted when torchrun fails after every rank printed its last line; any other failure is
counted apart (it is not the teardown abort). One JSON line per launch is appended to
``--out``, so a long measurement can be stopped and resumed; ``--summary`` prints the table::

    nice -n 10 python benchmarks/teardown_aborts.py --python /venv214/bin/python \
        --python /venv215/bin/python --runs destroy=160 --runs del-barrier=291 \
        --runs exit=100 --out /tmp/teardown.jsonl
    python benchmarks/teardown_aborts.py --summary --out /tmp/teardown.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TRAIN = """\
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(123)
model = DDP(torch.nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4) + rank, torch.randint(0, 2, (8,))
for step in range(5):
    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
print(f"rank {rank}: last line", flush=True)
"""
#: The table's rows: how the script ends after its last line.
ENDINGS = {
    "destroy": "dist.destroy_process_group()\n",
    "del-barrier": "del model\ndist.barrier()\ndist.destroy_process_group()\n",
    "exit": "dist.barrier()\ndist.destroy_process_group()\nsys.stdout.flush()\nos._exit(0)\n",
}
LAUNCH_TIMEOUT_SECONDS = 180


def launch(python: str, ending: str) -> dict[str, object]:
    """One torchrun launch of the script with ``ending``: how it ended, per rank."""
    with tempfile.TemporaryDirectory(prefix="teardown-") as workdir:
        script = Path(workdir) / "block.py"
        script.write_text(TRAIN + ENDINGS[ending])
        logs = Path(workdir) / "logs"
        argv = [python, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
        argv += ["--log-dir", str(logs), "--redirects", "3", str(script)]
        env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
        env.update(CUDA_VISIBLE_DEVICES="", PYTHONUNBUFFERED="1")
        start = time.monotonic()
        proc = subprocess.Popen(
            argv, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            agent, _ = proc.communicate(timeout=LAUNCH_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            agent, _ = proc.communicate()
        stdout = {log.parent.name: log.read_text() for log in logs.glob("*/attempt_*/*/stdout.log")}
        stderr = {log.parent.name: log.read_text() for log in logs.glob("*/attempt_*/*/stderr.log")}
    printed = sorted(rank for rank, text in stdout.items() if "last line" in text)
    return {
        "python": python,
        "ending": ending,
        "returncode": proc.returncode,
        "ranks_printed": len(printed),
        "seconds": round(time.monotonic() - start, 1),
        "failure": None if proc.returncode == 0 else agent[-3000:] + json.dumps(stderr)[-3000:],
    }


def verdict(run: dict[str, object]) -> str:
    """'ok', 'aborted' (failed after both ranks' last line) or 'other failure'."""
    if run["returncode"] == 0:
        return "ok"
    return "aborted" if run["ranks_printed"] == 2 else "other failure"


def done(out: Path) -> Counter:
    runs = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return Counter((run["python"], run["ending"]) for run in runs)


def measure(pythons: list[str], targets: dict[str, int], out: Path, workers: int) -> None:
    """Launch until every (python, ending) has its target count, the rows advancing together in
    proportion to their targets and the pythons interleaved, so that a measurement stopped
    early has every row measured; resumes from what ``out`` holds."""
    counts = done(out)
    todo = sorted(
        (index / target, list(targets).index(ending), py, ending)
        for ending, target in targets.items()
        for py in pythons
        for index in range(counts[(py, ending)], target)
    )
    with ThreadPoolExecutor(workers) as pool, out.open("a") as sink:
        for run in pool.map(lambda job: launch(job[2], job[3]), todo):
            sink.write(json.dumps(run) + "\n")
            sink.flush()


def summary(out: Path) -> str:
    runs = [json.loads(line) for line in out.read_text().splitlines()]
    table = Counter((run["python"], run["ending"], verdict(run)) for run in runs)
    lines = []
    for python in dict.fromkeys(run["python"] for run in runs):
        for ending in ENDINGS:
            n = sum(table[(python, ending, v)] for v in ("ok", "aborted", "other failure"))
            if n:
                aborted = table[(python, ending, "aborted")]
                other = table[(python, ending, "other failure")]
                lines.append(f"{python} {ending}: {aborted} of {n} aborted, {other} other failures")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", default=[], help="a venv's python")
    parser.add_argument("--runs", action="append", default=[], help="ENDING=COUNT")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args()
    if not args.summary:
        targets = {ending: int(count) for ending, count in (r.split("=") for r in args.runs)}
        measure(args.python, targets, args.out, args.workers)
    print(summary(args.out))


if __name__ == "__main__":
    main()
