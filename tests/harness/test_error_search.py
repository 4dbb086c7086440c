"""Every indexed error message, pasted into the site search with other numbers, finds its entry.

For each ``% error:`` / ``% warning:`` marker on the pages, the message as the errors index shows
it (the class and the marker's text), with every free-standing number changed as a reader's own
run would change it, is typed into the real search page of the built site in headless Chromium:
Sphinx's own ``searchtools.js`` over the built ``searchindex.js`` (with the site's query splitter,
:mod:`torchsheet_harness.sphinx_ext.search_terms`, and ranking,
:mod:`torchsheet_harness.sphinx_ext.search_ranking`), ranked as a reader sees it. The entry's page
must be among the first three pages listed. Each query, its rank and the first three pages are
written to docs/_build/error-search.txt. Skipped where Chromium or selenium is missing.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from built_site import DOCS
from test_browser import base_url, browser, site, wait_for  # noqa: F401 (fixtures)

from torchsheet_harness.pages.markers import parse_marker

SEARCH_LOG = DOCS / "_build" / "error-search.txt"
#: A number that does not end a word ("mat1", "FP16", "LogBackward0" stay as they are).
FREE_NUMBER = re.compile(r"(?<![A-Za-z0-9_])\d+")
#: Entries the search cannot find yet, with why (each one a strict xfail). None today.
KNOWN_MISSES: dict[str, str] = {}


def markers() -> list[tuple[str, int, str]]:
    """(page path under docs/, line, message) of every error and warning marker."""
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        if "_build" in page.parts:
            continue
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            marker = parse_marker(line, number) if line.startswith("% ") else None
            if marker is not None and marker.kind in ("error", "warning"):
                found.append((page.relative_to(DOCS).as_posix(), number, marker.text))
    return found


def pasted(message: str) -> str:
    """``message`` as another run prints it: each free-standing number changed."""
    return FREE_NUMBER.sub(lambda number: str(int(number[0]) * 3 + 7), message)


def shown_in_index(built: Path, page: str, message: str) -> str:
    """The index's text for the entry (its class, then the message)."""
    index = (built / "troubleshooting" / "errors.html").read_text(encoding="utf-8")
    for cell in re.findall(r'<td class="ts-error-message"><p><code[^>]*>(.*?)</code>', index):
        text = html.unescape(re.sub(r"<[^>]+>", "", cell))
        if text.endswith(message):
            return text
    pytest.fail(f"{page}: {message!r} is not in the errors index")


ENTRIES = markers()


def test_every_marker_is_searched() -> None:
    assert len(ENTRIES) >= 40, f"{len(ENTRIES)} markers found"


@pytest.mark.parametrize(
    ("page", "line", "message"),
    [
        pytest.param(*entry, marks=pytest.mark.xfail(reason=KNOWN_MISSES[entry[2]], strict=True))
        if entry[2] in KNOWN_MISSES
        else entry
        for entry in ENTRIES
    ],
    ids=[f"{page}:{line}" for page, line, _ in ENTRIES],
)
def test_a_pasted_message_finds_its_entry_in_the_first_three(
    browser,  # noqa: F811
    base_url: str,  # noqa: F811
    site: Path,  # noqa: F811
    page: str,
    line: int,
    message: str,
) -> None:
    query = pasted(shown_in_index(site, page, message))
    browser.get(base_url + f"search.html?q={quote(query)}")
    wait_for(
        browser,
        "/Search finished|did not match any documents/"
        ".test(document.querySelector('#search-results').textContent)",
        f"search results for {query!r}",
    )
    links = browser.execute_script(
        "return [...document.querySelectorAll('#search-results ul.search li a')]"
        ".map(a => a.getAttribute('href').split('#')[0].split('?')[0])"
    )
    pages = list(dict.fromkeys(links))
    wanted = page.removesuffix(".md") + ".html"
    rank = pages.index(wanted) + 1 if wanted in pages else None
    SEARCH_LOG.parent.mkdir(parents=True, exist_ok=True)
    with SEARCH_LOG.open("a", encoding="utf-8") as log:
        log.write(f"{page}:{line}\trank {rank}\tof {len(pages)}\t{query}\t{', '.join(pages[:3])}\n")
    assert rank is not None and rank <= 3, (
        f"{page}:{line}: {query!r}: {wanted} is at rank {rank}; first three: {pages[:3]}"
    )


def test_without_the_sites_splitter_a_pasted_shape_hides_every_page(
    browser,  # noqa: F811
    base_url: str,  # noqa: F811
) -> None:
    query = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x512 and 256x10)"
    browser.get(base_url + "search.html")
    wait_for(browser, "typeof Search !== 'undefined' && Search._index !== null", "the index")
    found = browser.execute_script(
        "const pages = (q) => Search._performSearch(...Search._parseQuery(q)).length;"
        "const site = pages(arguments[0]);"
        "const own = splitQuery;"
        "splitQuery = (q) => q.split(/[^\\p{Letter}\\p{Number}_\\p{Emoji_Presentation}]+/gu)"
        ".filter((t) => t);"  # Sphinx's default, as in searchtools.js
        "const sphinx = pages(arguments[0]);"
        "splitQuery = own;"
        "return [site, sphinx];",
        query,
    )
    assert found[0] > 0 and found[1] == 0, f"pages found (site's splitter, Sphinx's): {found}"


def test_without_the_sites_ranking_a_message_in_a_heading_comes_fourth(
    browser,  # noqa: F811
    base_url: str,  # noqa: F811
) -> None:
    """Sphinx's best-word score ties every page with 'key' or 'state_dict' in a heading."""
    query = 'RuntimeError: Missing key(s) in state_dict: "weight", "bias".'
    browser.get(base_url + f"search.html?q={quote(query)}")
    wait_for(browser, "typeof Search !== 'undefined' && Search._index !== null", "the index")
    ranks = browser.execute_script(
        "const rank = () => Search._performSearch(...Search._parseQuery(arguments[0]))"
        ".reverse().map((r) => r[0]).filter((d, i, all) => all.indexOf(d) === i)"
        ".indexOf('troubleshooting/saving') + 1;"
        "const site = rank();"
        "const own = Scorer.score;"
        "delete Scorer.score;"  # Sphinx's: no score function, the best word's score
        "const sphinx = rank();"
        "Scorer.score = own;"
        "return [site, sphinx];",
        query,
    )
    assert ranks[0] == 1 and ranks[1] > 3, f"troubleshooting/saving's rank (site, Sphinx): {ranks}"
