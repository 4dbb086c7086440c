"""torchsheet's test harness: turns the MyST pages in docs/ into pytest items, and shows on the
site what the tests found.

Data flows one way, page → example → evaluator → result: :mod:`.requirements` (what a block
needs), :mod:`.page_parser` (page → examples), :mod:`.evaluators` (run one example),
:mod:`.torchrun_launcher` and :mod:`.slurm_launcher` / :mod:`.slurm_cluster` (multi-process
examples), :mod:`.process` (subprocesses that cannot outlive their test), :mod:`.page_state`
(per-page isolation), :mod:`.audit` (no block left unchecked), :mod:`.self_contained` (GPU blocks
run alone), :mod:`.block_lint`, :mod:`.pytest_plugin` (markers, wiring), :mod:`.results_file`
(what a run verified), :mod:`.sphinx_badges` and :mod:`.built_site` (the site and its tests).
"""
