"""Gravon games replay through the env's action interface: setups from the record, each move as
select + displace, every action inside the legal-action mask, and the env ends (or not) exactly where
the engine's replay of the record does.

By default every second Classic/Barrage game of the largest archive (about 450 games, whether the archives are the
shared months or only the games packaged with deepnash) is replayed;
``DEEPNASH_ALL_GRAVON=1`` replays every game of every archive (about a minute).
"""

import os

import numpy as np

from deepnash.archives import find_archive_dir
from deepnash.env import SetupPool, VectorEnv, move_to_actions
from deepnash.game import RecordError
from deepnash.notation.field import field_placements
from deepnash.notation.gravon import ResultType, read_records
from deepnash.notation.replay import record_variant, replay

ARCHIVES = sorted(find_archive_dir().path.glob("*.zip"))  # the packaged games when nothing is configured
LARGEST = max(ARCHIVES, key=lambda p: p.stat().st_size)  # the packaged games hold one month of Classic


def replay_through_env(record, variant):
    red, blue = field_placements(record.field)
    env = VectorEnv(1, variant, setups=(SetupPool(variant, red[None]), SetupPool(variant, blue[::-1][None])),
                    observe=False, auto_reset=False)
    ended_at = None
    for n, move in enumerate(record.moves, start=1):
        p = int(env.player[0])
        for a in move_to_actions(move, p):
            assert env.mask[0, a], f"{record.source}: move {n} ({move}) action {a} not in the mask"
            env.step(np.array([a]))
        if env.done[0]:
            ended_at = n
            break
    return env, ended_at


FULL = os.environ.get("DEEPNASH_ALL_GRAVON") == "1"


def test_gravon_games_replay_through_actions():
    replayed = flags = 0
    records = [r for r in read_records(ARCHIVES if FULL else [LARGEST], on_error=lambda e: None)
               if r.variant.lower() in ("classic", "barrage")]
    for record in records if FULL else records[::2]:
        variant = record_variant(record, "none")
        try:
            game = replay(record, variant=variant)
        except RecordError:
            continue  # the engine rejects the record itself (checked in tests/notation)
        env, ended_at = replay_through_env(record, variant)
        if game.is_over():
            assert ended_at == game.ply, f"{record.source}: env ended at {ended_at}, engine at {game.ply}"
            assert env.winner[0] == (-1 if game.outcome().winner is None else game.outcome().winner)
            if record.result_type == ResultType.FLAG_CAPTURED:
                assert env.winner[0] == record.winner
                flags += 1
        else:
            assert ended_at is None and env.length[0] == 0
        assert np.array_equal(env.state.board[0], game.state.board[0]), record.source
        replayed += 1
    assert replayed >= (2500 if FULL else 400) and flags >= (500 if FULL else 80)
