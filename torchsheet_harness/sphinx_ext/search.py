"""The site search finds an error's entry from the line a reader pastes: Sphinx's search with
three of its functions wrapped by ``search.js`` (why each: the comment above it there; the same
signatures from Sphinx 7.3 to 9), loaded on the search page after ``searchtools.js``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

SCRIPT = Path(__file__).with_name("search.js")
#: Its name under the site's ``_static/``.
STATIC_NAME = "torchsheet-search.js"


#: Every page: Sphinx's highlighter of the searched words walks the whole body (furo has no
#: div.body), and a word in the title of furo's SVG icons ("in", "mode") stopped it with a
#: TypeError (getBBox); the titles are marked not to highlight before it runs.
NO_SVG_HIGHLIGHT = """document.addEventListener("DOMContentLoaded", () =>
  document.querySelectorAll("svg title").forEach((t) => t.classList.add("nohighlight")));"""


def add_script(app: Sphinx, pagename: str, *args: Any) -> None:
    """html-page-context: the search page loads the script after searchtools.js."""
    if pagename == "search":
        app.add_js_file(STATIC_NAME, loading_method="defer")
    else:
        app.add_js_file(None, body=NO_SVG_HIGHLIGHT)


def copy_script(app: Sphinx) -> None:
    """builder-inited: the script into ``_static/``, before the pages that link it are written."""
    if app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SCRIPT, static / STATIC_NAME)
