/* torchsheet's site search: Sphinx's searchtools.js, three of its functions wrapped.
 * Loaded with `defer` on the search page only (search.py), so it runs after searchtools.js and
 * before Search.init reads the query. Why each change: the comment above it. */
"use strict";
(() => {
  // A word that starts with a digit (a pasted message's own 4x192, 2000ms, 0x7f3a) is left
  // out, as Sphinx leaves out numbers.
  const sphinxSplitQuery = splitQuery;
  splitQuery = (query) =>
    sphinxSplitQuery(query).filter((word) => !/^\p{Number}/u.test(word));

  // A pasted traceback is searched by its exception line: the first `SomethingError:` (or
  // Exception, Warning) after the last `Traceback (most recent call last):`, up to the next
  // traceback header (a DataLoader worker's "Original Traceback"). Pasted into the search box,
  // the lines come run together: by spaces (a paste), or with nothing between them (a script
  // that sets the box's value), so the class may follow a word of the last code line.
  const HEADER = /(Original )?Traceback \(most recent call last\):/g;
  const EXCEPTION = /([A-Z][A-Za-z0-9]*)?(Error|Exception|Warning):/;
  const exceptionLine = (query) => {
    const opening = [...query.matchAll(HEADER)].filter((header) => !header[1]).pop();
    if (opening === undefined) return query;
    const after = query.slice(opening.index + opening[0].length);
    const found = after.match(EXCEPTION);
    if (found === null) return query;
    const line = after.slice(found.index);
    const next = line.search(HEADER);
    return next < 0 ? line : line.slice(0, next);
  };
  const sphinxParseQuery = Search._parseQuery;
  Search._parseQuery = (query) => sphinxParseQuery(exceptionLine(query));

  // Sphinx's score of each page for one word alone. Where its parts-of-words scores overwrote
  // the word's own (a "weight_decay" in the text, 2, over "decay" in a heading, 15), the own.
  const sphinxTermsSearch = Search.performTermsSearch;
  const wordScores = (word, excludedTerms) => {
    const { docnames, terms, titleterms } = Search._index;
    const holds = (table, file) =>
      Object.hasOwn(table, word) && [table[word]].flat().includes(file);
    return sphinxTermsSearch(new Set([word]), excludedTerms).map((result) => {
      const file = docnames.indexOf(result[0]);
      const own = holds(titleterms, file) ? Scorer.title : holds(terms, file) ? Scorer.term : 0;
      return [...result.slice(0, 4), Math.max(own, result[4]), ...result.slice(5)];
    });
  };

  // A page is listed when it holds any query word, not only when it holds every one; its score
  // sums, over the words it holds, its score for the word times the word's weight: its inverse
  // document frequency (BM25's) divided by the query's mean. Rare words weigh more, and a
  // one-word query keeps its scores, comparable with the title results Sphinx adds.
  // A pasted message is mostly one section's title: for a query of three words or more, a page
  // also scores, once more, the weighted words its best single title holds, so the section
  // that is the message outranks pages that hold its words scattered over many titles.
  let titleWords = null; // [file, Set of the title's stemmed words] for every section title
  const stemmed = (text) => {
    const stemmer = new Stemmer();
    return new Set(splitQuery(text).map((word) => stemmer.stemWord(word.toLowerCase())));
  };
  const bestTitle = (file, words, weights) => {
    if (titleWords === null)
      titleWords = Object.entries(Search._index.alltitles).flatMap(([title, places]) =>
        places.map(([place]) => [place, stemmed(title)]),
      );
    let best = 0;
    for (const [place, held] of titleWords) {
      if (place !== file) continue;
      const sum = words.reduce((total, word, i) => total + (held.has(word) ? weights[i] : 0), 0);
      best = Math.max(best, sum);
    }
    return best * Scorer.title;
  };
  Search.performTermsSearch = (searchTerms, excludedTerms) => {
    const pages = Search._index.docnames.length;
    const scored = [...searchTerms]
      .map((word) => [word, wordScores(word, excludedTerms)])
      .filter(([, results]) => results.length > 0);
    const words = scored.map(([word]) => word);
    const perWord = scored.map(([, results]) => results);
    const idf = perWord.map((results) =>
      Math.log(1 + (pages - results.length + 0.5) / (results.length + 0.5)),
    );
    const mean = idf.reduce((sum, weight) => sum + weight, 0) / idf.length;
    const weights = idf.map((weight) => weight / mean); // [1] for one word, exactly
    const byPage = new Map();
    perWord.forEach((results, i) =>
      results.forEach((result) => {
        const [docname, , , , score] = result;
        const page = byPage.get(docname) || [...result.slice(0, 4), 0, ...result.slice(5)];
        page[4] += score * weights[i];
        byPage.set(docname, page);
      }),
    );
    if (words.length >= 3)
      for (const page of byPage.values())
        page[4] += bestTitle(Search._index.docnames.indexOf(page[0]), words, weights);
    return [...byPage.values()];
  };
})();
