"""The pages side: a page's blocks (:mod:`.blocks`), what a block needs (:mod:`.requirements`),
page to examples (:mod:`.parser`), the Sybil that collects pages (:mod:`.collect`), the state
every page starts from (:mod:`.state`), and the ``%`` markers with every check of them that
needs only the page (:mod:`.markers`, with :mod:`.excerpts` and :mod:`.messages`). Importing
this package imports neither torch nor pytest.
"""
