"""The built site: warning-free, nothing fetched from third parties, badges from declarations.

The site is built once per session with ``sphinx-build -W`` (tests/built_site.py);
the small Sphinx projects below check the extension's behaviour on pages written for the test.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from built_site import build_site, html_blocks, pages

from torchsheet_harness.pages.requirements import parse_classes
from torchsheet_harness.results import page_digest, write_results
from torchsheet_harness.sphinx_ext.status import status_of

EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
FETCHING_TAG = re.compile(
    r"<(?P<tag>script|link|img|iframe|source|audio|video|embed|object|track|image|use|input)\b"
    r"(?P<attrs>[^>]*)>",
    re.IGNORECASE,
)
FETCHING_ATTR = re.compile(
    r"\b(?P<attr>src|href|xlink:href|data|srcset|poster)\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)')",
    re.IGNORECASE,
)
CSS_URL = re.compile(r"url\(\s*['\"]?(?P<url>[^'\")\s]+)|@import\s+['\"](?P<imp>[^'\"]+)")
BADGE = re.compile(
    r'<div class="ts-requirement (?P<kinds>[^"]*)" role="note"><span class="ts-badge" '
    r'title="(?P<title>[^"]*)">(?P<label>[^<]*)</span><span class="ts-how">(?P<how>.*?)</span>'
    r'</div><div class="(?P<classes>[^"]*)">',
    re.DOTALL,
)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(tmp_path_factory.getbasetemp())


def test_site_builds_without_warnings(site: Path) -> None:
    # build_site runs sphinx-build -W and raises with the warnings when there is any.
    assert (site / "index.html").is_file()
    assert (site / "searchindex.js").is_file(), "the offline search needs searchindex.js"


def external_fetches(site: Path) -> list[str]:
    """'file: tag attr=url' for every URL outside the site that a browser would fetch."""
    found = []
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(site)
        for tag in FETCHING_TAG.finditer(text):
            for attr in FETCHING_ATTR.finditer(tag["attrs"]):
                for url in (attr["dq"] or attr["sq"] or "").split(","):
                    if EXTERNAL.match(url.strip()):
                        found.append(f"{name}: <{tag['tag']} {attr['attr']}={url}>")
        for style in re.findall(r"<style.*?</style>|style=\"[^\"]*\"", text, re.DOTALL):
            found += [f"{name}: css {u}" for u in _css_urls(style)]
    for css in sorted(site.rglob("*.css")):
        found += [f"{css.relative_to(site)}: {u}" for u in _css_urls(css.read_text("utf-8"))]
    return found


def _css_urls(css: str) -> list[str]:
    urls = (m["url"] or m["imp"] for m in CSS_URL.finditer(css))
    return [url for url in urls if EXTERNAL.match(url)]


def test_no_third_party_requests(site: Path) -> None:
    assert external_fetches(site) == []


def test_the_external_url_check_finds_what_it_should(tmp_path: Path) -> None:
    (tmp_path / "_static").mkdir()
    (tmp_path / "page.html").write_text(
        '<link rel="stylesheet" href="https://fonts.example.com/x.css">'
        '<script src="//cdn.example.com/a.js"></script><img src="_static/ok.png">'
        '<a href="https://pytorch.org/docs">docs</a>'
    )
    (tmp_path / "_static" / "s.css").write_text(
        '@font-face { src: url("https://fonts.example.com/f.woff2") } .a { background: url(x.png) }'
    )
    assert len(external_fetches(tmp_path)) == 3


def test_every_page_has_a_title_a_purpose_and_a_status_line(site: Path) -> None:
    problems = []
    for page in pages(site):
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(site)
        if len(re.findall(r"<h1\b", text)) != 1:
            problems.append(f"{name}: not exactly one title")
        if '<meta name="description"' not in text:
            problems.append(f"{name}: no purpose sentence (meta description)")
        if text.count('class="ts-status ') != 1:
            problems.append(f"{name}: no status line")
    assert problems == []


def test_every_requirement_declaration_shows_as_a_badge(site: Path) -> None:
    declared = badged = 0
    labels = set()
    for page in pages(site):
        text = page.read_text(encoding="utf-8")
        for block in html_blocks(page):
            if block.needs and "ts-not-run" not in block.classes:
                declared += 1
        for badge in BADGE.finditer(text):
            if "ts-not-run" in badge["kinds"]:
                continue
            badged += 1
            needs = " ".join(c for c in badge["classes"].split() if c.startswith("needs-"))
            requirement = parse_classes(needs, str(page))
            assert badge["label"] == requirement.label
            assert badge["title"] == requirement.how_to_run.replace("`", "")
            labels.add(badge["label"])
    assert declared == badged
    assert "CUDA" in labels, "docs/tensors/creating.md has a needs-cuda block"


def test_output_blocks_are_marked_and_not_code(site: Path) -> None:
    outputs = [b for page in pages(site) for b in html_blocks(page) if b.is_output]
    assert outputs, "the pages show output blocks"
    assert all(block.language == "text" for block in outputs)
    css = (site / "_static" / "torchsheet.css").read_text(encoding="utf-8")
    assert 'content: "Output"' in css
    conf = (site / "_static" / "copybutton.js").read_text(encoding="utf-8")
    assert "div:not(.output) > div.highlight > pre" in conf, "output blocks get no copy button"


# ---------------------------------------------------------------------------------------------
# The extension on small projects


def small_project(tmp_path: Path, page: str) -> Path:
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        "extensions = ['myst_parser', 'torchsheet_harness.sphinx_ext']\n"
        "torchsheet_results_file = 'results.json'\n"
    )
    (source / "index.md").write_text(textwrap.dedent(page))
    return source


def sphinx(source: Path, *options: str) -> subprocess.CompletedProcess:
    out = source.parent / "html"
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", *options, str(source), str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


PAGE = """\
    # Small

    A page to check the extension.

    ```python
    >>> 1 + 1
    2
    ```

    ```{code-block} python
    :class: CLASSES
    >>> import torch
    >>> torch.ones(1, device="cuda").device
    device(type='cuda', index=0)
    ```
    """


def test_an_unknown_requirement_fails_the_build_naming_page_and_line(tmp_path: Path) -> None:
    source = small_project(tmp_path, PAGE.replace("CLASSES", "needs-cuda needs-gpu-2"))
    finished = sphinx(source, "-W")
    assert finished.returncode != 0
    assert "index.md:10: unknown requirement 'needs-gpu-2'" in finished.stderr


def test_an_unknown_requirement_fails_every_build_until_fixed(tmp_path: Path) -> None:
    # nox -s docs builds incrementally into one folder: a page that warned is read again.
    source = small_project(tmp_path, PAGE.replace("CLASSES", "needs-gpu-2"))
    for _ in range(2):
        finished = sphinx(source, "-W", "--keep-going")
        assert finished.returncode != 0
        assert "index.md:10: unknown requirement 'needs-gpu-2'" in finished.stderr
    (source / "index.md").write_text(textwrap.dedent(PAGE.replace("CLASSES", "needs-cuda")))
    fixed = sphinx(source, "-W", "--keep-going")
    assert fixed.returncode == 0, fixed.stderr


def test_a_missing_closing_fence_fails_the_build_naming_page_and_line(tmp_path: Path) -> None:
    page = PAGE.replace("CLASSES", "needs-cuda").replace(
        "    2\n    ```\n", "    2\n\n    ## Swallowed section\n\n    Its prose.\n", 1
    )
    source = small_project(tmp_path, page)
    finished = sphinx(source, "-W", "--keep-going")
    assert finished.returncode != 0
    assert "index.md:5: the block opened here contains a heading (## Swallowed section)" in (
        finished.stderr
    )


def entry(source: Path, **counts: object) -> dict:
    return {
        "sha256": page_digest(source / "index.md"),
        "torch": "2.13.0",
        "device": "CPU",
        "finished": "2026-01-01 00:00 UTC",
        **counts,
    }


@pytest.mark.parametrize(
    ("recorded", "expected"),
    [
        (None, "Not verified in this build: no test results for this page."),
        ("stale", "Not verified in this build: the page changed after the last test run."),
        (
            "fresh",
            "Verified with torch 2.13.0 on CPU: 1 block passed; 1 needs CUDA, which the test "
            "machine lacked.",
        ),
    ],
)
def test_the_status_line_comes_from_the_results_file(
    tmp_path: Path, recorded: str | None, expected: str
) -> None:
    source = small_project(tmp_path, PAGE.replace("CLASSES", "needs-cuda"))
    if recorded is not None:
        page = entry(source, passed=1, failed=0, errors=0, needs_hardware={"CUDA": 1})
        if recorded == "stale":
            page["sha256"] = "0" * 64
        write_results(source / "results.json", {"index.md": page}, run={})
    finished = sphinx(source, "-W")
    assert finished.returncode == 0, finished.stderr
    html = (source.parent / "html" / "index.html").read_text(encoding="utf-8")
    status = re.search(r'<p class="ts-status[^>]*>(.*?)</p>', html)
    assert status is not None and status[1] == expected
    assert "Needs CUDA; tested with <code>pytest -m gpu</code>" in html


def test_a_page_where_nothing_ran_does_not_say_verified() -> None:
    entry = {
        "passed": 0,
        "skipped": 2,
        "needs_hardware": {"CUDA": 2},
        "torch": "2",
        "device": "CPU",
    }
    status = status_of([entry])
    assert status.state == "unverified" and "Verified" not in status.text
    assert "2 need CUDA, which the test machine (torch 2 on CPU) lacked" in status.text


def test_a_failing_page_never_says_verified() -> None:
    status = status_of([{"passed": 3, "failed": 1, "torch": "2.13.0", "device": "CPU"}])
    assert status.state == "failed"
    assert "Verified" not in status.text and "1 of 4 blocks failed" in status.text
