"""torchsheet's test harness: turns the MyST pages in docs/ into pytest items.

Modules, in the order data flows: :mod:`.requirements` (what a block needs), :mod:`.page_parser`
(page → examples), :mod:`.evaluators` (example → pass/fail), :mod:`.page_state` (per-page
isolation), :mod:`.process` (subprocesses that cannot outlive their test), :mod:`.audit`
(no block left unchecked) and :mod:`.pytest_plugin` (markers, wiring).
"""
