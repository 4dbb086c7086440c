"""How often a launched block fails: runs every block that starts processes of its own, N times,
under CI's load (``pytest -n 2 --dist loadfile``, as a leg runs them), and writes per block the
runs, the failures and the median and worst time (``benchmarks/launch-repeat.md``, with the first
line of each failure). Launched: the ``torchrun`` and Slurm blocks, the scripts a page includes and
runs as ``python script.py``, the blocks that start a process themselves (``subprocess``,
``sys.executable``, a ``multiprocessing`` start, DataLoader workers), and the REPL paste tests.

    python benchmarks/launch_repeat.py --runs 20
    python benchmarks/launch_repeat.py --runs 20 --repls .nox/paste-repls/bin/python
    python benchmarks/launch_repeat.py --runs 20 --only docs/troubleshooting/data.md:15 --out x.md

Run it from the repository root in a venv with torch and the test extra (``nox -s docs-tests``'s).
Each repetition is one pytest run over all of them; nothing is retried."""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchsheet_harness.locations import page_files  # noqa: E402
from torchsheet_harness.pages.page import read_page  # noqa: E402

#: A block run in process that starts processes of its own.
STARTS_PROCESSES = re.compile(
    r"subprocess|sys\.executable|os\.system|multiprocessing|mp\.spawn|\.spawn\(|Process\(|"
    r"num_workers\s*=\s*[1-9]"
)
REPL_TESTS = "tests/harness/test_paste_repls.py"


def launched_blocks(docs: Path) -> dict[str, str]:
    """'docs/page.md:line' → its kind, for every block that starts processes."""
    found = {}
    for path in page_files(docs):
        for block in read_page(path).blocks:
            if not block.executed:
                continue
            requirement = block.requirement
            kind = (
                "slurm" if requirement.slurm
                else f"torchrun {requirement.torchrun}" if requirement.torchrun
                else "script" if block.included is not None
                else "starts processes" if STARTS_PROCESSES.search(block.code)
                else None
            )  # fmt: skip
            if kind and not requirement.gpus:
                found[f"{path.relative_to(ROOT).as_posix()}:{block.line}"] = kind
    return found


def chosen(blocks: dict[str, str], only: list[str]) -> dict[str, str]:
    """The blocks ``only`` names (a page names all of its own); all of them when it names none."""
    if not only:
        return blocks
    return {place: kind for place, kind in blocks.items()
            if any(place == name or place.startswith(f"{name}:") for name in only)}  # fmt: skip


def node_ids(blocks: dict[str, str]) -> list[str]:
    """The pytest ids of every example of those blocks (a page's blocks before them run first,
    as the plugin runs what a selected block needs)."""
    wanted = defaultdict(set)
    for place in blocks:
        page, line = place.rsplit(":", 1)
        wanted[page].add(int(line))
    ids = []
    for page, lines in wanted.items():
        for block in read_page(ROOT / page).blocks:
            if block.line in lines:
                first = block.line + (0 if block.launched or block.included else block.line_offset)
                ids += [f"{page}::line:{n},column:1" for n in _example_lines(block, first)]
    return ids


def _example_lines(block, first: int) -> list[int]:  # noqa: ANN001
    code = block.code
    if block.launched or block.included or not code.lstrip().startswith(">>>"):
        return [block.line]
    return [block.first_code_line + n for n, text in enumerate(code.splitlines())
            if text.startswith(">>> ")]  # fmt: skip


def run_once(python: str, args: list[str], junit: Path, env_extra: dict[str, str]) -> float:
    """One pytest run with ``args`` (2 workers, as CI); its wall seconds."""
    import os

    command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist",
               "loadfile", f"--junitxml={junit}", *args]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env={**os.environ, "CI": "true", **env_extra},
                          capture_output=True, text=True, timeout=3600)  # fmt: skip
    if not junit.exists():  # pytest stopped before running anything: say why, loudly
        raise SystemExit(f"{' '.join(command[:12])} ...: no results\n{done.stdout}{done.stderr}")
    return time.perf_counter() - start


def outcomes(junit: Path) -> dict[str, tuple[str, float, str]]:
    """Test id → (passed, failed or skipped, seconds, the failure's first line)."""
    found = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "")  # 'docs.troubleshooting.install.md' for a page
        if module.endswith(".md"):
            module = module.removesuffix(".md").replace(".", "/") + ".md"
        name = f"{module}::{case.get('name', '')}"
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        skipped = case.find("skipped") is not None
        state = "failed" if failure is not None else "skipped" if skipped else "passed"
        first = _why(failure) if failure is not None else ""
        found[name] = (state, float(case.get("time", 0)), first)
    return found


