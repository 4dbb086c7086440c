"""torchsheet's test harness: turns the MyST pages in docs/ into pytest items, and shows on the
site what the tests found.

Data flows one way, page → block → example → evaluator → result → site:

- :mod:`.pages`: a page read once (:func:`.pages.page.read_page`, cached by its digest) into
  blocks that carry their whole identity (lines, section, requirement, ``%`` markers, output);
  the parser, the coverage checks, the recorder and the reuse key take that object.
- :mod:`.run`: evaluators, subprocesses that cannot outlive their test, torchrun and Slurm.
- :mod:`.checks`: the collection audit, the page linter, the self-contained GPU-block rule.
- :mod:`.pytest_plugin`: markers, skip locations, the summary line, the results recorder (the
  only writer of a results file), the xdist schedule, slow blocks, reuse.
- :mod:`.results`: the results file's format, path and page digest (neither pytest nor Sphinx).
- :mod:`.environment`: what a run runs on (the results file's key) and its fingerprint;
  :mod:`.reuse_key`: what a page's recorded pass depends on (``--torchsheet-reuse``).
- :mod:`.sphinx_ext`: the site: it reads the doctree and the results files, never a page's
  source, and shows badges, status lines and the index pages.

:mod:`.locations` names places ('docs/page.md:42') and which files are pages. The site's own
test support (built site, copy button, planted pages, paste session) lives in tests/.
"""
