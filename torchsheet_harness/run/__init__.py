"""The run side: evaluators for one example (:mod:`.evaluators`), subprocesses that cannot
outlive their test (:mod:`.process`), launches by torchrun (:mod:`.torchrun`) and on a private
Slurm cluster (:mod:`.slurm`).
"""
