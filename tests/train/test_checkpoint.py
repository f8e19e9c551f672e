"""Checkpoints: round trip, atomic replacement, and refusal of truncated or altered files."""

from __future__ import annotations

import json

import pytest
import torch

from deepnash.nn.checkpoint import CheckpointError, load_checkpoint, resolve, save_checkpoint


def groups(seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    return {
        "online": {"w": torch.randn(3, 4, generator=g), "b": torch.randn(4, generator=g)},
        "rng": {"torch": torch.randint(0, 255, (16,), dtype=torch.uint8, generator=g)},
    }


def test_round_trip_restores_tensors_and_meta(tmp_path):
    meta = {"step": 7, "variant": "barrage", "config": {"eta": 0.2}}
    path = save_checkpoint(tmp_path, 7, groups(0), meta)
    ck = load_checkpoint(tmp_path)
    assert ck.path == path and ck.meta == meta
    for name, tensors in groups(0).items():
        for k, v in tensors.items():
            assert torch.equal(ck.groups[name][k], v) and ck.groups[name][k].dtype == v.dtype


def test_latest_follows_the_newest_and_old_ones_are_pruned(tmp_path):
    for step in (1, 2, 3):
        save_checkpoint(tmp_path, step, groups(step), {"step": step}, keep=2)
    assert load_checkpoint(tmp_path).meta["step"] == 3
    assert sorted(p.name for p in tmp_path.glob("ckpt-*")) == ["ckpt-00000002", "ckpt-00000003"]
    assert not list(tmp_path.glob(".*ckpt*"))  # no temporary directories left behind


def test_a_failed_write_leaves_the_previous_checkpoint(tmp_path):
    save_checkpoint(tmp_path, 1, groups(1), {"step": 1})
    with pytest.raises(TypeError):
        save_checkpoint(tmp_path, 2, groups(2), {"step": object()})
    assert load_checkpoint(tmp_path).meta["step"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt-00000001", "latest"]


def test_truncated_file_is_refused(tmp_path):
    path = save_checkpoint(tmp_path, 1, groups(1), {})
    f = path / "online.safetensors"
    f.write_bytes(f.read_bytes()[:-10])
    with pytest.raises(CheckpointError, match="online.safetensors.*truncated"):
        load_checkpoint(tmp_path)


def test_altered_file_is_refused(tmp_path):
    path = save_checkpoint(tmp_path, 1, groups(1), {})
    f = path / "online.safetensors"
    data = bytearray(f.read_bytes())
    data[-1] ^= 0xFF
    f.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="SHA-256"):
        load_checkpoint(tmp_path)


@pytest.mark.parametrize("damage", ["garbage", "format", "version", "missing"])
def test_bad_manifest_is_refused(tmp_path, damage):
    path = save_checkpoint(tmp_path, 1, groups(1), {})
    m = path / "manifest.json"
    data = json.loads(m.read_text())
    if damage == "garbage":
        m.write_text(m.read_text()[:20])
    elif damage == "missing":
        (path / "rng.safetensors").unlink()
    else:
        data[damage] = "something else" if damage == "format" else 99
        m.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="manifest|missing|version"):
        load_checkpoint(tmp_path)


def test_no_checkpoint_and_bad_pointer(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint here"):
        resolve(tmp_path)
    (tmp_path / "latest").write_text("../../etc\n")
    with pytest.raises(CheckpointError, match="not a checkpoint directory"):
        resolve(tmp_path)


def test_export_keeps_one_network_and_the_training_metadata(tmp_path):
    from deepnash.agents.network_agent import load_network
    from deepnash.nn import DeepNashNet, get_preset
    from deepnash.nn.checkpoint import export_agent

    nets = {name: DeepNashNet(get_preset("tiny")).state_dict() for name in ("online", "target")}
    meta = {"net": get_preset("tiny").to_dict(), "counters": {"learner_step": 7}, "optimizer": {"big": 1}}
    save_checkpoint(tmp_path / "run", 7, {**nets, "optimizer": {"m": torch.zeros(3)}}, meta)
    path = export_agent(tmp_path / "run", tmp_path / "agent", weights="target")
    ck = load_checkpoint(tmp_path / "agent")
    assert ck.path == path and set(ck.groups) == {"online"} and path.name == "ckpt-00000007"
    assert "optimizer" not in ck.meta and ck.meta["exported_from"]["weights"] == "target"
    net, _ = load_network(tmp_path / "agent")
    for k, v in net.state_dict().items():
        assert torch.equal(v, nets["target"][k]), k
    with pytest.raises(FileExistsError):
        export_agent(tmp_path / "run", tmp_path / "agent")
    with pytest.raises(CheckpointError, match="no 'reg' network"):
        export_agent(tmp_path / "run", tmp_path / "other", weights="reg")
    with pytest.raises(CheckpointError, match="no 'optimizer' network"):
        export_agent(tmp_path / "run", tmp_path / "other", weights="optimizer")
    export_agent(tmp_path / "run", tmp_path / "mirrored", mirror_value=True)
    mirrored, meta = load_network(tmp_path / "mirrored")
    assert mirrored.config.mirror_value and meta["net"] == {**get_preset("tiny").to_dict(), "mirror_value": True}
    assert not net.config.mirror_value
    save_checkpoint(tmp_path / "belief", 1, {"online": {"w": torch.zeros(2)}}, {"kind": "belief", "belief_net": {}})
    with pytest.raises(CheckpointError, match="holds no DeepNash network"):
        export_agent(tmp_path / "belief", tmp_path / "other", mirror_value=True)


def test_a_resumed_supervised_run_keeps_its_own_learning_rate(tmp_path):
    # `pretrain --resume DIR --lr X`: Adam's moments come back from the checkpoint, the new rate applies.
    from deepnash.train.supervised import restore_run, save_run

    net = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    net(torch.ones(1, 3)).sum().backward()
    opt.step()
    save_run(tmp_path, net, opt, 1, {"counters": {"step": 1}})
    again = torch.nn.Linear(3, 2)
    slower = torch.optim.Adam(again.parameters(), lr=1e-5)
    assert restore_run(load_checkpoint(tmp_path), again, slower) == {"step": 1}
    assert [g["lr"] for g in slower.param_groups] == [1e-5]
    assert int(slower.state[again.weight]["step"]) == 1  # the moments did come back
    torch.testing.assert_close(again.weight, net.weight)
