"""What the training loop writes to TensorBoard each update: the figures a user tunes a run by."""

from __future__ import annotations

from deepnash.train.config import train_preset
from deepnash.train.logs import RunLog
from deepnash.train.loop import train


def test_every_update_logs_its_rates_and_the_share_of_time_spent_on_games(tmp_path, monkeypatch):
    """Without actors the learner plays its own games, so part of its time goes to them
    (``charts/games_wait_share``, a share of wall time: how large depends on what else the cores
    run, so only its range is checked); with ``--actors`` the same figure says whether they keep up."""
    logged = []
    real = RunLog.scalars
    monkeypatch.setattr(RunLog, "scalars", lambda self, step, values: (logged.append((step, values)),
                                                                        real(self, step, values)))
    cfg = train_preset("tiny", envs=2, batch_games=2, max_steps=40, eval_games=0, checkpoint_minutes=1e6)
    train(cfg, tmp_path / "run", steps=3, progress=False)
    assert [step for step, _ in logged] == [1, 2, 3]
    for _, values in logged:
        assert 0.0 < values["charts/games_wait_share"] <= 1.0, values
        assert values["charts/updates_per_s"] > 0 and values["charts/agent_steps_per_s"] > 0
        assert 0.0 <= values["charts/outside_band"] <= 1.0
        assert 0.0 < values["charts/importance_weight"] <= 1.0 + 1e-6  # games a few updates old weigh less
        assert abs(sum(v for k, v in values.items() if k.startswith("endings/")) - 1.0) < 1e-9
