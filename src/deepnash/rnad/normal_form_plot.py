"""Figure of normal-form R-NaD (the paper's Fig. 3C): policy paths and the log-Lyapunov curve."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .normal_form import Iteration


def save_plot(iterations: list[Iteration], path: str | Path, action_names: tuple[str, ...] = ("H", "T")) -> None:
    """Save a PNG: left, each player's probability of its first action along the dynamics
    (iterations one after another in dynamics time); right, ``log H`` over the same time.

    Raises:
        ValueError: if ``iterations`` is empty.
    """
    if not iterations:
        raise ValueError("save_plot: no iteration to plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_pi, ax_h) = plt.subplots(1, 2, figsize=(10, 4))
    offset = 0.0
    for m, it in enumerate(iterations):
        t = it.times + offset
        for i, style in ((0, "-"), (1, "--")):
            label = f"player {i}: pi({action_names[0]})" if m == 0 else None
            ax_pi.plot(t, it.path[i][:, 0], style, color=f"C{i}", label=label)
        positive = it.lyapunov > 0
        ax_h.plot(t[positive], np.log(it.lyapunov[positive]), color="C2")
        ax_pi.axvline(offset, color="grey", lw=0.5)
        ax_h.axvline(offset, color="grey", lw=0.5)
        offset = t[-1]
    ax_pi.set(xlabel="dynamics time tau", ylabel="probability", ylim=(0, 1), title="policies")
    ax_pi.legend()
    ax_h.set(xlabel="dynamics time tau", ylabel="log H", title="log Lyapunov function")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
