"""The built site: warning-free, nothing fetched from third parties, badges from declarations,
status lines and the verified-environments table from the results files. The real site is built
once per session (tests/support/built_site.py); planted sites (tests/support/sheet_site.py) check
the lines against planted results files. (That the site lexes no page: test_page_parser.py.)"""

import html
import os
import re
from pathlib import Path

import pytest
from built_site import html_blocks, pages
from planted import PAGE
from sheet_site import CPU_213, CPU_214, CPU_215, CUDA_SKIP, H200, PASSED, build, plant, record

from torchsheet_harness.pages.requirements import Requirement, parse_classes
from torchsheet_harness.results import Environment, Results, environment_key
from torchsheet_harness.sphinx_ext.status_text import status_of
from torchsheet_harness.sphinx_ext.verdicts import PageView, page_view

EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
TAG = r"<(?:script|link|img|iframe|source|audio|video|embed|object|track|image|use|input)\b[^>]*>"
ATTR = r"\b(?:src|href|xlink:href|data|srcset|poster)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')"
CSS_URL = r"url\(\s*['\"]?([^'\")\s]+)|@import\s+['\"]([^'\"]+)"  # in CSS files, <style>, style=
BADGE = re.compile(
    r'<div class="ts-requirement (?P<kinds>[^"]*)">\s*<abbr class="ts-badge" '
    r'title="(?P<title>[^"]*)">(?P<label>[^<]*)</abbr><span class="ts-how">(?P<how>.*?)</span>'
    r'(?:<span class="ts-result">.*?</span>)?</div>\s*<div class="(?P<classes>[^"]*)">',
    re.DOTALL,
)


def external_fetches(site: Path) -> list[str]:
    """'file: url' for every URL outside the site that a browser would fetch."""
    found = []
    for path in sorted([*site.rglob("*.html"), *site.rglob("*.css")]):
        text = path.read_text(encoding="utf-8")
        tags = re.findall(TAG, text, re.IGNORECASE) if path.suffix == ".html" else []
        urls = [u for tag in tags for attr in re.findall(ATTR, tag, re.I) for u in attr if u]
        urls += [u for css in re.findall(CSS_URL, text) for u in css if u]
        found += [f"{path.relative_to(site)}: {u}" for u in ",".join(urls).split(",")
                  if EXTERNAL.match(u.strip())]  # fmt: skip
    return found


def test_the_site_builds_and_fetches_nothing_from_third_parties(site: Path) -> None:
    # build_site runs sphinx-build -W and raises with the warnings when there is any.
    assert (site / "searchindex.js").is_file(), "the offline search needs searchindex.js"
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
        if not re.search(r'<meta content="[^"]+" name="description"', text):
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
            assert html.unescape(badge["title"]) == requirement.how_to_run.replace("`", "")
            labels.add(badge["label"])
    assert declared == badged
    assert "CUDA" in labels, "docs/tensors/creating.md has a needs-cuda block"


# The extension on planted sites


def page(classes: str = "needs-cuda") -> dict[str, str]:
    return {"index.md": PAGE.replace("needs-cuda", classes)}


def test_an_unknown_requirement_fails_every_build_until_fixed(tmp_path: Path) -> None:
    # A misspelled class next to a right one; nox -s docs builds incrementally into one folder:
    # a page that warned is read again.
    for _ in range(2):
        warnings = build(tmp_path, page("needs-cuda needs-gpu-2")).warnings
        assert "index.md:16: unknown requirement 'needs-gpu-2'" in warnings
    assert build(tmp_path, page()).warnings == ""


def status_line(text: str) -> str:
    status = re.search(r'<p class="ts-status[^>]*>(.*?)</p>', text)
    assert status is not None
    return html.unescape(re.sub(r"<[^>]+>", "", status[1]))


NOT_RUN = {"not_run": "a shell command", "outcome": "skipped", "reason": "not run: a shell command"}
SKIPPED = {"7": PASSED, "16": CUDA_SKIP, "24": NOT_RUN}  # the CUDA block skipped on a CPU run


