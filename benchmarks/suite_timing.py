"""Where the suite's wall time goes: env setup, collection, blocks, launches, docs build.

Run it with ``nox -s bench`` (which times the environment setup itself and then calls this) or
directly inside an environment that has the test and docs extras::

    python benchmarks/suite_timing.py [--workers 2]

It is also a pytest plugin (``-p suite_timing``) that sums test durations per category.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MULTI_PROCESS = {"distributed", "slurm"}


# --- pytest plugin part ------------------------------------------------------------------------
_durations: dict[str, float] = defaultdict(float)
_counts: dict[str, int] = defaultdict(int)


def _category(report) -> str:
    if not report.nodeid.startswith("docs/"):
        return "harness tests (tests/)"
    if MULTI_PROCESS & set(report.keywords):
        return "multi-process blocks (torchrun, Slurm)"
    return "single-process blocks"


def pytest_runtest_logreport(report) -> None:
    # setup + call + teardown: a page's setup and a launch's start-up are real costs.
    _durations[_category(report)] += report.duration
    if report.when == "call" or (report.when == "setup" and report.skipped):
        _counts[_category(report)] += 1


def pytest_sessionfinish(session) -> None:
    if hasattr(session.config, "workerinput"):
        return  # xdist workers: the controller receives every report
    target = os.environ.get("SUITE_TIMING_JSON")
    if target:
        Path(target).write_text(json.dumps({"durations": _durations, "counts": _counts}))


# --- driver part -------------------------------------------------------------------------------
def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    start = time.perf_counter()
    rc = subprocess.call(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, rc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default=os.environ.get("TORCHSHEET_WORKERS", "2"))
    parser.add_argument("--env-setup-seconds", type=float, default=None)
    args = parser.parse_args()

    rows: list[tuple[str, str]] = []
    if args.env_setup_seconds is not None:
        rows.append(("env setup (fresh venv, pip install)", f"{args.env_setup_seconds:7.1f} s"))

    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    seconds, rc = timed([*pytest, "--collect-only", "-q"])
    rows.append(("collection (pytest --collect-only, incl. start-up)", f"{seconds:7.1f} s"))

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "timing.json"
        env = dict(os.environ, SUITE_TIMING_JSON=str(report))
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(REPO / "benchmarks"), env.get("PYTHONPATH")])
        )
        wall, rc = timed(
            [*pytest, "-p", "suite_timing", "-n", args.workers, "--dist", "loadfile", "-q"], env
        )
        data = (
            json.loads(report.read_text()) if report.exists() else {"durations": {}, "counts": {}}
        )
        rows.append(
            (f"whole test run (pytest -n {args.workers}), wall", f"{wall:7.1f} s  (exit {rc})")
        )
        for category, total in sorted(data["durations"].items()):
            count = data["counts"].get(category, 0)
            rows.append((f"  {category}, summed over workers", f"{total:7.1f} s  ({count} items)"))

        seconds, docs_rc = timed(
            [
                sys.executable,
                "-m",
                "sphinx",
                "-W",
                "--keep-going",
                "-q",
                "-b",
                "html",
                "docs",
                str(Path(tmp) / "html"),
            ]
        )
        rows.append(
            ("docs build (sphinx -W, fresh output dir)", f"{seconds:7.1f} s  (exit {docs_rc})")
        )

    width = max(len(name) for name, _ in rows)
    print("\ntorchsheet suite timing")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    return rc or docs_rc


if __name__ == "__main__":
    raise SystemExit(main())
