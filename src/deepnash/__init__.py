"""deepnash: DeepNash for Stratego.

A fast rules engine (Numba kernels over batched NumPy state), the paper's
observation and action space, a game-agnostic R-NaD learner, and the agents,
arena and play front-ends built on them.
"""

__version__ = "0.1.0"
