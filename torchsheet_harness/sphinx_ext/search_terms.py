"""The site search's query words: a word that starts with a digit is left out, like a number.

Sphinx's search (``searchtools.js``) shows only the pages that contain every query word of three
characters or more, and leaves out words that are all digits. An error message a reader pastes
carries their own shapes, sizes and addresses in words that merely start with a digit
(``4x192``, ``2000ms``, ``0x7f3a``); the page that explains the message shows other ones, so
such a word would hide it. ``searchtools.js`` takes a ``splitQuery`` defined before it loads
instead of its own; this one is Sphinx's, less those words. The index is not changed.
"""

from __future__ import annotations

from sphinx.application import Sphinx

#: Sphinx's default splitQuery (sphinx/themes/basic/static/searchtools.js), filtered.
SPLIT_QUERY_JS = """\
var splitQuery = (query) =>
  query
    .split(/[^\\p{Letter}\\p{Number}_\\p{Emoji_Presentation}]+/gu)
    .filter((term) => term && !/^\\p{Number}/u.test(term));
"""


def register(app: Sphinx) -> None:
    """Put the query splitter in every page, before the search page loads searchtools.js."""
    app.add_js_file(None, body=SPLIT_QUERY_JS)