@pytest.mark.parametrize(
    ("runs", "status", "results"),
    [
        ([], "Not verified in this build: no test results for this page.", []),
        (
            [(CPU_213, SKIPPED, "stale")],
            "Not verified in this build: the page changed after the last test run.",
            [],
        ),
        (
            [(CPU_213, SKIPPED, "results")],
            "Verified with torch 2.13.0 on CPU (1 block); 1 needs a CUDA GPU, which the test "
            "machine lacked; 1 shown but not run.",
            ["Not verified: skipped with torch 2.13.0 on CPU (needs CUDA, found 0 CUDA GPUs)."],
        ),
        (  # the CPU block, verified wherever it ran (the GPU run did not select it): no line
            [(CPU_213, SKIPPED, "results"), (CPU_214, SKIPPED, "results"),
             (H200, {"7": {}, "16": PASSED}, "committed")],  # a `-m gpu` run
            "Verified with torch 2.13.0 and 2.14.1 on CPU (1 block), and on NVIDIA H200 with "
            "torch 2.11.0+cu130 (1 CUDA block); 1 shown but not run.",
            ["Verified with torch 2.11.0+cu130 on NVIDIA H200; skipped with torch 2.13.0 and "
             "2.14.1 on CPU (needs CUDA, found 0 CUDA GPUs)."],
        ),
        (  # the CPU block gets a line of its own saying where it fails and where it passes
            [(CPU_213, SKIPPED, "results"),
             (CPU_214, {**SKIPPED, "7": {"outcome": "failed"}}, "results")],
            "Failing with torch 2.14.1 on CPU: 1 of 2 blocks failed (line 7), passing with "
            "torch 2.13.0 on CPU.",
            ["Failed with torch 2.14.1 on CPU; passed with torch 2.13.0 on CPU.",
             "Not verified: skipped with torch 2.13.0 and 2.14.1 on CPU (needs CUDA, found 0 "
             "CUDA GPUs)."],
        ),
    ],
    ids=["no results", "stale", "one run", "every environment", "a failure"],
)  # fmt: skip
def test_the_status_line_and_badges_say_what_the_results_say(
    tmp_path: Path, runs: list, status: str, results: list[str]
) -> None:
    plant(tmp_path, page(), conf=f"torchsheet_results = 'results{os.pathsep}committed'\n")
    for environment, blocks, folder in runs:
        stale = folder == "stale"
        record(tmp_path, environment, blocks, stale=stale, folder="results" if stale else folder)
    site = build(tmp_path)
    assert site.warnings == ""
    assert status_line(site.html()) == status
    assert re.findall(r'<span class="ts-result">(.*?)</span>', site.html()) == results
    assert '>CUDA</abbr><span class="ts-how">Needs CUDA; tested with <code' in site.html()


def view(*runs: tuple[Environment, dict, str], needs: dict | None = None) -> PageView:
    """The merged view of runs of p.md (environment, blocks, the source's digest: 'now' is
    the page as it is), whose blocks need ``needs`` (line → requirement; else a CPU)."""
    found = [
        Results(
            schema=3,
            environment={**environment, "key": environment_key(environment)},
            last_run={},
            pages={"p.md": {"sha256": digest, "finished": "1", "blocks": blocks}},
        )
        for environment, blocks, digest in runs
    ]
    return page_view(found, "p.md", "now", needs)


def test_a_run_of_an_older_source_is_dropped_and_where_nothing_ran_is_not_verified() -> None:
    page = view((CPU_213, {"5": PASSED, "10": {}}, "now"), (CPU_214, {"5": PASSED}, "old"))
    assert list(page.environments) == [environment_key(CPU_213)]
    assert status_of([page]).text == (
        "Partly verified with torch 2.13.0 on CPU (1 block); 1 not run by the recorded test runs."
    )
    assert status_of([view((CPU_214, {"5": PASSED}, "old"))]).state == "stale"
    cuda = Requirement(gpus=1)
    page = view((CPU_213, {"5": CUDA_SKIP, "10": CUDA_SKIP}, "now"), needs={5: cuda, 10: cuda})
    status = status_of([page])
    assert status.state == "unverified" and "Verified" not in status.text
    assert "2 need a CUDA GPU, which the test machine (torch 2.13.0 on CPU) lacked" in status.text


# docs/verification.md's table: the matrix, its newest version, when each environment verified

ENVIRONMENTS_PAGE = (
    "# Small\n\nA page.\n\n```python\n>>> 1 + 1\n2\n```\n\n```{verified-environments}\n```\n"
)


def cells(text: str) -> list[list[str]]:
    table = re.search(r'<table class="[^"]*ts-environments[^"]*">(.*?)</table>', text, re.S)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table[1], re.S)
    return [
        [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", r, re.S)] for r in rows
    ]


def test_each_environment_with_its_run_date_newest_torch_first(tmp_path: Path) -> None:
    plant(
        tmp_path,
        {"index.md": ENVIRONMENTS_PAGE},
        "torchsheet_matrix = ('2.13.0', '2.14.1', '2.15.0')\n",
    )
    for environment in (CPU_213, CPU_215):
        record(tmp_path, environment, {"5": PASSED})
    record(tmp_path, CPU_214, {"5": PASSED}, stale=True)  # a run of an older source: no pages
    text = build(tmp_path).html()
    assert [row for row in cells(text) if row] == [
        ["2.15.0+cu132", "CPU", "3.11.7", "2026-01-01 00:00 UTC", "1", "1"],
        ["2.14.1", "CPU", "3.11.7", "—", "0", "0"],
        ["2.13.0", "CPU", "3.11.7", "2026-01-01 00:00 UTC", "1", "1"],
    ]
    sentence = html.unescape(re.search(r'<p class="ts-matrix">(.*?)</p>', text)[1])
    assert sentence.startswith(
        "The test matrix (noxfile.py): torch 2.13.0, 2.14.1 and 2.15.0; the newest is 2.15.0. "
        "torch 2.15.0: verified on CPU, last run 2026-01-01 00:00 UTC (1 page, 1 block passed)."
    )
    assert "torch 2.14.1: no run of it in this build's results." in sentence
