"""The built site in headless Chromium (tests/harness/conftest.py), served on 127.0.0.1 (other
hosts do not resolve for it): what a reader sees, clicks and copies (the copy: what
torchsheet_harness/pages/copy_text.py computes); no resource from another host, no console
error. Screenshots land in docs/_build/screenshots/. (The search: test_error_search.py.)"""

from dataclasses import astuple
from pathlib import Path

from built_site import DOCS, html_blocks, pages, wait_for

from torchsheet_harness.pages.copy_text import PAGE_SETTINGS, copied_text
from torchsheet_harness.sphinx_ext.copy_text import COPY_TOOLTIP

SCREENSHOTS = DOCS / "_build" / "screenshots"
PHONE, WIDE, DEFAULT = (390, 844), (1400, 900), (1280, 900)


def problems_in(driver: object, base_url: str) -> list[str]:
    """Console errors since the last call, and resources fetched from anywhere but the site."""
    errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    foreign = [url for url in resources if not url.startswith((base_url, "data:", "blob:"))]
    return errors + [f"fetched from elsewhere: {url}" for url in foreign]


def screenshot(driver: object, name: str, dark: bool = False) -> None:
    """Save ``name``.png (and with ``dark``, ``name``-dark.png in the dark theme)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for theme in ("auto", "dark") if dark else ("auto",):
        driver.execute_script(f"document.body.dataset.theme = '{theme}'")
        driver.save_screenshot(str(SCREENSHOTS / f"{name}{'-dark' * (theme == 'dark')}.png"))
    driver.execute_script("document.body.dataset.theme = 'auto'")


def copies_in_browser(driver: object, site: Path) -> list[str]:
    """What the real copy functions (copybutton's filterText and formatCopyText, with
    torchsheet's pasteReady around it) give for every code block of the page loaded in
    ``driver``. The built copybutton.js keeps them in a closure: run their source from it."""
    source = (site / "_static" / "copybutton.js").read_text(encoding="utf-8")
    functions = source[source.index("function escapeRegExp") : source.index("var copyTargetText")]
    return driver.execute_script(
        functions + ";\nreturn [...document.querySelectorAll('div.highlight pre')]"
        ".map(pre => formatCopyText(filterText(pre, '.linenos'), ...arguments))",
        *astuple(PAGE_SETTINGS),
    )


def cuda_page(site: Path) -> Path:
    with_cuda = [p for p in pages(site) if any("needs-cuda" in b.classes for b in html_blocks(p))]
    assert with_cuda, "no page has a needs-cuda block (docs/tensors/creating.md should)"
    return with_cuda[0]


def test_landing_page_renders(browser, base_url: str) -> None:
    browser.get(base_url + "index.html")
    assert "torchsheet" in browser.title
    heading = browser.find_element("css selector", "article h1")
    assert heading.is_displayed() and heading.text.startswith("torchsheet")
    status = browser.find_element("css selector", "article .ts-status")
    assert status.is_displayed() and status.text
    captions = [e.get_attribute("textContent").strip() for e in browser.find_elements(
        "css selector", ".sidebar-tree p.caption")]  # fmt: skip
    assert captions[:1] == ["Tensors"], captions
    overview = browser.find_elements("css selector", "ul.ts-overview li a")
    assert len(overview) >= 2, "the landing page lists the pages"
    screenshot(browser, "landing", dark=True)
    assert problems_in(browser, base_url) == []


def test_a_search_result_page_highlights_the_words_without_an_error(browser, base_url) -> None:
    """(a result opens with ?highlight=; 'in' and 'mode' are also in furo's icon titles)"""
    browser.get(base_url + "troubleshooting/layers.html?highlight=in+mode+Expected")
    wait_for(browser, "document.querySelectorAll('span.highlighted').length > 0", "highlights")
    assert problems_in(browser, base_url) == []


def test_cuda_block_shows_its_badge(browser, base_url: str, site: Path) -> None:
    page = cuda_page(site)
    browser.get(base_url + page.relative_to(site).as_posix())
    screenshot(browser, page.stem)
    badge = browser.find_element(
        "xpath", "//div[contains(@class,'ts-requirement')][following-sibling::div["
        "contains(@class,'needs-cuda')]]//abbr[@class='ts-badge']"
    )  # fmt: skip
    browser.execute_script(
        "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", badge
    )
    assert badge.is_displayed() and badge.text == "CUDA"
    assert "pytest -m gpu" in badge.get_attribute("title")
    how = badge.find_element("xpath", "following-sibling::span[@class='ts-how']")
    assert how.is_displayed() and "pytest -m gpu" in how.text
    screenshot(browser, f"{page.stem}-badge", dark=True)
    assert problems_in(browser, base_url) == []


def test_copy_button_copies_code_without_prompts(browser, base_url: str, site: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    page = cuda_page(site)
    # Every block: the real functions give what the Python port gives, on this page and on the
    # page whose class bodies and loops need pasteReady (copy_text.py).
    for shown in (site / "training" / "training-loop.html", page):
        browser.get(base_url + shown.relative_to(site).as_posix())
        expected = [copied_text(block.text) for block in html_blocks(shown)]
        assert copies_in_browser(browser, site) == expected
    blocks = html_blocks(page)
    wait_for(browser, "document.querySelectorAll('button.copybtn').length", "copy buttons")
    # A real click on the first CPU >>> block's button; catch what lands on the clipboard.
    index = next(i for i, b in enumerate(blocks) if b.text.startswith(">>>") and not b.needs)
    browser.execute_script(
        "window.__copied = null; document.addEventListener('copy', e => {"
        "  const t = e.target; window.__copied = t && t.value !== undefined ? t.value"
        "    : String(document.getSelection()); }, true)"
    )
    pre = browser.find_elements("css selector", "div.highlight pre")[index]
    browser.execute_script(
        "arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", pre
    )
    button = pre.find_element("xpath", "following-sibling::button[contains(@class,'copybtn')]")
    assert button.get_attribute("data-tooltip") == COPY_TOOLTIP
    ActionChains(browser).move_to_element(pre).move_to_element(button).click().perform()
    copied = wait_for(browser, "window.__copied", "the copy event")
    assert copied == copied_text(blocks[index].text)  # no prompts nor output: test_copy_text
    assert button.get_attribute("data-tooltip") == "Copied!"
    # Output blocks are labelled and have no copy button.
    labels = browser.execute_script(
        "return [...document.querySelectorAll('div.output')]"
        ".map(d => getComputedStyle(d, '::before').content)"
    )
    assert set(labels) <= {'"Output"'}
    assert not browser.find_elements("css selector", "div.output button.copybtn")
    assert problems_in(browser, base_url) == []


def test_quick_reference_links_land_on_their_sections(browser, base_url: str) -> None:
    browser.get(base_url + "quickref.html")
    links = browser.execute_script(
        "return [...document.querySelectorAll('a.ts-qr-link')]"
        ".map(a => [a.getAttribute('href'), a.textContent])"
    )
    assert len(links) >= 20, "the quick reference links each excerpt to its section"
    for href, text in dict(links).items():
        browser.get(base_url + href)
        heading = browser.execute_script(
            "const s = document.getElementById(arguments[0]);"
            "return s && s.tagName === 'SECTION' ? s.querySelector('h1, h2, h3').textContent"
            " : null",
            href.split("#")[1],
        )
        assert heading is not None, f"{href}: no section with that id"
        assert heading.rstrip("#¶ ").strip() == text, f"{href}: lands on {heading!r}"
    assert problems_in(browser, base_url) == []


def test_pitfall_links_land_on_their_blocks(browser, base_url: str) -> None:
    browser.get(base_url + "pitfalls.html")
    hrefs = browser.execute_script(
        "return [...document.querySelectorAll('td.ts-pitfall-where a')]"
        ".map(a => a.getAttribute('href'))"
    )
    assert len(hrefs) >= 10
    for href in hrefs:
        browser.get(base_url + href)
        follows = browser.execute_script(
            "const e = document.getElementById(arguments[0]); let n = e && e.nextElementSibling;"
            "return n ? n.className + ' '"
            " + (n.querySelector('[class*=\"highlight-\"]') ? 'code' : '') : null",
            href.split("#")[1],
        )
        # A code block of any language: a trap can be a Python block or an sbatch script.
        assert follows and ("highlight-" in follows or "code" in follows), href


def test_a_phone_never_scrolls_sideways_and_both_widths_are_shot(browser, base_url: str) -> None:
    try:
        browser.set_window_size(*PHONE)
        for page in ["index.html", "quickref.html", "pitfalls.html", "tensors/layout.html"]:
            browser.get(base_url + page)
            wide = browser.execute_script(
                "const d = document.documentElement; return [d.scrollWidth, d.clientWidth]"
            )
            assert wide[0] <= wide[1], f"{page}: body scrolls sideways at 390 px: {wide}"
            h1 = browser.execute_script(
                "return parseFloat(getComputedStyle(document.querySelector('article h1')).fontSize)"
            )
            assert h1 <= 32, f"{page}: the title is {h1}px high on a phone"
        for name, size in (("quickref-phone", PHONE), ("quickref-wide", WIDE)):
            browser.set_window_size(*size)
            browser.get(base_url + "quickref.html")
            browser.execute_script(
                "window.scrollTo(0, document.querySelector('.ts-quickref').offsetTop - 80)"
            )
            screenshot(browser, name)
        browser.get(base_url + "pitfalls.html")
        screenshot(browser, "pitfalls-wide")
    finally:
        browser.set_window_size(*DEFAULT)
    assert (SCREENSHOTS / "quickref-wide.png").stat().st_size > 10_000


def test_the_page_bar_delivers_the_notebook_and_the_twin(browser, base_url: str, site: Path):
    """Download notebook gives the notebook written beside the page; Copy page puts its Markdown
    twin on the clipboard (the clipboard stubbed to catch what the button writes)."""
    from selenium.webdriver.common.action_chains import ActionChains

    browser.get(base_url + "tensors/creating.html")
    link = browser.find_element("css selector", ".ts-page-actions a[download]")
    assert link.text == "Download notebook" and link.get_attribute("href").endswith(
        "creating.ipynb"
    )
    delivered = browser.execute_async_script(
        "fetch(arguments[0]).then(r => r.text()).then(arguments[1])", link.get_attribute("href")
    )
    assert delivered == (site / "tensors" / "creating.ipynb").read_text("utf-8")
    browser.execute_script(
        "window.__page = null; navigator.clipboard.writeText = text => {"
        "  window.__page = text; return Promise.resolve(); }"
    )
    button = browser.find_element("css selector", ".ts-page-actions button.ts-copy-page")
    ActionChains(browser).move_to_element(button).click().perform()
    copied = wait_for(browser, "window.__page", "the copied page")
    assert copied == (site / "tensors" / "creating.md").read_text("utf-8")
    assert copied.startswith("# Creating tensors\n")
    assert button.text == "Copied!"
    screenshot(browser, "page-actions")
    assert problems_in(browser, base_url) == []
