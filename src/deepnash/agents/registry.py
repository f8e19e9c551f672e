"""Agent specs: strings such as ``greedy``, ``mcts:sims=200`` or ``ucc:/path/to/bot`` turned into agents.

Every command that takes players (the arena, ``ucc-bot``, play) takes spec
strings, so a spec travels to worker processes as plain text.

Grammar: ``NAME[:ITEM[,ITEM...]]`` where an ``ITEM`` is ``key=value`` (an
option of the agent) or, for agents that need one, a path (``ucc:PATH``,
``net:PATH``).  An agent's options are its factory's keywords with defaults,
plus every field of the configuration dataclasses it registers with
(``configs``: the network agent's ``TestTimeConfig`` and ``SearchConfig``), so
each option is declared once, where its default lives.  Values are converted
to the type of that default (``int``, ``float``, ``bool``, ``str``); a
configuration that rejects its values (its ``__post_init__``) makes the spec
invalid.  This is the one parser of agent options.

Other modules add agents with ``register_agent``; agents living in modules
that should not be imported up front (the network agent pulls in torch) are
listed in ``PROVIDERS`` and imported the first time their name is asked for.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields

from .base import Agent
from .random_agent import RandomAgent


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: agent ``name``, optional positional ``path``, and ``options`` as strings."""

    name: str
    path: str | None = None
    options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Agent]
    takes_path: bool
    aliases: dict[str, str]
    summary: str
    positional: str | None
    configs: dict[str, type]
    defaults: Callable[[dict[str, str]], dict[str, str]] | None = None
    help: Mapping[str, str] = field(default_factory=dict)

    def options(self) -> dict[str, tuple[str | None, object]]:
        """Option name -> (the config keyword it belongs to, or ``None`` for the factory's own; its default)."""
        table: dict[str, tuple[str | None, object]] = {
            k: (None, p.default) for k, p in inspect.signature(self.factory).parameters.items()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty
            and k not in self.configs
        }
        for keyword, cls in self.configs.items():
            for f in fields(cls):
                default = f.default if f.default is not MISSING else f.default_factory()
                table[f.name] = (keyword, default)
        return table


_REGISTRY: dict[str, _Entry] = {}

#: Agent name -> module that registers it when imported (lazy: imported on first use).
PROVIDERS: dict[str, str] = {
    "greedy": "deepnash.agents.heuristic",
    "cautious": "deepnash.agents.heuristic",
    "turtle": "deepnash.agents.passive",
    "sure": "deepnash.agents.passive",
    "montecarlo": "deepnash.agents.montecarlo",
    "mcts": "deepnash.agents.mcts",
    "alphabeta": "deepnash.agents.alphabeta",
    "ucc": "deepnash.agents.ucc",
    # The network agent registers these from its own module (it imports torch).
    "checkpoint": "deepnash.agents.network_agent",
    "shipped": "deepnash.agents.network_agent",
}

#: Other names of agents: ``net:PATH`` is ``checkpoint:PATH``.
NAME_ALIASES: dict[str, str] = {"net": "checkpoint"}


class AgentSpecError(ValueError):
    """A spec string that names no known agent or gives it bad options."""


def register_agent(
    name: str,
    factory: Callable[..., Agent],
    *,
    takes_path: bool = False,
    aliases: dict[str, str] | None = None,
    summary: str = "",
    positional: str | None = None,
    configs: Mapping[str, type] | None = None,
    defaults: Callable[[dict[str, str]], dict[str, str]] | None = None,
    help: Mapping[str, str] | None = None,
) -> None:
    """Make ``name`` available to ``make_agent``.

    Args:
        name: the spec name (lower case, no ``:``).
        factory: called as ``factory(path, **options)`` when ``takes_path``,
            else ``factory(**options)``; must return an ``Agent``.  Its keyword
            defaults give the option types.
        takes_path: the spec carries a required path (``ucc:PATH``).
        aliases: other option names accepted for a keyword, e.g. ``{"iterations": "sims"}``.
        summary: one line shown by ``describe_agents``.
        positional: an option that a bare item sets, e.g. ``"variant"`` so that
            ``shipped:classic`` means ``shipped:variant=classic``.
        configs: factory keyword -> a dataclass whose fields are options too; the
            factory gets an instance built from those options (defaults for the rest).
        defaults: called with the options a spec gives (strings, the positional one included); returns
            options, as strings, that the agent takes where the spec gives none (e.g. per variant:
            ``shipped:classic`` reads them beside its weights).  They are checked like the spec's own.
        help: the factory's own options -> one line each (``agent_options``; the configs' fields carry theirs).

    Raises:
        ValueError: if ``name`` is empty or contains ``:`` or ``,``, or two options share a name.
    """
    if not name or any(c in name for c in ":,= "):
        raise ValueError(f"agent name {name!r} must be non-empty and contain no ':', ',', '=' or space")
    entry = _Entry(factory, takes_path, dict(aliases or {}), summary, positional, dict(configs or {}), defaults,
                   dict(help or {}))
    names = [n for cls in entry.configs.values() for n in (f.name for f in fields(cls))]
    own = set(entry.options()) - set(names)
    clash = sorted({n for n in names if names.count(n) > 1 or n in own})
    if clash:
        raise ValueError(f"agent {name!r}: option names declared twice: {', '.join(clash)}")
    _REGISTRY[name.lower()] = entry


