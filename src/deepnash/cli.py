"""The ``deepnash`` command. Each subcommand imports what it needs when it runs."""

from __future__ import annotations

import json

import typer

app = typer.Typer(
    help="DeepNash for Stratego: rules engine, R-NaD training, agents, arena and play.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """DeepNash for Stratego: rules engine, R-NaD training, agents, arena and play."""


@app.command("random-game")
def random_game(
    variant: str = typer.Option("barrage", help="classic, barrage"),
    seed: int = typer.Option(0, help="seed for both random players"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Play one game between two uniformly random players and print how it ended."""
    from .agents import RandomAgent, play_game
    from .game import get_variant

    game, history = play_game(RandomAgent(), RandomAgent(), get_variant(variant), seed)
    out = game.outcome()
    summary = {"variant": variant, "moves": game.ply, "termination": out.termination.name.lower(),
               "winner": out.winner, "result": out.result()}
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        typer.echo(" ".join(str(r.move) for r in history))
        typer.echo(f"{out.result()} after {game.ply} moves ({summary['termination']})")


def main() -> None:  # pragma: no cover - console entry point
    app()
