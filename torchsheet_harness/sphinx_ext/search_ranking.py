"""The site search ranks a page by all the query words it holds, not by its best one.

Sphinx's search (``searchtools.js``) lists the pages that contain every query word, each scored
by its single best word: 15 for a word in a heading, 5 for one in the text. A pasted error
message has many words, and every page with any one of them in a heading ties at 15; ties go
alphabetically by title, so the page whose heading quotes the message can come fourth. This
ranking keeps Sphinx's weights and sums them over the query's words (a heading word 15, a text
word 5), so the page whose headings hold more of the message comes first. ``searchtools.js``
takes a ``Scorer`` defined before it loads instead of its own; this one is Sphinx's, with a
``score`` function for full-text results (title, index and object results keep their scores).
The query's words are the ones Sphinx searches for: its own ``Search._parseQuery`` (with the
site's ``splitQuery``, :mod:`.search_terms`), which leaves out stop words and bare numbers and
stems the rest.
"""

from __future__ import annotations

from sphinx.application import Sphinx

#: Sphinx's default Scorer (sphinx/themes/basic/static/searchtools.js) plus a ``score``.
SCORER_JS = """\
var Scorer = {
  objNameMatch: 11, objPartialMatch: 6, objPrio: {0: 15, 1: 5, 2: -5}, objPrioDefault: 0,
  title: 15, partialTitle: 7, term: 5, partialTerm: 2,
  score: (result) => {
    const [docname, , , , score, , kind] = result;
    if (kind !== "text") return score;
    const index = Search._index;
    const file = index.docnames.indexOf(docname);
    const query = new URLSearchParams(window.location.search).get("q") || "";
    if (Scorer.query !== query) {  // once per query: Sphinx's own words, split and stemmed
      Scorer.query = query;
      Scorer.words = Search._parseQuery(query)[1];
    }
    const holds = (table, word) => {
      if (!Object.hasOwn(table, word)) return false;
      const files = table[word];
      return files === file || (Array.isArray(files) && files.includes(file));
    };
    let total = 0;
    for (const word of Scorer.words) {
      if (holds(index.titleterms, word)) total += Scorer.title;
      else if (holds(index.terms, word)) total += Scorer.term;
    }
    return Math.max(total, score);
  },
};
"""


def register(app: Sphinx) -> None:
    """Put the scorer in every page, before the search page loads searchtools.js."""
    app.add_js_file(None, body=SCORER_JS)
