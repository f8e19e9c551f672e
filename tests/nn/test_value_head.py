"""The value head's versions: version-2 and version-3 win/draw/loss heads that keep learning on noisy
targets, old checkpoints that load as the version they were written at, and versions that never mix
silently."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from deepnash.agents.network_agent import SHIPPED_DIR, load_network
from deepnash.env.planes import P_PRIVATE, P_PUB_OPP, P_PUB_OWN
from deepnash.game.pieces import FLAG
from deepnash.nn import DeepNashNet, NetConfig, get_preset
from deepnash.nn.network import MATERIAL_FEATURES, MATERIAL_HIDDEN, material
from deepnash.nn.checkpoint import CheckpointError, load_checkpoint, save_agent, starting_weights
from deepnash.train.config import TRAIN_PRESETS
from deepnash.train.human import SELECT, HumanDecisions, load_games
from deepnash.train.pretrain import value_loss

torch.set_num_threads(1)
SAMPLE = Path(__file__).parents[1] / "train" / "data" / "gravon-sample.zip"  # 12 Classic games of 2014-3
OLD = Path(__file__).parents[1] / "testtime" / "data" / "classic-network"  # written before versions existed


def test_a_stored_configuration_without_a_version_is_version_one():
    tiny = get_preset("tiny")
    assert tiny.version == 2
    old = {k: v for k, v in tiny.to_dict().items() if k != "version"}
    assert NetConfig.from_dict(old).version == 1 and NetConfig.from_dict(tiny.to_dict()) == tiny
    with pytest.raises(ValueError, match="version must be one of"):
        NetConfig(version=4)
    with pytest.raises(ValueError, match="unknown network fields"):
        NetConfig.from_dict({**tiny.to_dict(), "wings": 2})


@pytest.mark.parametrize("path", [OLD, OLD.parent / "barrage-rnad-network"])
def test_checkpoints_written_before_versions_load_as_version_one(path):
    net, meta = load_network(path)
    assert "version" not in meta["net"] and net.config.version == 1
    assert tuple(net.value_out.weight.shape) == (1, 100)
    with pytest.raises(ValueError, match="no win/draw/loss logits"):
        net.value_logits(torch.zeros(1, 82, 10, 10))


@pytest.mark.parametrize("variant", ["classic", "barrage"])
def test_the_shipped_networks_are_version_three(variant):
    net, meta = load_network(SHIPPED_DIR / variant)
    assert meta["net"]["version"] == 3 and net.config.version == 3
    assert tuple(net.value_out.weight.shape) == (3, 100 + MATERIAL_FEATURES + MATERIAL_HIDDEN)


@pytest.mark.parametrize("version", [2, 3])
def test_the_scalar_value_of_version_two_is_p_win_minus_p_loss(version):
    net = DeepNashNet(replace(get_preset("tiny"), version=version))
    obs = torch.rand(6, 82, 10, 10)
    obs[:, 79:] = 0
    logits, value = net(obs)
    policy, wdl = net.value_logits(obs)
    p = torch.softmax(wdl, dim=1)
    assert torch.allclose(policy, logits) and torch.allclose(value, p[:, 0] - p[:, 2], atol=1e-6)
    assert torch.allclose(net.value(obs), value)


@pytest.mark.parametrize("version", [1, 3])
def test_a_mirrored_value_is_the_mean_over_the_board_and_its_mirror(version):
    """``NetConfig.mirror_value``: the value read for play is the mean over the position and its left-right
    mirror, so it is the same for both (the board's symmetry), while training's paths see the position as given."""
    torch.manual_seed(0)
    plain = DeepNashNet(replace(get_preset("tiny"), version=version)).eval()
    with torch.no_grad():  # a fresh version-3 read-out ignores the squares: give them weight, as training does
        plain.value_out.weight.normal_(0, 0.3)
    mirrored = DeepNashNet(replace(plain.config, mirror_value=True)).eval()
    mirrored.load_state_dict(plain.state_dict())
    obs = torch.rand(6, 82, 10, 10)
    obs[:, 79:] = 0
    flipped = obs.flip(3)
    v, v_flipped = plain.value(obs), plain.value(flipped)
    assert (v - v_flipped).abs().max() > 1e-3  # the network alone is not symmetric
    assert torch.allclose(mirrored.value(obs), (v + v_flipped) / 2, atol=1e-6)
    assert torch.allclose(mirrored.value(flipped), mirrored.value(obs), atol=1e-6)
    assert torch.equal(mirrored(obs)[1], plain(obs)[1])  # forward, which training reads, is unchanged
    if version == 1:
        with pytest.raises(ValueError, match="no win/draw/loss probabilities"):
            mirrored.value_probabilities(obs)
        return
    p = mirrored.value_probabilities(obs)
    assert torch.allclose(p.sum(1), torch.ones(6)) and torch.allclose(p[:, 0] - p[:, 2], mirrored.value(obs), atol=1e-6)
    assert torch.allclose(plain.value_probabilities(obs), torch.softmax(plain.value_logits(obs)[1], 1), atol=1e-6)
    assert NetConfig.from_dict({k: v for k, v in plain.config.to_dict().items() if k != "mirror_value"}) == plain.config


def test_the_shipped_classic_value_reads_the_board_and_its_mirror():
    """``shipped:classic``'s value is averaged over the mirror (docs/journal/value-and-belief.md, "What the value knows"),
    ``shipped:barrage``'s is not (averaging did not help it); a mirrored network starts a run of its preset."""
    classic, _ = load_network(SHIPPED_DIR / "classic")
    barrage, _ = load_network(SHIPPED_DIR / "barrage")
    assert classic.config.mirror_value and not barrage.config.mirror_value
    weights = starting_weights(SHIPPED_DIR / "classic", get_preset("small").to_dict() | {"version": 3}, "small",
                               "classic")
    assert all(torch.equal(weights[k], v) for k, v in classic.state_dict().items())


def test_versions_never_mix_silently(tmp_path):
    """A version-2 network's weights under a manifest that says version 1 are refused, naming the version."""
    net = DeepNashNet(get_preset("tiny"))
    meta = {"net": {k: v for k, v in net.config.to_dict().items() if k != "version"}, "variant": "classic"}
    save_agent(tmp_path / "mixed", 1, net.state_dict(), meta)
    with pytest.raises(CheckpointError, match="do not fit the version-1 network"):
        load_network(tmp_path / "mixed")


def test_a_version_one_prior_starts_a_version_two_run_with_a_fresh_value_head():
    v1 = load_checkpoint(OLD)
    told = []
    torch.manual_seed(0)
    weights = starting_weights(OLD, get_preset("tiny").to_dict(), "tiny", "classic", on_upgrade=told.append)
    net = DeepNashNet(get_preset("tiny"))
    net.load_state_dict(weights)  # strict: every key, every shape
    value = [k for k in weights if k.startswith(("value_head.", "value_out."))]
    assert value and all(torch.equal(weights[k], v1.groups["online"][k]) for k in weights if k not in value)
    assert tuple(weights["value_out.weight"].shape) == (3, 100) and len(told) == 1 and "version-1" in told[0]
    back = {k: v for k, v in get_preset("tiny").to_dict().items()} | {"version": 1}
    assert starting_weights(OLD, back, "tiny", "classic", on_upgrade=told.append).keys() == weights.keys()
    assert len(told) == 1  # the same version: nothing to say


def test_a_version_two_prior_cannot_start_a_version_one_run(tmp_path):
    net = DeepNashNet(get_preset("tiny"))
    save_agent(tmp_path / "v2", 1, net.state_dict(), {"net": net.config.to_dict(), "variant": "classic"})
    with pytest.raises(ValueError, match="only starts a run of its own version or a newer one"):
        starting_weights(tmp_path / "v2", get_preset("tiny").to_dict() | {"version": 1}, "tiny", "classic")
    told = []
    weights = starting_weights(tmp_path / "v2", get_preset("tiny").to_dict() | {"version": 3}, "tiny", "classic",
                               on_upgrade=told.append)
    assert tuple(weights["value_out.weight"].shape) == (3, 100 + MATERIAL_FEATURES + MATERIAL_HIDDEN)
    assert "material_hidden.weight" in weights and "version-2" in told[0]


def test_the_version_three_read_out_sees_the_material_the_planes_state():
    """``material``: the player's pieces by type, and the opponent's, as the records' true types count
    them (exact but where the last hidden pieces that can move are all of one type); the revealed pieces
    and the moved hidden ones as the public planes show them; the two ratios."""
    games = load_games(SAMPLE, "classic")[:4]
    batch = next(iter(HumanDecisions(games, "classic", batch_size=800, slots=4, shuffle=False, phases=(SELECT,))))
    features = material(torch.from_numpy(batch.obs)).numpy() * 10
    for t in range(12):
        assert np.allclose(features[:, t], (batch.own_types == t).sum(axis=1))
    opponent = np.stack([(batch.opponent_types == t).sum(axis=1) for t in range(12)], axis=1)
    exact = np.abs(features[:, 12:24] - opponent).max(axis=1) < 1e-3
    assert exact.mean() > 0.95 and np.abs(features[:, 12:24] - opponent).max() < 3
    pub_opp = batch.obs[:, P_PUB_OPP:P_PUB_OPP + 12]
    for k, base in ((24, P_PUB_OPP), (36, P_PUB_OWN)):  # revealed: one-hot on the public planes
        planes = batch.obs[:, base:base + 12]
        one_hot = planes.max(axis=1) == 1
        assert np.allclose(features[:, k:k + 12], (planes * one_hot[:, None]).sum(axis=(2, 3)), atol=1e-4)
    assert (features[:, 24:36] <= opponent + 1e-4).all()
    hidden = (pub_opp.sum(axis=1) > 0.5) & (pub_opp.max(axis=1) < 1)
    moved = hidden & (pub_opp[:, FLAG] == 0)
    assert np.allclose(features[:, 48], moved.sum(axis=(1, 2))) and features[:, 48].max() > 0
    assert np.allclose(features[:, 50:52] / 10, batch.obs[:, 77:79, 0, 0])


def test_a_bfloat16_copy_reads_the_material_as_float32_does():
    """The search's leaves are valued by a bfloat16 copy of the network (``SearchConfig.precision``): its
    version-3 read-out must see the same material.  Thresholds and sums taken in bfloat16 miscounted the
    revealed pieces by up to 3 and moved the shipped Classic values by 0.13 on average."""
    games = load_games(SAMPLE, "classic")[:4]
    batch = next(iter(HumanDecisions(games, "classic", batch_size=400, slots=4, shuffle=False, phases=(SELECT,))))
    torch.manual_seed(0)
    net = DeepNashNet(replace(get_preset("tiny"), version=3)).eval()
    with torch.no_grad():  # a read-out that leans on the material alone, as a trained one largely does
        net.value_out.weight[:, 100:100 + MATERIAL_FEATURES].normal_(0.0, 1.0)
    half = DeepNashNet(net.config).eval()
    half.load_state_dict(net.state_dict())
    half = half.to(torch.bfloat16)
    obs = torch.from_numpy(batch.obs)
    with torch.no_grad():
        full, low = net.value_logits(obs)[1], half.value_logits(obs)[1].float()
    assert full.std(dim=0).min() > 0.3 and (full - low).abs().mean() < 0.05


def _material(obs: np.ndarray) -> np.ndarray:
    """Own pieces less the opponent's, from the planes (the opponent's as public-belief mass)."""
    obs = obs.astype(np.float32)
    return obs[:, P_PRIVATE:P_PRIVATE + 12].sum(axis=(1, 2, 3)) - obs[:, P_PUB_OPP:P_PUB_OPP + 12].sum(axis=(1, 2, 3))


@pytest.mark.parametrize("version", [2, 3])
def test_a_fresh_win_draw_loss_head_keeps_learning_on_noisy_targets(version):
    """Results drawn at random from the material balance (noisy, as games are), learned at the CPU presets'
    learning rate: the values still vary (standard deviation above 0.1) and the loss falls below that of
    the best constant predictor."""
    games = load_games(SAMPLE, "classic")
    batches = list(HumanDecisions(games, "classic", batch_size=256, slots=12, shuffle=True, seed=1))
    obs = torch.from_numpy(np.concatenate([b.obs for b in batches]).astype(np.float32))
    material = _material(obs.numpy())
    rng = np.random.default_rng(0)
    p_win = 1 / (1 + np.exp(-material / 1.5))
    u = rng.random(len(obs))
    result = torch.from_numpy(np.where(u < p_win * 0.95, 1.0, np.where(u < 0.95, -1.0, 0.0)).astype(np.float32))
    torch.manual_seed(0)
    net = DeepNashNet(replace(get_preset("tiny"), version=version))
    opt = torch.optim.Adam(net.parameters(), lr=TRAIN_PRESETS["tiny"].rnad.adam.learning_rate)
    g = torch.Generator().manual_seed(0)
    for _ in range(400):
        rows = torch.randint(len(obs), (256,), generator=g)
        loss = value_loss(net.value_logits(obs[rows])[1], result[rows])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        logits = torch.cat([net.value_logits(obs[i:i + 1024])[1] for i in range(0, len(obs), 1024)])
        values = torch.cat([net.value(obs[i:i + 1024]) for i in range(0, len(obs), 1024)])
    classes = (1 - result).round().long()
    freq = torch.bincount(classes, minlength=3).float() / len(classes)
    constant = float(F.cross_entropy(torch.log(freq).expand(len(classes), 3), classes))
    assert float(values.std()) > 0.1
    assert float(value_loss(logits, result)) < constant - 0.05
    assert np.corrcoef(values.numpy(), material)[0, 1] > 0.5
