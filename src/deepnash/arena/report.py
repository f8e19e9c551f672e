"""Tournament results as terminal tables: the paper's Table 1 layout (games, wins, draws, losses) and ratings."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from .match import TournamentResult


def print_tournament(result: TournamentResult, console: Console | None = None) -> None:
    """Print one row per pair (from the first agent's view, 95% Wilson interval of its win rate),
    how its games ended, each agent's thinking time a game, the reasons of forfeited games, and for three or
    more agents the rating table."""
    console = console or Console()
    table = Table(title="Matches (from A's view)")
    for col in ("A", "B", "games", "wins", "draws", "losses", "win rate [95%]", "red/blue", "plies"):
        table.add_column(col, justify="left" if col in ("A", "B") else "right")
    for m in result.matches:
        d = m.to_dict()
        table.add_row(
            m.a, m.b, str(d["games"]), str(d["wins"]), str(d["draws"]), str(d["losses"]),
            f"{d['win_rate']:.2f} [{d['win_low']:.2f}, {d['win_high']:.2f}]",
            f"{d['a_red_wins']}/{d['a_blue_wins']}", f"{d['mean_plies']:.0f}",
        )
    console.print(table)
    for m in result.matches:
        ways = ", ".join(f"{name} {row.get('wins', 0)}-{row.get('draws', 0)}-{row.get('losses', 0)}"
                         for name, row in m.endings.items())
        console.print(f"endings {m.a} vs {m.b} (wins-draws-losses): {ways}")
        t = m.seconds
        console.print(f"thinking time a game: {m.a} {t['a_mean']:.1f} s (most {t['a_max']:.1f} s), "
                      f"{m.b} {t['b_mean']:.1f} s (most {t['b_max']:.1f} s)")
        for reason in m.failures:
            console.print(f"forfeit: {reason}")
    if result.ratings:
        ratings = Table(title="Bradley–Terry ratings (Elo scale, mean 0, 95% bootstrap interval)")
        for col in ("agent", "rating", "low", "high"):
            ratings.add_column(col, justify="left" if col == "agent" else "right")
        for r in sorted(result.ratings, key=lambda r: -r["rating"]):
            ratings.add_row(r["agent"], f"{r['rating']:+.0f}", f"{r['low']:+.0f}", f"{r['high']:+.0f}")
        console.print(ratings)
