"""The pages side: a page's blocks (:mod:`.blocks`), what a block needs (:mod:`.requirements`),
page to examples (:mod:`.parser`), the Sybil that collects pages (:mod:`.collect`) and the state
every page starts from (:mod:`.state`). Importing this package imports neither torch nor pytest.
"""
