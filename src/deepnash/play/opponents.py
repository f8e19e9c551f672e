"""The opponents a browser may pick: an allow-list of agent specs, fixed when the server starts.

A browser names its opponent only by picking one of these strings, which the
server compares as they are; it never hands the server a spec of its own, so
it cannot launch a program (``ucc:PATH``) or load files (``checkpoint:DIR``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..agents.registry import AgentSpecError, describe_agents, make_agent, parse_spec
from ..game.variant import VARIANTS
from .match import default_opponent


def builtin_bots() -> list[str]:
    """The registered agents that play from their bare name, sorted: no path, no file, no options
    (``cautious``, ``greedy``, ``mcts``, ``montecarlo``, ``random``; ``ucc`` and ``checkpoint`` need a
    path and are left out).  ``shipped`` is left out too: its weights are per variant (``opponent_choices``)."""
    bots = []
    for name in describe_agents():
        if name == "shipped":
            continue
        try:
            make_agent(name)
        except AgentSpecError:
            continue
        bots.append(name)
    return bots


def opponent_choices(opponent: str | None = None, allow: Sequence[str] | None = None) -> dict[str, list[str]]:
    """Per variant name, the agent specs a browser may pick, the default first, without repeats.

    Args:
        opponent: the default opponent (any spec: the person running the server chose it); ``None``:
            the first of the offered specs.
        allow: the specs offered; ``None`` or empty: ``default_opponent(variant)`` (the shipped weights for
            the variant when they exist, else ``random``) and every ``builtin_bots()`` bot.

    Raises:
        AgentSpecError: a spec that does not build (each is built once here, so a bad one fails at start-up).
    """
    bots = builtin_bots() if not allow else []
    choices = {}
    for name in VARIANTS:
        offered = [s.strip() for s in allow] if allow else [default_opponent(name), *bots]
        choices[name] = list(dict.fromkeys([opponent.strip(), *offered] if opponent else offered))
    for spec in {s for specs in choices.values() for s in specs}:
        make_agent(spec)
    return choices


def summaries(choices: dict[str, list[str]]) -> dict[str, str]:
    """Each offered spec with its agent's one-line summary (``registry.describe_agents``)."""
    about = describe_agents()
    specs = {s for specs in choices.values() for s in specs}
    return {s: about.get(parse_spec(s).name, "") for s in sorted(specs)}


def refusal(spec: str, variant: str, choices: dict[str, list[str]]) -> str | None:
    """Why ``spec`` may not be played on ``variant`` (the text of the error), or ``None`` when it is offered."""
    offered = choices.get(variant, [])
    if spec in offered:
        return None
    return f"opponent {spec!r} is not offered for {variant} on this server; choose one of: {', '.join(offered)}"
