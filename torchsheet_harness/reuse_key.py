"""What a recorded pass depends on, as one digest of what goes in (sources, included files,
harness, environment), like jupyter-cache's keys: a page's, or a sheet-side test file's."""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from pathlib import Path

from .locations import display_path
from .pages.model import Page

HARNESS = Path(__file__).resolve().parent


def digest_of(parts: Iterable[tuple[str, bytes]]) -> str:
    """sha256 over named parts, in the order given."""
    digest = hashlib.sha256()
    for name, content in parts:
        digest.update(name.encode() + b"\0" + content + b"\0")
    return digest.hexdigest()


def _files(paths: Iterable[Path], rootdir: Path) -> list[tuple[str, bytes]]:
    return [
        (display_path(path, rootdir), path.read_bytes() if path.is_file() else b"(none)")
        for path in sorted(set(paths))
    ]


def harness_digest(rootdir: Path, harness: Path = HARNESS) -> str:
    """sha256 over the harness package's ``*.py`` and ``rootdir/conftest.py``."""
    return digest_of(_files([*harness.rglob("*.py"), rootdir / "conftest.py"], rootdir))


def page_key(page: Page, rootdir: Path, harness: str, environment: str) -> str:
    """The digest of what ``page``'s pass depends on (``harness``, ``environment``: digests)."""
    included = [block.included for block in page.blocks if block.included is not None]
    parts = [("page", page.text.encode()), *_files(included, rootdir)]
    return digest_of([*parts, ("harness", harness.encode()), ("env", environment.encode())])


def test_file_key(test_file: Path, rootdir: Path, harness: str, environment: str) -> str:
    """The digest of what a sheet-side test file's pass depends on: its source, the test
    support, and the paths its ``torchsheet_inputs`` marker declares (a folder: its files)."""
    paths = [test_file, *(rootdir / "tests" / "support").glob("*.py")]
    for name in declared_inputs(test_file):
        path = rootdir / name
        paths += sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    parts = _files(paths, rootdir)
    return digest_of([*parts, ("harness", harness.encode()), ("env", environment.encode())])


def declared_inputs(test_file: Path) -> list[str]:
    """The paths a test file's ``pytestmark = pytest.mark.torchsheet_inputs(...)`` declares, read
    from its source (under pytest-xdist the controller collects nothing)."""
    try:
        tree = ast.parse(test_file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "torchsheet_inputs":
            return [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
    return []
