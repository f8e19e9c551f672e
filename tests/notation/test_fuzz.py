"""Malformed input, generated: every parser raises the library's own error type (``StrategoError`` or
``AgentSpecError``, both ``ValueError`` s), never another exception.

Inputs are random text and random mutations of valid text (a character changed, a piece cut
out, a piece repeated), which reach deeper into each parser than random text alone.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deepnash.agents.registry import AgentSpecError, make_agent
from deepnash.game import Game, StrategoError
from deepnash.notation import format_xml, game_from_position, parse_setup, position_string, record_from_game
from deepnash.notation.gravon import parse_records
from deepnash.notation.ucc import parse_move, parse_move_line, parse_setup as parse_ucc_setup

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_game = Game("barrage", seed=4)
for _ in range(12):
    _game.push(_game.legal_moves()[0])
VALID = {
    "position": position_string(_game),
    "xml": format_xml(record_from_game(_game)),
    "setup": "2S32M9B237/4523B6B542/6B37822436/8B5F4B7625",
    "move_line": "3 6 DOWN KILLS 5 3",
    "spec": "mcts:sims=20,depth=4",
}


@st.composite
def mutated(draw, text: str):
    """``text`` with a few random edits: replace, delete or duplicate a slice."""
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, max(len(text) - 1, 0)))
        j = min(len(text), i + draw(st.integers(0, 8)))
        kind = draw(st.sampled_from(["replace", "delete", "repeat"]))
        if kind == "replace":
            text = text[:i] + draw(st.text(max_size=4)) + text[j:]
        elif kind == "delete":
            text = text[:i] + text[j:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    return text


def inputs(name: str):
    return st.one_of(st.text(max_size=80), mutated(VALID[name]))


@FUZZ
@given(inputs("position"))
def test_position_strings(text):
    try:
        game_from_position(text)
    except StrategoError:
        pass


@FUZZ
@given(inputs("xml"))
def test_gravon_xml(text):
    try:
        parse_records(text, "fuzz.xml")
    except StrategoError as e:
        assert "fuzz.xml" in str(e)


@FUZZ
@given(inputs("setup"))
def test_setups(text):
    try:
        parse_setup(text, "classic")
    except StrategoError:
        pass


@FUZZ
@given(inputs("move_line"), st.lists(st.text(max_size=12), max_size=5), st.integers(0, 1))
def test_ucc_lines(line, rows, player):
    for parse in (parse_move, parse_move_line):
        try:
            parse(line)
        except StrategoError:
            pass
    try:
        parse_ucc_setup(rows, player)
    except StrategoError:
        pass


@FUZZ
@given(inputs("spec").filter(lambda s: not s.lower().lstrip().startswith(("ucc", "checkpoint", "net", "shipped"))))
def test_agent_specs(text):
    try:
        make_agent(text)
    except AgentSpecError:
        pass


_MANIFEST_RUNS: dict = {}


def _checkpoint_dir():
    """One small checkpoint, written once (hypothesis reruns the test body many times)."""
    if "dir" not in _MANIFEST_RUNS:
        import tempfile

        import torch

        from deepnash.nn.checkpoint import save_checkpoint

        root = tempfile.mkdtemp(prefix="fuzz-ckpt-")
        path = save_checkpoint(root, 7, {"online": {"w": torch.arange(6.0)}}, {"net": {"channels": 2}})
        _MANIFEST_RUNS["dir"] = path
        _MANIFEST_RUNS["text"] = (path / "manifest.json").read_text()
    return _MANIFEST_RUNS["dir"], _MANIFEST_RUNS["text"]


@FUZZ
@given(st.data())
def test_checkpoint_manifests(data):
    """A damaged manifest is refused with ``CheckpointError``; the weights file is never touched."""
    from deepnash.nn.checkpoint import CheckpointError, load_checkpoint

    path, good = _checkpoint_dir()
    weights = (path / "online.safetensors").read_bytes()
    text = data.draw(st.one_of(st.text(max_size=60), mutated(good)))
    (path / "manifest.json").write_text(text)
    try:
        load_checkpoint(path)
    except CheckpointError:
        pass
    finally:
        (path / "manifest.json").write_text(good)
    assert (path / "online.safetensors").read_bytes() == weights
