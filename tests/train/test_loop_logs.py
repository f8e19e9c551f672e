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


def test_a_run_whose_games_will_be_stale_says_so(tmp_path, capsys):
    """Games in flight over games an update is about how many updates old a game is when the learner reads
    it; above eight, ``train`` says so on stderr, naming the flags that keep games fresher."""
    assert train_preset("tiny", actors=14, envs=32, batch_games=8).games_in_flight == 14 * 32 + 64
    assert train_preset("tiny", actors=0, envs=32).games_in_flight == 32
    for envs, stale in ((18, True), (2, False)):
        cfg = train_preset("tiny", envs=envs, batch_games=2, max_steps=20, eval_games=0, checkpoint_minutes=1e6)
        train(cfg, tmp_path / f"run{envs}", steps=1, progress=False)
        err = capsys.readouterr().err
        assert ("updates old" in err and "--batch-games" in err) == stale, err
