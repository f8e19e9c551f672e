"""docs/journal/scripts/setup_record.py: a setup's track record is counted over both sides, mirrors share it, and a
fitted game's own result never enters its features."""

import importlib.util
from pathlib import Path

import numpy as np

from deepnash.train.human import HumanGame

_spec = importlib.util.spec_from_file_location(
    "setup_record", Path(__file__).resolve().parents[2] / "docs" / "journal" / "scripts" / "setup_record.py")
setup_record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(setup_record)


def _setup(seed: int) -> np.ndarray:
    s = np.full(100, -1, np.int8)
    s[:40] = np.random.default_rng(seed).permutation(np.arange(40) % 12)
    return s


def _game(key: str, red: np.ndarray, blue: np.ndarray, winner: int) -> HumanGame:
    return HumanGame(key=key, variant="classic", setup=np.stack([red, blue]), moves=np.zeros((0, 2), np.int16),
                     winner=winner)


def test_a_setup_and_its_mirror_image_share_one_record_over_both_sides():
    a, b, c = _setup(1), _setup(2), _setup(3)
    mirrored = a.copy()
    mirrored[:40] = a[:40].reshape(4, 10)[:, ::-1].ravel()
    assert setup_record.setup_key(mirrored) == setup_record.setup_key(a) != setup_record.setup_key(b)
    games = [_game("g0", a, b, 0), _game("g1", c, mirrored, 1), _game("g2", a, c, 1)]
    played, won = setup_record.records(games)
    key = setup_record.setup_key(a)
    assert (played[key], won[key]) == (3, 2)  # won as Red in g0 and as Blue (mirrored) in g1, lost in g2
    assert (played[setup_record.setup_key(c)], won[setup_record.setup_key(c)]) == (2, 1)


def test_a_fitted_games_own_result_is_left_out_and_the_mover_alternates():
    a, b = _setup(1), _setup(2)
    games = [_game("g0", a, b, 0), _game("g1", a, b, 0)]
    played, won = setup_record.records(games)
    at = {"game": np.array([0, 0, 1]), "ply": np.array([0, 1, 4])}
    own = setup_record.record_features(games, at, played, won, leave_out=True, both=True)
    # Left out, each game sees one other game: Red's setup a won it, Blue's b lost it.
    red = [np.log(2 / 1), 1, np.log(2)]
    blue = [np.log(1 / 2), 1, np.log(2)]
    np.testing.assert_allclose(own, [red + blue, blue + red, red + blue], rtol=1e-6)
    # Not left out (held-out games are not among the counted ones), the same game counts twice.
    kept = setup_record.record_features(games, at, played, won, leave_out=False, both=False)
    np.testing.assert_allclose(kept[0], [np.log(3 / 1), 1, np.log(3)], rtol=1e-6)
