"""Learning from human games: the decision stream, behaviour cloning, move-matching and R-NaD from the human prior."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from deepnash.agents import MoveRecord, PlayerView
from deepnash.agents.network_agent import load_network
from deepnash.cli import app
from deepnash.env.actions import deploy_order
from deepnash.env.planes import P_PRIVATE
from deepnash.game import Game, get_variant
from deepnash.infostate.observe import observe_view
from deepnash.nn import DeepNashNet, get_preset
from deepnash.nn.checkpoint import load_checkpoint, save_agent
from deepnash.train.human import DEPLOY, DISPLACE, SELECT, HumanDecisions, load_games, split_games
from deepnash.train.config import PRIOR_NEURD_BETA, train_preset
from deepnash.train.pretrain import PretrainConfig, imitation_metrics, mirror_batch, pretrain, value_loss, value_targets

torch.set_num_threads(1)
SAMPLE = Path(__file__).parent / "data" / "gravon-sample.zip"  # 12 Classic and 4 Barrage games of 2014-3
BROKEN = Path(__file__).parents[1] / "notation" / "data" / "broken-move.xml"


@pytest.fixture(scope="module")
def classic():
    return load_games(SAMPLE, "classic")


def test_load_games_keeps_one_variant_and_counts_the_rest():
    skipped = Counter()
    games = load_games([SAMPLE, BROKEN.parent], "classic", skipped)
    assert sum(g.key.startswith("gravon-sample") for g in games) == 12
    assert skipped["other_variant"] >= 4 and skipped["unreadable"] >= 1 and skipped["unsupported"] >= 1
    with pytest.raises(ValueError, match="unknown variant"):
        load_games(SAMPLE, "chess")


@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_every_decision_of_both_players_is_emitted_as_the_agent_sees_it(variant):
    games = load_games(SAMPLE, variant)
    stream = HumanDecisions(games, variant, batch_size=100, slots=5, shuffle=False)
    batches = list(stream)
    n = sum(len(x) for x in batches)
    assert n == stream.decisions == sum(g.decisions for g in games) and stream.games_done == len(games)
    assert not stream.skipped
    for x in batches:
        rows = np.arange(len(x))
        assert x.mask[rows, x.action].all() and x.target[rows, x.action].all()
        assert not (x.target & ~x.mask).any()
        moves = x.phase != DEPLOY
        assert (x.target[moves].sum(1) == 1).all()
        winners = np.array([games[i].winner for i in x.game])
        assert np.isin(x.value, (-1.0, 0.0, 1.0)).all() and np.array_equal(x.value == 0, winners < 0)
    assert Counter(int(p) for x in batches for p in x.phase) == {
        DEPLOY: sum(int((g.setup >= 0).sum()) for g in games),
        SELECT: sum(len(g.moves) for g in games), DISPLACE: sum(len(g.moves) for g in games)}


@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_every_value_target_is_the_result_from_the_movers_side(variant):
    """Records won by Red and by Blue, replayed one at a time in order: each decision's target is +1 if its
    mover won, -1 if the mover lost (the mover read from the replay order: Red then Blue deploy in turn, then
    Red moves first; and from the engine's own replay for the winner), and mirroring leaves it as it is."""
    from deepnash.archives import packaged_archive_dir
    from deepnash.notation.gravon import read_records, replay

    archive = packaged_archive_dir() / ("strados2014-0.zip" if variant == "classic" else "strados2014-1.zip")
    engine_winner = {}  # games the rules themselves end, by the winner the engine finds
    for record in read_records(archive):
        outcome = replay(record).outcome() if record.variant == variant else None
        if outcome is not None and outcome.winner is not None and list(engine_winner.values()).count(outcome.winner) < 2:
            engine_winner[f"{Path(record.source).name}#{record.game}"] = outcome.winner
        if len(engine_winner) == 4:
            break
    decided = [g for g in load_games(archive, variant) if g.key in engine_winner]
    assert sorted(g.winner for g in decided) == [0, 0, 1, 1]
    assert all(g.winner == engine_winner[g.key] for g in decided)
    n = len(deploy_order(get_variant(variant)))
    for g in decided:
        stream = HumanDecisions([g], variant, batch_size=64, slots=1, shuffle=False)
        batches = list(stream)
        value, obs = np.concatenate([b.value for b in batches]), np.concatenate([b.obs for b in batches])
        own = np.concatenate([b.own_types for b in batches])
        opponent = np.concatenate([b.opponent_types for b in batches])
        for t in range(12):  # the true types are in the mover's frame: its own match its private planes
            assert np.array_equal(obs[:, P_PRIVATE + t].reshape(-1, 100) > 0.5, own == t), (g.key, t)
        moving = np.arange(len(value)) >= 2 * n
        assert ((own >= 0).sum(1)[moving] > 0).all() and ((opponent >= 0).sum(1)[moving] > 0).all()
        assert not ((own >= 0) & (opponent >= 0)).any()
        mover = np.concatenate([np.arange(2 * n) % 2, (np.arange(len(g.moves)) % 2).repeat(2)])
        assert len(value) == len(mover) == g.decisions
        assert np.array_equal(value, np.where(mover == g.winner, 1.0, -1.0)), g.key
        mirrored = torch.from_numpy(obs.astype(np.float32))  # value is not an input of mirror_batch: untouched
        mask = torch.ones(len(obs), 100, dtype=torch.bool)
        mirror_batch(mirrored, mask, mask.clone(), torch.arange(len(obs)))
        planes = slice(P_PRIVATE, P_PRIVATE + 12)  # the mover's own pieces: the same count, mirrored or not
        assert np.array_equal(mirrored[:, planes].sum(dim=(2, 3)).numpy(), obs[:, planes].sum(axis=(2, 3)))


@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_origins_and_evidence_follow_every_opponent_piece_as_the_engine_does(variant):
    """The slow way: replay each record through ``Game`` to a ply; every opponent piece's deployment square
    holds its type in the opponent's setup, an unmoved piece is where it was deployed, and the evidence on
    its deployment square is its type once revealed, ``MOVED`` once moved, nothing before; the pieces taken
    are the typed evidence on squares no piece left, with the types the board lacks."""
    import dataclasses

    from deepnash.infostate.setup_library import MOVED, NOT_DEPLOYED
    from deepnash.notation.gravon import read_records, replay

    games = load_games(SAMPLE, variant)[:4]
    records = {f"{Path(r.source).name}#{r.game}": r for r in read_records(SAMPLE)}
    batches = list(HumanDecisions(games, variant, batch_size=128, slots=3, shuffle=False, phases=(SELECT,)))
    rows = {(int(b.game[i]), int(b.ply[i])): (b, i) for b in batches for i in range(len(b))}
    checked = 0
    for k, g in enumerate(games):
        n = len(g.moves)
        for ply in sorted({0, n // 4, n // 2, 3 * n // 4, n - 1}):
            b, i = rows[k, ply]
            game = replay(dataclasses.replace(records[g.key], moves=records[g.key].moves[:ply]))
            mover = game.turn
            setup = g.setup[1 - mover]  # the opponent's, in its own frame: its square o is the mover's 99 - o
            origins, evidence = b.opponent_origins[i], b.opponent_evidence[i]
            on_board = []
            for a in range(100):
                piece = game.piece_at(a)
                f = a if mover == 0 else 99 - a
                if piece is None or piece.player == mover:
                    assert origins[f] == -1
                    continue
                o = int(origins[f])
                assert 60 <= o < 100 and setup[99 - o] == piece.type, (g.key, ply, a)
                assert piece.moved or o == f
                expected = int(piece.type) if piece.revealed else MOVED if piece.moved else -1
                assert evidence[o] == expected, (g.key, ply, a)
                on_board.append(o)
            zone = np.arange(60, 100)
            assert np.array_equal(evidence[zone] == NOT_DEPLOYED, setup[99 - zone] < 0)
            taken = [o for o in zone if 0 <= evidence[o] < 12 and o not in on_board]
            deployed = Counter(int(t) for t in setup if t >= 0)
            left = Counter(int(setup[99 - o]) for o in on_board)
            assert Counter(int(evidence[o]) for o in taken) == deployed - left, (g.key, ply)
            assert all(setup[99 - o] == evidence[o] for o in taken)
            checked += 1
    assert checked >= 15


def test_a_sampled_stream_emits_a_share_of_the_same_decisions(classic):
    """``sample``: about that share of the decisions, each one exactly as the full stream emits it (the
    observations encoded one by one then equal the kernel's batch encoding); ``phases``: those of the
    phases asked for, all of them."""
    def by_key(stream):
        out = {}
        for x in stream:
            for i in np.flatnonzero(x.phase != DEPLOY):
                out[(int(x.game[i]), int(x.ply[i]), int(x.phase[i]))] = (x.obs[i], x.value[i], x.target[i],
                                                                          x.opponent_types[i])
        return out, stream

    full, _ = by_key(HumanDecisions(classic, "classic", batch_size=64, slots=5, shuffle=False))
    some, stream = by_key(HumanDecisions(classic, "classic", batch_size=64, slots=12, shuffle=True, sample=0.25))
    assert 0.2 < len(some) / len(full) < 0.3 and stream.games_done == len(classic)
    for key, (obs, value, target, truth) in some.items():
        assert np.array_equal(obs, full[key][0]) and value == full[key][1], key
        assert np.array_equal(target, full[key][2]) and np.array_equal(truth, full[key][3])
    with pytest.raises(ValueError, match="sample must be in"):
        HumanDecisions(classic, "classic", sample=0.0)
    selections, stream = by_key(HumanDecisions(classic, "classic", batch_size=64, slots=7, phases=(SELECT,)))
    assert set(selections) == {k for k in full if k[2] == SELECT} and stream.games_done == len(classic)
    for key, (obs, value, target, truth) in selections.items():
        assert np.array_equal(obs, full[key][0]) and np.array_equal(target, full[key][2])
    with pytest.raises(ValueError, match="phases must be"):
        HumanDecisions(classic, "classic", phases=())


def test_deployment_targets_are_the_recorded_setup(classic):
    """Replaying only the deployment steps of one game: each target set is exactly the squares of
    the player's recorded setup that hold the type being placed and are still empty."""
    g = classic[0]
    stream = HumanDecisions([g], "classic", batch_size=10_000, slots=1, shuffle=False)
    x = next(iter(stream))
    dep = np.flatnonzero(x.phase == DEPLOY)
    order = deploy_order(get_variant("classic"))
    assert len(dep) == 2 * len(order)
    placed = [np.zeros(100, bool), np.zeros(100, bool)]
    for k, i in enumerate(dep):
        p, t = k % 2, order[k // 2]
        expected = (g.setup[p] == t) & ~placed[p]
        assert np.array_equal(x.target[i], expected), (k, p, t)
        placed[p][x.action[i]] = True
    assert all((g.setup[p] >= 0).sum() == placed[p].sum() for p in (0, 1))


def test_move_observations_equal_the_network_agents_own(classic):
    """The stream's observations come from VectorEnv; the agent rebuilds them from a PlayerView.
    On a recorded game every select and displace observation must agree (frame, history, flags)."""
    g = classic[1]
    x = next(iter(HumanDecisions([g], "classic", batch_size=10_000, slots=1, shuffle=False)))
    red, blue = g.setup[0].copy(), g.setup[1][::-1].copy()
    game = Game(get_variant("classic").with_rules(max_moves=0, max_moves_without_attack=0, two_squares=False,
                                                   more_squares=False), red, blue)
    history: list[MoveRecord] = []
    sel = np.flatnonzero(x.phase == SELECT)
    disp = np.flatnonzero(x.phase == DISPLACE)
    assert len(sel) == len(disp) == len(g.moves)
    for n, (f, t) in enumerate(g.moves.tolist()):
        p = n % 2
        view = PlayerView.of(game, p, tuple(history))
        if n % 7 == 0 or n > len(g.moves) - 5:
            np.testing.assert_array_equal(observe_view(view), x.obs[sel[n]])
            np.testing.assert_array_equal(observe_view(view, 1, f), x.obs[disp[n]])
        attacker, defender = game.piece_at(f), game.piece_at(t)
        battle = defender is not None
        result = game.push((f, t))
        history.append(MoveRecord(game.move_stack[-1], p, attacker.type if battle else -1,
                                  defender.type if battle else -1, int(result)))


def test_a_game_the_engine_refuses_is_skipped_and_counted(classic, tmp_path):
    bad = classic[2]
    moves = bad.moves.copy()
    moves[10] = moves[9]  # the same piece cannot move twice in a row from the same square
    broken = type(bad)(bad.key + "-broken", bad.variant, bad.setup, moves, bad.winner)
    stream = HumanDecisions([broken, classic[3]], "classic", batch_size=64, slots=1, shuffle=False)
    n = sum(len(x) for x in stream)
    assert stream.skipped == Counter({"illegal_action": 1})
    assert n == 80 + 2 * 10 + classic[3].decisions  # the broken game's decisions up to move 10 were good


def test_split_is_by_game_and_deterministic(classic):
    a_train, a_val = split_games(classic, 0.3)
    b_train, b_val = split_games(list(reversed(classic)), 0.3)
    assert {g.key for g in a_val} == {g.key for g in b_val} and a_val
    assert not {g.key for g in a_train} & {g.key for g in a_val}
    assert len(a_train) + len(a_val) == len(classic)
    assert split_games(classic, 0.0)[1] == [] and split_games(classic, 1.0)[0] == []


def test_mirror_reflects_files_and_twice_is_identity(classic):
    x = next(iter(HumanDecisions(classic[:2], "classic", batch_size=64, slots=2, shuffle=False)))
    obs, mask, target = (torch.from_numpy(a.copy()) for a in (x.obs, x.mask, x.target))
    rows = torch.arange(0, len(x), 2)
    mirror_batch(obs, mask, target, rows)
    a = int(x.action[0])
    assert target[0, a - a % 10 + 9 - a % 10] and mask[0, a - a % 10 + 9 - a % 10]
    assert torch.equal(obs[1], torch.from_numpy(x.obs[1]))
    mirror_batch(obs, mask, target, rows)
    assert torch.equal(obs, torch.from_numpy(x.obs)) and torch.equal(mask, torch.from_numpy(x.mask))


@pytest.fixture(scope="module")
def pretrained(tmp_path_factory, classic):
    out = tmp_path_factory.mktemp("bc") / "run"
    cfg = PretrainConfig(net="tiny", variant="classic", batch_size=128, learning_rate=3e-3, validation=0.0,
                         slots=8, sample=1.0, buffer=2048, eval_games=0, random_games=0)
    summary = pretrain(cfg, classic, out, steps=60, progress=False)
    return out, summary


def test_value_only_training_moves_the_value_head_alone(pretrained, classic, tmp_path):
    """``value_only`` from ``init``: every weight outside the value head stays bit for bit, the value
    head starts afresh and learns (its cross-entropy on the games falls below fresh weights')."""
    start, _ = pretrained
    cfg = PretrainConfig(net="tiny", variant="classic", batch_size=128, learning_rate=3e-3, validation=0.0,
                         slots=8, sample=1.0, buffer=2048, eval_games=0, random_games=0, init=str(start),
                         value_only=True)
    summary = pretrain(cfg, classic, tmp_path / "value", steps=30, progress=False)
    before, after = load_network(start)[0].state_dict(), load_network(tmp_path / "value")[0].state_dict()
    head = [k for k in before if k.startswith(("value_head.", "value_out."))]
    assert head and all(torch.equal(before[k], after[k]) for k in before if k not in head)
    assert any(not torch.equal(before[k], after[k]) for k in head)
    assert summary["step"] == 30 and summary["loss_policy"] > 0  # the policy loss is still reported
    fresh = load_network(start)[0]  # the value head as the run started it: fresh weights
    fresh.reset_value_head()
    x = next(iter(HumanDecisions(classic, "classic", batch_size=4096, slots=12, shuffle=False)))
    obs, result = torch.from_numpy(x.obs), torch.from_numpy(x.value)
    with torch.no_grad():
        loss = [float(value_loss(net.value_logits(obs)[1], result)) for net in (fresh, load_network(tmp_path / "value")[0])]
    assert loss[1] < loss[0] - 0.02  # the win/draw/loss cross-entropy the run minimises fell
    with pytest.raises(ValueError, match="another shape"):
        pretrain(PretrainConfig(net="small", variant="classic", init=str(start), random_games=0), classic,
                 tmp_path / "other", steps=1, progress=False)


def test_value_targets_are_results_or_the_teachers_value():
    """Decisions not taught learn their result's one-hot; taught ones the teacher's win/draw/loss
    probabilities, or ``((1 + v) / 2, 0, (1 - v) / 2)`` from a scalar teacher; a scalar student its ``v``."""
    torch.manual_seed(3)
    obs = torch.rand(6, 82, 10, 10)
    result = torch.tensor([1.0, -1.0, 0.0, 1.0, -1.0, 0.0])
    taught = torch.tensor([False, False, False, True, True, True])
    wdl_teacher = DeepNashNet(get_preset("tiny")).eval()
    scalar_teacher = DeepNashNet(replace(get_preset("tiny"), version=1)).eval()
    out = value_targets(result, obs, taught, wdl_teacher, student_version=3)
    assert torch.equal(out[:3], torch.tensor([[1.0, 0, 0], [0, 0, 1], [0, 1, 0]]))
    with torch.no_grad():
        assert torch.allclose(out[3:], wdl_teacher.value_logits(obs[3:])[1].softmax(1))
        v = scalar_teacher.value(obs[3:])
    assert torch.allclose(out.sum(1), torch.ones(6))
    out = value_targets(result, obs, taught, scalar_teacher, student_version=2)
    assert torch.allclose(out[3:], torch.stack([(1 + v) / 2, torch.zeros(3), (1 - v) / 2], 1))
    out = value_targets(result, obs, taught, scalar_teacher, student_version=1)
    assert torch.equal(out[:3], result[:3]) and torch.allclose(out[3:], v)
    assert float(value_loss(torch.zeros(6, 3), value_targets(result, obs, taught, wdl_teacher, 3))) == \
        pytest.approx(np.log(3), abs=1e-6)


def test_value_teacher_games_teach_the_init_networks_value(pretrained, classic, tmp_path):
    """Games read through ``value_teacher`` teach the value of the ``init`` network (distillation), not
    their results: from a teacher that thinks the player to move is winning (above +0.6 where the
    games' results average about 0), a fresh value head refitted on those games alone ends close to the
    teacher's value, and a head refitted on the same games' results does not."""
    start, _ = pretrained
    teacher = load_network(start)[0].eval()
    with torch.no_grad():
        teacher.value_out.bias.copy_(torch.tensor([2.0, 0.0, -2.0]))
    save_agent(tmp_path / "teacher", 1, teacher.state_dict(), {"net": teacher.config.to_dict(), "variant": "classic"})
    common = dict(net="tiny", variant="classic", batch_size=128, learning_rate=3e-3, validation=0.0, slots=8,
                  sample=1.0, buffer=2048, eval_games=0, random_games=0, init=str(tmp_path / "teacher"),
                  value_only=True, seed=5)
    with pytest.raises(ValueError, match="needs init"):
        PretrainConfig(net="tiny", value_teacher=(str(SAMPLE),))
    pretrain(PretrainConfig(**common, value_teacher=(str(SAMPLE),)), [], tmp_path / "taught", steps=40,
             progress=False)
    pretrain(PretrainConfig(**common), classic, tmp_path / "results", steps=40, progress=False)
    x = next(iter(HumanDecisions(classic, "classic", batch_size=4096, slots=12, shuffle=False)))
    obs = torch.from_numpy(x.obs)
    with torch.no_grad():
        target = teacher.value(obs)
        gap = {name: float((load_network(tmp_path / name)[0].eval().value(obs) - target).abs().mean())
               for name in ("taught", "results")}
    assert float(target.mean()) > 0.6 and abs(float(torch.from_numpy(x.value).mean())) < 0.2
    assert gap["taught"] < 0.15 < 0.5 < gap["results"]


def test_pretraining_lowers_the_loss_and_beats_a_uniform_policy(pretrained, classic):
    out, summary = pretrained
    assert summary["step"] == 60 and summary["decisions"] == 60 * 128
    torch.manual_seed(0)
    before = imitation_metrics(DeepNashNet(get_preset("tiny")), classic, "classic")
    after = imitation_metrics(load_network(out)[0], classic, "classic")
    assert after["cross_entropy"]["all"] < before["cross_entropy"]["all"] - 0.1
    for phase in ("selection", "displacement"):
        assert after["top1"][phase] > after["uniform_top1"][phase] + 0.1
    assert after["decisions"]["selection"] == sum(len(g.moves) for g in classic)
    assert 0 <= after["value_brier"] <= 1 and sum(b["decisions"] for b in after["calibration"]) > 0


def test_pretrain_resumes_where_it_stopped(pretrained, classic, tmp_path):
    out, _ = pretrained
    cfg = PretrainConfig(**load_checkpoint(out).meta["config"])
    run = tmp_path / "copy"
    import shutil

    shutil.copytree(out, run)
    summary = pretrain(cfg, classic, run, steps=65, resume=True, progress=False)
    assert summary["step"] == 65 and summary["decisions"] == 65 * 128
    with pytest.raises(FileExistsError):
        pretrain(cfg, classic, run, steps=70, progress=False)


def test_pretrain_and_move_match_commands(tmp_path):
    out = tmp_path / "bc"
    r = CliRunner().invoke(app, ["pretrain", str(SAMPLE), "--variant", "barrage", "--steps", "6", "--out", str(out),
                                 "--batch-size", "64", "--validation", "0.5", "--random-games", "4", "--json",
                                 "--no-progress"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["step"] == 6 and summary["records_skipped"] == {"other_variant": 12}
    assert summary["vs_random"]["before"]["games"] == summary["vs_random"]["after"]["games"] == 4
    assert summary["validation"]["games"] == summary["validation_games"] >= 1
    r = CliRunner().invoke(app, ["move-match", f"checkpoint:{out}", str(SAMPLE), "--variant", "barrage", "--json"])
    assert r.exit_code == 0, r.output
    m = json.loads(r.stdout)
    for key in ("decisions", "top1"):
        assert set(m[key]) == {"deployment", "selection", "displacement"}
    assert isinstance(m["value_brier"], float) and m["games"] == 4
    r = CliRunner().invoke(app, ["move-match", f"checkpoint:{out}", str(SAMPLE), "--variant", "barrage", "--json",
                                 "--held-out", "0.5"])
    assert json.loads(r.stdout)["games"] == summary["validation_games"]  # the games pretrain held out
    text = CliRunner().invoke(app, ["move-match", f"checkpoint:{out}", str(SAMPLE), "--variant", "barrage"])
    assert text.exit_code == 0 and "selection" in text.output and "top-1" in text.output
    bad = CliRunner().invoke(app, ["move-match", "random", str(SAMPLE)])
    assert bad.exit_code == 2 and "not a network agent" in bad.output
    missing = CliRunner().invoke(app, ["pretrain", str(tmp_path / "nothing"), "--steps", "1"])
    assert missing.exit_code == 2 and "no such file" in missing.output
    taught = ["pretrain", str(BROKEN.parent), "--variant", "barrage", "--init", str(out), "--value-only", "--steps",
              "2", "--batch-size", "64", "--random-games", "0", "--json", "--no-progress", "--value-teacher"]
    r = CliRunner().invoke(app, [*taught, str(SAMPLE), "--out", str(tmp_path / "taught")])
    assert r.exit_code == 0, r.output
    games = json.loads(r.stdout)["train_games"] + json.loads(r.stdout)["validation_games"]
    assert games == len(load_games(BROKEN.parent, "barrage")) + 4  # the records' and the teacher's four
    assert load_checkpoint(tmp_path / "taught").meta["config"]["value_teacher"] == [str(SAMPLE.resolve())]
    missing = CliRunner().invoke(app, [*taught, str(tmp_path / "nothing"), "--out", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_train_init_starts_every_network_from_the_human_prior(pretrained, tmp_path):
    out, _ = pretrained
    prior = load_checkpoint(out).groups["online"]
    run = tmp_path / "rl"
    r = CliRunner().invoke(app, ["train", "--variant", "classic", "--init", str(out), "--hold-reg", "3", "--steps", "2",
                                 "--lr", "0.0005",
                                 "--out", str(run), "--eval-games", "0", "--envs", "4", "--batch-games", "2",
                                 "--max-steps", "60", "--json", "--no-progress"])
    assert r.exit_code == 0, r.output
    ck = load_checkpoint(run)
    assert ck.meta["config"]["init"] == str(out) and ck.meta["config"]["rnad"]["hold_reg_iterations"] == 3
    assert ck.meta["config"]["rnad"]["adam"]["learning_rate"] == 0.0005
    assert ck.meta["config"]["rnad"]["neurd"]["beta"] == PRIOR_NEURD_BETA  # a prior's default band
    for name in ("reg", "reg_prev"):
        assert all(torch.equal(ck.groups[name][k], prior[k]) for k in prior)
    assert not all(torch.equal(ck.groups["online"][k], prior[k]) for k in prior)
    wrong = CliRunner().invoke(app, ["train", "--variant", "classic", "--init", str(out), "--preset", "small",
                                     "--steps", "1", "--out", str(tmp_path / "x"), "--eval-games", "0"])
    assert wrong.exit_code == 2 and "another shape" in wrong.output
    other = CliRunner().invoke(app, ["train", "--variant", "barrage", "--init", str(out), "--steps", "1",
                                     "--out", str(tmp_path / "y"), "--eval-games", "0"])
    assert other.exit_code == 2 and "trained on classic" in other.output
    band = CliRunner().invoke(app, ["train", "--variant", "classic", "--init", str(out), "--neurd-beta", "3",
                                    "--eta", "0.2", "--steps", "1", "--out", str(tmp_path / "b"), "--eval-games", "0",
                                    "--envs", "4", "--batch-games", "2", "--max-steps", "60", "--no-progress"])
    assert band.exit_code == 0, band.output
    stored = load_checkpoint(tmp_path / "b").meta["config"]["rnad"]
    assert stored["neurd"]["beta"] == 3.0 and stored["eta"] == 0.2 != train_preset("tiny").rnad.eta
    no_band = CliRunner().invoke(app, ["train", "--variant", "classic", "--init", str(out), "--neurd-beta", "0",
                                       "--steps", "1", "--out", str(tmp_path / "z"), "--eval-games", "0"])
    assert no_band.exit_code == 2 and "beta" in no_band.output and not (tmp_path / "z").exists()
    no_eta = CliRunner().invoke(app, ["train", "--variant", "classic", "--init", str(out), "--eta", "0",
                                      "--steps", "1", "--out", str(tmp_path / "e"), "--eval-games", "0"])
    assert no_eta.exit_code == 2 and "eta" in no_eta.output and not (tmp_path / "e").exists()


def test_train_value_only_evaluates_the_prior_policy(pretrained, tmp_path):
    """``train --init DIR --value-only``: every network keeps the prior's policy bit for bit (torso and
    policy heads), while the online value head starts afresh and learns from self-play."""
    out, _ = pretrained
    prior = load_checkpoint(out).groups["online"]
    run = tmp_path / "vo"
    r = CliRunner().invoke(app, ["train", "--variant", "classic", "--init", str(out), "--value-only", "--steps", "3",
                                 "--out", str(run), "--eval-games", "0", "--envs", "4", "--batch-games", "2",
                                 "--max-steps", "60", "--json", "--no-progress"])
    assert r.exit_code == 0, r.output
    ck = load_checkpoint(run)
    assert ck.meta["config"]["value_only"] is True
    value = [k for k in prior if k.startswith(("value_head.", "value_out."))]
    assert value and len(value) < len(prior)
    for name in ("online", "target", "reg", "reg_prev"):
        assert all(torch.equal(ck.groups[name][k], prior[k]) for k in prior if k not in value), name
    assert not all(torch.equal(ck.groups["online"][k], prior[k]) for k in value)
    alone = CliRunner().invoke(app, ["train", "--value-only", "--steps", "1", "--out", str(tmp_path / "z")])
    assert alone.exit_code == 2 and "--init" in alone.output


def test_pretrain_killed_at_random_moments_resumes_with_its_counters(tmp_path):
    """``deepnash pretrain`` killed (SIGKILL) at random moments, checkpointing all the time so that some
    kills land inside a checkpoint write: the latest checkpoint always loads, and the resumed run's
    counters continue from it."""
    import random
    import signal
    import subprocess
    import sys
    import time

    exe = str(Path(sys.executable).with_name("deepnash"))
    out = tmp_path / "run"
    common = ["--batch-size", "32", "--checkpoint-minutes", "0", "--random-games", "0", "--eval-games", "0",
              "--no-progress"]
    rng = random.Random(5)
    steps_seen = []
    for attempt in range(2):
        args = ["pretrain", str(SAMPLE), "--steps", "100000", "--out", str(out), *common] if attempt == 0 else \
            ["pretrain", "--resume", str(out), "--steps", "100000", *common]
        proc = subprocess.Popen([exe, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and proc.poll() is None and not (out / "latest").exists():
                time.sleep(0.1)
            time.sleep(rng.uniform(0.5, 3.0))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        ck = load_checkpoint(out)  # verifies sizes and hashes: never a half-written checkpoint
        steps_seen.append(ck.meta["counters"]["step"])
        assert ck.meta["counters"]["decisions"] == 32 * ck.meta["counters"]["step"]
    assert steps_seen == sorted(steps_seen) and steps_seen[-1] > 0
    target = steps_seen[-1] + 5
    r = subprocess.run([exe, "pretrain", "--resume", str(out), "--steps", str(target), "--json", *common],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    summary = json.loads(r.stdout)
    assert summary["step"] == target and summary["decisions"] == 32 * target
    assert load_checkpoint(out).meta["config"]["records"] == [str(SAMPLE.resolve())]  # resumed on its own games
    assert not [p for p in out.iterdir() if p.name.startswith(".ckpt-")]  # no stale temporary directory left
