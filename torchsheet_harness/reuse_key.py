"""What a page's recorded pass depends on, and whether a run may reuse it.

A page's record is reused (``--torchsheet-reuse``, :mod:`.pytest_plugin.reuse`) only when all
of these are as they were when it was recorded (its entry's ``reuse`` field, written by a run
that ran the page whole):

- the page source (the entry's ``sha256``);
- every file it includes (``{literalinclude}`` snippets), by sha256;
- the harness's code: every ``*.py`` of the ``torchsheet_harness`` package that ran and the
  project's ``conftest.py``;
- the environment: :func:`..environment.fingerprint` (torch build, Python, device, every
  installed distribution's version).

And the record itself must be a pass: every block the page runs recorded, none failed or in
error, no collection error.

A sheet-side test file's record (:mod:`.pytest_plugin.file_reads`) is reused on the same terms:
its own source and the test helpers (every ``tests/support/*.py``), every project
file it read (recorded by that run), the harness and the environment, in a passed record. No
pytest and no torch in this module.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sybil import Document

from .pages.blocks import lex_blocks
from .results import PageEntry, page_digest

HARNESS = Path(__file__).resolve().parent


def harness_digest(rootdir: Path, harness: Path = HARNESS) -> str:
    """sha256 over the harness package's ``*.py`` (paths and bytes) and ``rootdir/conftest.py``."""
    digest = hashlib.sha256()
    files = [(f"harness/{p.relative_to(harness).as_posix()}", p) for p in harness.rglob("*.py")]
    files.append(("conftest.py", rootdir / "conftest.py"))
    for name, path in sorted(files):
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"(none)")
        digest.update(b"\0")
    return digest.hexdigest()


def page_blocks(page: Path) -> tuple[list[int], list[Path]]:
    """The lines of the blocks the tests run on ``page``, and the files it literal-includes."""
    document = Document(page.read_text(encoding="utf-8"), str(page))
    blocks = lex_blocks(document)
    includes = [
        (page.parent / block.argument).resolve()
        for block in blocks
        if block.kind == "literalinclude"
    ]
    return [block.line for block in blocks if block.runs], includes


def included_digests(includes: list[Path], rootdir: Path) -> dict[str, str | None]:
    """Each included file (by its path under ``rootdir``) → sha256; None for a missing one."""
    found = {}
    for path in includes:
        try:
            name = path.relative_to(rootdir.resolve()).as_posix()
        except ValueError:
            name = path.as_posix()
        found[name] = page_digest(path) if path.is_file() else None
    return dict(sorted(found.items()))


def reuse_inputs(page: Path, rootdir: Path, harness: str, environment: str) -> dict[str, Any]:
    """The entry's ``reuse`` field for ``page`` now (``harness``, ``environment``: digests)."""
    _, includes = page_blocks(page)
    return {
        "includes": included_digests(includes, rootdir),
        "harness": harness,
        "environment": environment,
    }


def why_rerun(entry: PageEntry | None, page: Path, now: dict[str, Any]) -> str | None:
    """Why ``page`` must run again rather than reuse ``entry``; None: it may be reused.

    ``now``: :func:`reuse_inputs` of the page as it is.
    """
    if entry is None:
        return "no record of it"
    recorded = entry.get("reuse")
    if recorded is None:
        return "its record is not of a whole-page run"
    if entry.get("sha256") != page_digest(page):
        return "the page changed"
    blocks = entry.get("blocks", {})
    bad = [line for line, block in blocks.items() if block["outcome"] in ("failed", "errors")]
    if bad or entry.get("errors"):
        where = f"block at line {bad[0]}" if bad else "page's collection"
        return f"its record failed (the {where})"
    lines, _ = page_blocks(page)
    if missing := [line for line in lines if str(line) not in blocks]:
        return f"its record lacks the block at line {missing[0]}"
    if recorded.get("includes") != now["includes"]:
        old, new = recorded.get("includes") or {}, now["includes"]
        changed = sorted(name for name in set(old) | set(new) if old.get(name) != new.get(name))
        return f"an included file changed ({', '.join(changed)})"
    if recorded.get("harness") != now["harness"]:
        return "the harness's code changed (torchsheet_harness/**/*.py or conftest.py)"
    if recorded.get("environment") != now["environment"]:
        return "the environment changed (torch build, Python or installed versions)"
    return None


def file_digests(names: list[str] | set[str], rootdir: Path) -> dict[str, str | None]:
    """Each file (by its path under ``rootdir``) → sha256; None for a missing one."""
    return included_digests([rootdir / name for name in names], rootdir)


def test_file_inputs(
    name: str, rootdir: Path, harness: str, environment: str, reads: set[str] | list[str]
) -> dict[str, Any]:
    """A sheet test file's ``reuse`` field: its source and helpers, what it read, and the rest."""
    support = (rootdir / "tests" / "support").glob("*.py")
    helpers = [path.relative_to(rootdir).as_posix() for path in support]
    sources = {name, *helpers}
    return {
        "sources": file_digests(sources, rootdir),
        "reads": file_digests(set(reads) - sources, rootdir),
        "harness": harness,
        "environment": environment,
    }


def why_rerun_test_file(
    entry: dict[str, Any] | None, name: str, rootdir: Path, harness: str, environment: str
) -> str | None:
    """Why the sheet test file ``name`` must run again rather than reuse ``entry``; None: not."""
    if entry is None:
        return "no record of it"
    if entry.get("outcome") != "passed" or "reuse" not in entry:
        return "its record failed"
    recorded = entry["reuse"]
    now = test_file_inputs(name, rootdir, harness, environment, recorded.get("reads", {}))
    for part, what in (("sources", "its source or a test helper"), ("reads", "a file it read")):
        old, new = recorded.get(part) or {}, now[part]
        if changed := sorted(key for key in set(old) | set(new) if old.get(key) != new.get(key)):
            return f"{what} changed ({', '.join(changed)})"
    if recorded.get("harness") != harness:
        return "the harness's code changed (torchsheet_harness/**/*.py or conftest.py)"
    if recorded.get("environment") != environment:
        return "the environment changed (torch build, Python or installed versions)"
    return None
