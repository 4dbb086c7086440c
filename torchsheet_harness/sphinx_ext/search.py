"""The site search finds an error's entry from the line a reader pastes, whole or in part.

The search is Sphinx's (``searchtools.js`` over the built ``searchindex.js``), with three of its
functions wrapped by ``search.js``, loaded on the search page after ``searchtools.js``
(``defer``) and before ``Search.init`` runs the query: the override wraps Sphinx's functions
once they are loaded (it defines nothing before), and each wrapper calls Sphinx's own:

- ``splitQuery`` also leaves out words that start with a digit. A pasted message carries the
  reader's own shapes, sizes and addresses (``4x192``, ``2000ms``, ``0x7f3a``, ``cuda:0``).
- ``Search._parseQuery`` reads a pasted traceback by its exception line: the first
  ``SomethingError:`` (``Exception``, ``Warning``) after the last ``Traceback (most recent call
  last):``, up to the next traceback header (a DataLoader worker's ``Original Traceback``). A
  text box runs the pasted lines together, so the frames' paths and code would be query words.
- ``Search.performTermsSearch`` lists every page that holds any query word. Sphinx lists only
  the pages that hold every one, so one word the entry lacks (a unit such as ``GiB``, a
  ``UserWarning:`` prefix, a path, a trailing ``(when checking argument ...)``, an older
  wording) hid it. A page's score sums, over the query words it holds, its score for that word
  alone (Sphinx's: a heading 15, the text 5, part of a word less; where Sphinx let a part of a
  word overwrite the word's own, the higher) times the word's weight: its inverse document
  frequency over the index's N pages (BM25's ``ln(1 + (N - n + 0.5)/(n + 0.5))`` for a word n
  pages hold) divided by the mean over the query's words. Rare words weigh more; a one-word
  query keeps its scores, and the title and object results Sphinx adds keep theirs, so the two
  stay comparable.

The index is not changed. The functions wrapped exist with these signatures from Sphinx 7.3
(``pyproject.toml``'s floor) to 9. tests/harness/test_error_search.py pastes every indexed message
in several forms and checks that ordinary queries rank their page as before.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

SCRIPT = Path(__file__).with_name("search.js")
#: Its name under the site's ``_static/``.
STATIC_NAME = "torchsheet-search.js"


def add_script(app: Sphinx, pagename: str, *args: Any) -> None:
    """html-page-context: the search page loads the script after searchtools.js."""
    if pagename == "search":
        app.add_js_file(STATIC_NAME, loading_method="defer")


def copy_script(app: Sphinx) -> None:
    """builder-inited: the script into the HTML build's ``_static/``, before the pages are
    written (each page's link to it carries its checksum, as Sphinx's own files do)."""
    if app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        static.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SCRIPT, static / STATIC_NAME)


def register(app: Sphinx) -> None:
    app.connect("html-page-context", add_script)
    app.connect("builder-inited", copy_script)
