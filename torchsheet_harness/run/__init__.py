"""The run side: evaluators, subprocesses that cannot outlive their test, torchrun and Slurm."""