def _why(failure: ElementTree.Element) -> str:
    """A failure in one line: its message's first line and its text's last lines (where a block
    failing as another one's prerequisite says what that one printed)."""
    message = (failure.get("message") or "").splitlines()[:1]
    tail = [line.strip() for line in (failure.text or "").splitlines() if line.strip()][-6:]
    return " / ".join(message + tail)[:600]


def per_block(found: dict, blocks: dict[str, str], suffix: str) -> dict:  # noqa: ANN001
    """One run's results by block: failed if an example failed, its examples' seconds summed."""
    merged: dict[str, tuple[str, float, str]] = {}
    order = {"failed": 0, "passed": 1, "skipped": 2}
    for test, (state, seconds, first) in found.items():
        name = block_of(test, blocks) + suffix
        before = merged.get(name, ("skipped", 0.0, ""))
        worst = min(state, before[0], key=order.__getitem__)
        merged[name] = (worst, before[1] + seconds, before[2] or first)
    return merged


def block_of(test: str, blocks: dict[str, str]) -> str:
    """The block ('docs/page.md:line') a page example belongs to, or the test's own name."""
    match = re.search(r"(docs/[^:]*?\.md)::line:(\d+)", test)
    if not match:
        return test
    page, line = match[1], int(match[2])
    starts = sorted(int(p.rsplit(":", 1)[1]) for p in blocks if p.rsplit(":", 1)[0] == page)
    owner = max((start for start in starts if start <= line), default=line)
    return f"{page}:{owner}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "launch-repeat.md")
    parser.add_argument("--repls", help="a Python 3.13 with IPython (nox -s paste-repls's venv)")
    parser.add_argument("--only", action="append", default=[], metavar="PAGE[:LINE]",
                        help="only these launched blocks (a page, or a page:line; repeatable); "
                        f"the REPL tests then run only when named ({REPL_TESTS})")  # fmt: skip
    args = parser.parse_args()
    blocks = chosen(launched_blocks(ROOT / "docs"), args.only)
    repls = not args.only or REPL_TESTS in args.only
    if not blocks and not repls:
        raise SystemExit(f"--only {' '.join(args.only)}: no launched block or test matches")
    ids = node_ids(blocks)
    runs: defaultdict[str, list[tuple[str, float, str]]] = defaultdict(list)
    walls = []
    with tempfile.TemporaryDirectory() as folder:
        for index in range(args.runs):
            junit = Path(folder, f"pages-{index}.xml")
            pages = ["--torchsheet-results=", *ids, *([REPL_TESTS] if repls else [])]
            walls.append(run_once(sys.executable, pages, junit, {}))
            for name, result in per_block(outcomes(junit), blocks, "").items():
                runs[name].append(result)
            if args.repls and repls:
                junit = Path(folder, f"repls-{index}.xml")
                extra = {"TORCHSHEET_PASTE_REPLS": "1"}
                run_once(args.repls, ["--confcutdir=tests", REPL_TESTS], junit, extra)
                for name, result in per_block(outcomes(junit), blocks, " (3.13)").items():
                    runs[name].append(result)
            print(f"run {index + 1}/{args.runs}: {walls[-1]:.0f} s", flush=True)
    args.out.write_text(report(runs, blocks, walls, args.runs, args.only), encoding="utf-8")
    failed = sum(1 for results in runs.values() for state, _, _ in results if state == "failed")
    print(f"{len(runs)} blocks and tests, {failed} failed runs: {args.out}")
    return 1 if failed else 0


def report(runs, blocks: dict[str, str], walls: list[float], count: int, only=()) -> str:  # noqa: ANN001
    chosen_part = "".join(f" --only {name}" for name in only)
    lines = [
        "# Launched blocks, run repeatedly",
        "",
        f"{'The named blocks' if only else 'Each block that starts processes'}, run {count} times "
        f"by `python benchmarks/launch_repeat.py --runs {count}{chosen_part}` "
        f"(pytest -n 2 over all of them at once, as a CI leg "
        f"runs them; a run took {statistics.median(walls):.0f} s median, "
        f"{max(walls):.0f} s worst). A block's time is its examples' total in one run.",
        "",
        "| block | kind | runs | failures | median s | worst s |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    failures = []
    for name in sorted(runs):
        per_run = runs[name]
        ran = [r for r in per_run if r[0] != "skipped"]
        seconds = [r[1] for r in ran] or [0.0]
        failed = [r for r in ran if r[0] == "failed"]
        kind = blocks.get(name, "REPL paste" if "paste" in name else "test")
        lines.append(
            f"| `{name}` | {kind} | {len(ran)} | {len(failed)} | "
            f"{statistics.median(seconds):.1f} | {max(seconds):.1f} |"
        )
        failures += [f"- `{name}`: {r[2]}" for r in failed]
    lines += ["", "## Failures", "", *(failures or ["None."]), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
