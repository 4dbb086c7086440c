"""The real site as its tests see it: built once per session with ``sphinx-build -W`` (or taken
from ``$TORCHSHEET_HTML``), served on localhost, its code blocks and the copy button's settings
(what they yield: :mod:`torchsheet_harness.pages.copy_text`)."""

import ast
import html
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from torchsheet_harness.locations import page_files
from torchsheet_harness.pages.copy_text import CopySettings

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def build_site(base: Path) -> Path:
    """The site for this test session: $TORCHSHEET_HTML, or docs/ built once under ``base``.

    ``base`` is pytest's base temporary folder. pytest-xdist workers share its parent, so the
    site is built there once under a lock and the others wait; a failed build is recorded next
    to it and reported by every test that needs the site.
    """
    if os.environ.get("TORCHSHEET_HTML"):
        return Path(os.environ["TORCHSHEET_HTML"]).resolve()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out, failure = shared / "torchsheet-html", shared / "torchsheet-html.failed"
    from filelock import FileLock  # (here: nox -s paste-repls, which imports this, has none)

    with FileLock(shared / "torchsheet-html.lock"):
        if not (out / "index.html").is_file() and not failure.is_file():
            command = [
                sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                "-d", str(shared / "torchsheet-doctrees"),
                # No results file (the option wins over $TORCHSHEET_RESULTS): the site's tests
                # must not depend on the last test run.
                "-D", f"torchsheet_results_file={shared / 'no-results.json'}", str(DOCS), str(out),
            ]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                failure.write_text(f"sphinx-build -W failed:\n{done.stderr}{done.stdout}")
    if failure.is_file():
        raise RuntimeError(failure.read_text(encoding="utf-8"))
    return out


@contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 on a free port, in a thread; yields the base URL."""

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, directory=str(directory), **kwargs)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def wait_for(driver: object, script: str, what: str, seconds: float = 20) -> object:
    """Poll ``script`` (a JS expression) every 50 ms (not 500) until it is truthy; its value."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, seconds, poll_frequency=0.05)
    try:
        return wait.until(lambda d: d.execute_script(f"return {script}"))
    except TimeoutException:
        raise AssertionError(f"timed out after {seconds}s waiting for {what}") from None


def pages(site: Path) -> list[Path]:
    """The HTML of every page built from docs/*.md (not search or index pages Sphinx adds)."""
    return [site / md.relative_to(DOCS).with_suffix(".html") for md in page_files(DOCS)]


_BLOCK = re.compile(
    r'<div class="(?P<classes>[^"]*\bhighlight-(?P<language>[\w+-]+)\b[^"]*)">'
    r'<div class="highlight"><pre>(?P<body>.*?)</pre>',
    re.DOTALL,
)


@dataclass(frozen=True)
class HtmlBlock:
    """One highlighted code block as a browser shows it."""

    classes: frozenset[str]
    language: str
    text: str  # the <pre>'s text, as innerText gives it to the copy button

    @property
    def is_output(self) -> bool:
        return "output" in self.classes

    @property
    def needs(self) -> str:
        return " ".join(sorted(name for name in self.classes if name.startswith("needs-")))


def html_blocks(page: Path) -> list[HtmlBlock]:
    """Every highlighted code block of a built page, in page order (not the quick reference's
    excerpts: ``ts-qr-code``)."""
    found = _BLOCK.finditer(page.read_text(encoding="utf-8"))
    return [
        HtmlBlock(
            frozenset(match["classes"].split()), match["language"], _strip_tags(match["body"])
        )
        for match in found
        if "ts-qr-code" not in match["classes"]
    ]


def _strip_tags(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def copy_settings(site: Path) -> CopySettings:
    """The copy button's settings, read from its call in the built ``_static/copybutton.js``
    (which must hold torchsheet's pasteReady)."""
    source = (site / "_static" / "copybutton.js").read_text(encoding="utf-8")
    assert "function pasteReady(" in source, "copybutton.js lacks torchsheet's pasteReady"
    args = re.search(r"return formatCopyText\(text, (.*)\)", source)[1]
    return CopySettings(*ast.literal_eval(args.replace("true", "True").replace("false", "False")))
