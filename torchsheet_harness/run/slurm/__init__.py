"""A private two-node Slurm cluster on this machine, and the evaluator of ``needs-slurm`` blocks."""