def parse_spec(spec: str) -> AgentSpec:
    """Split a spec string into name, path and options (no checking against the registry).

    Raises:
        AgentSpecError: for an empty name, an empty option, or two paths.
    """
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if not name:
        raise AgentSpecError(f"agent spec {spec!r}: no agent name before ':'")
    path = None
    options: dict[str, str] = {}
    for item in (rest.split(",") if rest else []):
        key, eq, value = item.partition("=")
        if not eq:
            if path is not None:
                raise AgentSpecError(f"agent spec {spec!r}: two paths ({path!r}, {item!r})")
            path = item
        elif not key.strip():
            raise AgentSpecError(f"agent spec {spec!r}: option {item!r} has no name")
        else:
            options[key.strip().lower()] = value.strip()
    return AgentSpec(name, path, options)


def _lookup(name: str) -> _Entry:
    name = NAME_ALIASES.get(name, name)
    if name not in _REGISTRY and name in PROVIDERS:
        try:
            importlib.import_module(PROVIDERS[name])
        except ModuleNotFoundError as e:
            raise AgentSpecError(f"agent {name!r} is not available: module {e.name!r} is missing") from e
    if name not in _REGISTRY:
        known = ", ".join(sorted(set(_REGISTRY) | set(PROVIDERS) | set(NAME_ALIASES)))
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {known}")
    return _REGISTRY[name]


def _convert(spec: str, key: str, value: str, default: object) -> object:
    try:
        if isinstance(default, bool):
            low = value.lower()
            if low not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(value)
            return low in ("1", "true", "yes", "on")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise AgentSpecError(
            f"agent spec {spec!r}: option {key}={value!r} is not a {type(default).__name__}"
        ) from None
    return value


def _resolve(spec: str) -> tuple[_Entry, AgentSpec, dict[str, object], dict[str, dict[str, object]]]:
    """``spec`` parsed and its options converted: ``(entry, spec, the factory's own options, each config's)``.

    Raises:
        AgentSpecError: unknown agent or option, or a value of the wrong type.
    """
    parsed = parse_spec(spec)
    entry = _lookup(parsed.name)
    if entry.positional and parsed.path is not None:
        if entry.positional in parsed.options:
            raise AgentSpecError(f"agent spec {spec!r}: {entry.positional!r} given twice")
        parsed = AgentSpec(parsed.name, None, {**parsed.options, entry.positional: parsed.path})
    if entry.defaults is not None:
        given = {entry.aliases.get(k, k): v for k, v in parsed.options.items()}
        parsed = AgentSpec(parsed.name, parsed.path, {**entry.defaults(dict(parsed.options)), **given})
    table = entry.options()
    kwargs: dict[str, object] = {}
    grouped: dict[str, dict[str, object]] = {keyword: {} for keyword in entry.configs}
    for key, value in parsed.options.items():
        key = entry.aliases.get(key, key)
        if key not in table:
            known = ", ".join(sorted(set(table) | set(entry.aliases))) or "none"
            raise AgentSpecError(f"agent spec {spec!r}: unknown option {key!r} for {parsed.name!r}; options: {known}")
        keyword, default = table[key]
        (kwargs if keyword is None else grouped[keyword])[key] = _convert(spec, key, value, default)
    return entry, parsed, kwargs, grouped


def make_agent(spec: str) -> Agent:
    """Build the agent a spec string describes.

    Examples: ``random``, ``greedy``, ``cautious``, ``montecarlo:samples=20``,
    ``mcts:sims=200``, ``ucc:/path/to/bot,timeout=2``, ``net:runs/ckpt``.

    The agent's ``name`` is set to the spec string, so tables show exactly
    what was played.

    Raises:
        AgentSpecError: unknown agent, unknown option, a value of the wrong
            type or one the agent refuses (its plain ``ValueError``), or a
            missing/unexpected path.
    """
    entry, parsed, kwargs, grouped = _resolve(spec)
    if entry.takes_path and not parsed.path:
        raise AgentSpecError(f"agent spec {spec!r}: {parsed.name!r} needs a path, e.g. {parsed.name}:PATH")
    if not entry.takes_path and parsed.path is not None:
        raise AgentSpecError(f"agent spec {spec!r}: {parsed.name!r} takes options key=value, not {parsed.path!r}")
    try:  # a config or the agent refusing an option's value is the spec's fault
        for keyword, cls in entry.configs.items():
            kwargs[keyword] = cls(**grouped[keyword])
        agent = entry.factory(parsed.path, **kwargs) if entry.takes_path else entry.factory(**kwargs)
    except ValueError as e:
        if type(e) is not ValueError:  # a more specific error (e.g. CheckpointError) says what it is itself
            raise
        raise AgentSpecError(f"agent spec {spec!r}: {e}") from None
    agent.name = spec.strip()
    return agent


def agent_options(spec: str) -> list[tuple[str, object, str]]:
    """``(option, value, help)`` for every option of the agent ``spec`` names, with the value it would play (the
    spec's, else the agent's defaults, such as a shipped agent's ``agent.json``, else the code's); the help is the
    config field's ``metadata["help"]`` (empty where it has none).

    Raises:
        AgentSpecError: as ``make_agent``, for the spec's options.
    """
    entry, _, kwargs, grouped = _resolve(spec)
    rows = []
    for name, (keyword, default) in entry.options().items():
        if keyword is None:
            rows.append((name, kwargs.get(name, default), entry.help.get(name, "")))
    try:
        for keyword, cls in entry.configs.items():
            config = cls(**grouped[keyword])
            rows += [(f.name, getattr(config, f.name), f.metadata.get("help", "")) for f in fields(config)]
    except ValueError as e:
        raise AgentSpecError(f"agent spec {spec!r}: {e}") from None
    return rows


def describe_agents() -> dict[str, str]:
    """Every agent name importable now, with its one-line summary (providers that fail to import are left out)."""
    for name in PROVIDERS:
        try:
            _lookup(name)
        except AgentSpecError:
            pass
    return {name: e.summary for name, e in sorted(_REGISTRY.items())}


register_agent("random", RandomAgent, summary="uniformly random legal moves and setups")
