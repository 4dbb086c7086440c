"""A private two-node Slurm cluster on this machine (:mod:`.cluster`), its configuration as pure
functions (:mod:`.conf`), batch jobs (:mod:`.jobs`) and the evaluator of ``needs-slurm`` blocks
(:mod:`.block`).
"""
