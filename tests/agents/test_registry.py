"""Agent specs: parsing, option types and aliases, and the errors for bad specs."""

import pytest

from deepnash.agents.registry import AgentSpecError, describe_agents, make_agent, parse_spec, register_agent


def test_parse_spec_splits_name_path_and_options():
    s = parse_spec(" UCC:/opt/bots/vixen,timeout=2.5 ")
    assert (s.name, s.path, s.options) == ("ucc", "/opt/bots/vixen", {"timeout": "2.5"})
    assert parse_spec("mcts").options == {}


def test_make_agent_converts_options_to_the_factory_types_and_names_the_agent_by_its_spec():
    a = make_agent("mcts:iterations=30,c=0.5,determinizations=3")
    assert (a.sims, a.c, a.determinizations) == (30, 0.5, 3)
    assert a.name == "mcts:iterations=30,c=0.5,determinizations=3"
    assert make_agent("montecarlo:samples=7").samples == 7


@pytest.mark.parametrize("spec, words", [
    ("nonsense", "unknown agent"),
    ("greedy:depth=3", "unknown option 'depth'"),
    ("mcts:sims=lots", "not a int"),
    ("ucc", "needs a path"),
    ("greedy:/some/path", "takes options"),
    (":x", "no agent name"),
    ("ucc:/a,/b", "two paths"),
])
def test_bad_specs_raise_a_specific_error(spec, words):
    with pytest.raises(AgentSpecError, match=words):
        make_agent(spec)


@pytest.mark.parametrize("spec", ["mcts:sims=0", "mcts:depth=0,sims=0", "montecarlo:samples=0"])
def test_bad_option_values_are_rejected_by_the_agent_as_spec_errors(spec):
    """The agent refuses the value (a plain ``ValueError``); ``make_agent`` reports it as the spec's fault."""
    with pytest.raises(AgentSpecError, match=f"agent spec '{spec}'.*(sims|samples)"):
        make_agent(spec)


def test_register_agent_adds_a_factory_with_typed_options():
    class Dummy:
        name = "dummy"

        def __init__(self, path, strength: int = 1, fast: bool = False):
            self.path, self.strength, self.fast = path, strength, fast

    register_agent("dummy-test", Dummy, takes_path=True, aliases={"level": "strength"}, summary="test")
    a = make_agent("dummy-test:/x,level=4,fast=yes")
    assert (a.path, a.strength, a.fast) == ("/x", 4, True)
    assert describe_agents()["dummy-test"] == "test"
    with pytest.raises(ValueError):
        register_agent("bad:name", Dummy)


def test_a_positional_option_and_on_off_switches():
    seen = {}

    def factory(variant: str = "barrage", fast: bool = False):
        seen.update(variant=variant, fast=fast)
        from deepnash.agents import RandomAgent
        return RandomAgent()

    register_agent("positional-test", factory, positional="variant")
    make_agent("positional-test:classic,fast=on")
    assert seen == {"variant": "classic", "fast": True}
    make_agent("positional-test:fast=off")
    assert seen == {"variant": "barrage", "fast": False}
    with pytest.raises(AgentSpecError, match="given twice"):
        make_agent("positional-test:classic,variant=barrage")
