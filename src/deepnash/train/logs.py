"""What a training run shows and records: a rich progress bar and TensorBoard scalars (CleanRL-style prefixes)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn


class RunLog:
    """Progress bar on the terminal and TensorBoard event files under ``out/tb``.

    Args:
        out: the run directory.
        total: learner steps to reach (``None`` when the run is bounded by time).
        enabled: False on ranks other than 0 (they log nothing).
        progress: show the progress bar.
        label: the bar's name (``train``, ``pretrain``).
    """

    def __init__(self, out: Path, total: int | None, start: int, enabled: bool = True, progress: bool = True,
                 label: str = "train"):
        self.enabled = enabled
        self.writer = None
        self.bar = None
        if not enabled:
            return
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(out / "tb"))
        if progress:
            self.bar = Progress(TextColumn(f"[bold]{label}"), BarColumn(), TextColumn("{task.description}"),
                                TimeElapsedColumn())
            self.bar.start()
            self.task = self.bar.add_task("", total=total, completed=start)

    def scalars(self, step: int, values: dict[str, float]) -> None:
        """Write ``{"group/name": value}`` at learner step ``step``."""
        if self.writer:
            for k, v in values.items():
                self.writer.add_scalar(k, v, step)

    def progress(self, step: int, games: int, steps_per_s: float, extra: str = "", unit: str = "agent steps/s") -> None:
        """Move the bar to ``step`` and show games played and the rate (``unit``, agent steps per second by default)."""
        if self.bar:
            self.bar.update(self.task, completed=step,
                            description=f"step {step}  games {games}  {steps_per_s:,.0f} {unit}  {extra}")

    def message(self, text: str) -> None:
        """A line above the bar, or on stderr without one (stdout stays the command's output; rank 0 only)."""
        if not self.enabled:
            return
        if self.bar:
            self.bar.console.print(text)
        else:
            print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        """Flush the event files and stop the bar."""
        if self.bar:
            self.bar.stop()
        if self.writer:
            self.writer.close()
