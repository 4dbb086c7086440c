"""Checks over the pages that are not examples: every block covered (:mod:`.audit`), the pages'
Python linted (:mod:`.block_lint`), GPU blocks runnable alone (:mod:`.self_contained`).
"""
