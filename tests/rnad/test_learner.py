"""The learner: chunked gradients equal whole-trajectory ones, EMA, regulariser switch, state round trip."""

import copy

import pytest
import torch

from deepnash.rnad import AdamConfig, FineTuneConfig, RNaDConfig, RNaDLearner, ScheduleConfig, Trajectory

OBS, A = 5, 3


class TinyNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Linear(OBS, 8)
        self.logits = torch.nn.Linear(8, A)
        self.value = torch.nn.Linear(8, 1)

    def forward(self, x):
        h = torch.tanh(self.body(x))
        return self.logits(h), self.value(h)


def make_trajectory(seed=0, T=7, B=4):
    g = torch.Generator().manual_seed(seed)
    valid = torch.arange(T)[:, None] < torch.tensor([T, 5, 3, 1])[None, :B]
    legal = torch.rand(T, B, A, generator=g) < 0.7
    legal[..., 0] = True
    mu = torch.where(legal, torch.rand(T, B, A, generator=g) + 0.1, torch.zeros(()))
    mu = mu / mu.sum(-1, keepdim=True)
    action = torch.multinomial(mu.reshape(-1, A), 1, generator=g).reshape(T, B)
    r0 = torch.where(valid, torch.randn(T, B, generator=g), torch.zeros(()))
    return Trajectory(valid=valid, player=torch.randint(0, 2, (T, B), generator=g), legal=legal,
                      observation=torch.randn(T, B, OBS, generator=g), action=action, behaviour=mu,
                      rewards=torch.stack([r0, -r0], -1))


def learner(**cfg):
    torch.manual_seed(0)
    config = RNaDConfig(schedule=ScheduleConfig(sizes=(3,), repeats=(1,)), **cfg)
    return RNaDLearner(TinyNet, config)


def grads(l):
    return [p.grad.clone() for p in l.theta.parameters()]


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 100])
def test_chunked_gradients_equal_whole_trajectory(chunk_size):
    traj = make_trajectory()
    a, b = learner(), learner()
    # Make the four networks differ so that every term of the loss matters.
    for lrn in (a, b):
        g = torch.Generator().manual_seed(1)
        with torch.no_grad():
            for net in (lrn.theta_reg, lrn.theta_reg_prev, lrn.theta_target):
                for p in net.parameters():
                    p.add_(torch.randn(p.shape, generator=g))
    ma = a.accumulate_gradients(traj)
    mb = b.accumulate_gradients(traj, chunk_size=chunk_size)
    assert ma["loss_critic"] == pytest.approx(mb["loss_critic"], rel=1e-5)
    assert ma["loss_policy"] == pytest.approx(mb["loss_policy"], rel=1e-5, abs=1e-7)
    for ga, gb in zip(grads(a), grads(b)):
        torch.testing.assert_close(ga, gb, rtol=1e-5, atol=1e-6)


def test_target_moves_by_gamma_avg_and_regularisers_switch_at_iteration_end():
    l = learner(gamma_avg=0.1)
    start = copy.deepcopy(l.theta.state_dict())
    traj = make_trajectory()
    for step in range(3):
        before_target = copy.deepcopy(l.theta_target.state_dict())
        m = l.step(traj)
        assert m["switched"] == float(step == 2)
        for k, v in l.theta_target.state_dict().items():
            torch.testing.assert_close(v, before_target[k] + 0.1 * (l.theta.state_dict()[k] - before_target[k]))
        if step < 2:
            for k, v in l.theta_reg.state_dict().items():
                torch.testing.assert_close(v, start[k])
    for k, v in l.theta_reg.state_dict().items():
        torch.testing.assert_close(v, l.theta_target.state_dict()[k])
    for k, v in l.theta_reg_prev.state_dict().items():
        torch.testing.assert_close(v, start[k])
    assert l.schedule().iteration == 1 and l.schedule().alpha == 0.0


def test_held_regularisers_stay_at_the_start_for_the_held_iterations():
    """hold_reg_iterations=2: iterations 0, 1 and 2 are all regularised towards the starting network;
    the first switch comes at the end of iteration 2 (step 9 with 3-step iterations)."""
    l = learner(gamma_avg=0.1, hold_reg_iterations=2)
    start = copy.deepcopy(l.theta.state_dict())
    traj = make_trajectory()
    switched = [l.step(traj)["switched"] for _ in range(9)]
    assert switched == [0.0] * 8 + [1.0]
    for k, v in l.theta_reg_prev.state_dict().items():
        torch.testing.assert_close(v, start[k])
    assert any(not torch.equal(v, start[k]) for k, v in l.theta_reg.state_dict().items())
    for k, v in l.theta_reg.state_dict().items():
        torch.testing.assert_close(v, l.theta_target.state_dict()[k])
    with pytest.raises(ValueError, match="hold_reg_iterations"):
        RNaDConfig(hold_reg_iterations=-1)


def test_previous_regulariser_is_skipped_exactly_while_it_equals_the_current_one(monkeypatch):
    """Equal regularisation networks give the blend pi_reg itself: theta_reg_prev is not run, and the
    gradients are those of evaluating it; after a switch the two differ and it runs again."""
    import deepnash.rnad.learner as learner_module

    traj = make_trajectory()
    a, b = learner(), learner()
    calls = []
    a.theta_reg_prev.register_forward_hook(lambda *_: calls.append(1))
    assert a.schedule().alpha < 1.0
    a.accumulate_gradients(traj)
    assert calls == []
    with monkeypatch.context() as m:
        m.setattr(learner_module, "_same_weights", lambda *_: False)
        b.accumulate_gradients(traj)
    for ga, gb in zip(grads(a), grads(b)):
        assert torch.equal(ga, gb)
    a.apply_update()
    for _ in range(2):  # the iteration's last step switches: reg_prev <- start, reg <- target
        a.step(traj)
    assert a.schedule().iteration == 1 and a.schedule().alpha < 1.0
    calls.clear()
    a.accumulate_gradients(traj)
    assert calls


def test_state_dict_round_trip_continues_identically():
    traj = make_trajectory()
    a = learner(finetune=FineTuneConfig(from_step=2))
    for _ in range(2):
        a.step(traj)
    b = learner(finetune=FineTuneConfig(from_step=2))
    b.load_state_dict(copy.deepcopy(a.state_dict()))
    ma, mb = a.step(traj), b.step(traj)
    assert ma == mb and ma["finetune"] == 1.0
    for name, net in a.networks().items():
        for k, v in net.state_dict().items():
            torch.testing.assert_close(v, b.networks()[name].state_dict()[k])
    with pytest.raises(KeyError, match="optimizer"):
        b.load_state_dict({k: v for k, v in a.state_dict().items() if k != "optimizer"})


def test_a_restored_learner_keeps_its_own_learning_rate():
    # `train --resume DIR --lr X`: the saved moments carry over, the new learning rate applies.
    traj = make_trajectory()
    a = learner(adam=AdamConfig(learning_rate=1e-2))
    a.step(traj)
    slow = learner(adam=AdamConfig(learning_rate=1e-5))
    slow.load_state_dict(copy.deepcopy(a.state_dict()))
    assert [g["lr"] for g in slow.optimizer.param_groups] == [1e-5]
    before = [p.clone() for p in slow.theta.parameters()]
    slow.step(traj)
    same = learner(adam=AdamConfig(learning_rate=1e-2))
    same.load_state_dict(copy.deepcopy(a.state_dict()))
    same.step(traj)
    moved_slow = max((p - q).abs().max().item() for p, q in zip(slow.theta.parameters(), before))
    moved_same = max((p - q).abs().max().item() for p, q in zip(same.theta.parameters(), before))
    assert moved_slow == pytest.approx(moved_same * 1e-3, rel=1e-3)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="Trajectory.action"):
        t = make_trajectory()
        Trajectory(**{**t.__dict__, "action": torch.zeros(2, 2, dtype=torch.long)})
    with pytest.raises(ValueError, match="chunk_size"):
        learner().accumulate_gradients(make_trajectory(), chunk_size=0)
    t = make_trajectory()
    bad = Trajectory(**{**t.__dict__, "legal": torch.zeros_like(t.legal)})
    with pytest.raises(ValueError, match="no legal action"):
        bad.check_consistency()


def test_one_head_evaluations_equal_the_whole_network_and_skip_the_other_heads():
    """``evaluate_logits`` and ``evaluate_value`` give ``evaluate``'s outputs; on a DeepNash network they run
    only the heads asked for (the learner's target and regularisers read one output each), and a network
    whose ``logits`` and ``value`` are submodules, not methods, runs its forward."""
    from deepnash.nn import DeepNashNet, get_preset
    from deepnash.rnad.learner import evaluate, evaluate_logits, evaluate_value

    torch.manual_seed(0)
    net = DeepNashNet(get_preset("tiny")).eval()
    T, B = 3, 2
    obs = torch.zeros(T, B, 82, 10, 10)
    obs[..., 0, :4, :] = 1.0  # own Flags on the back rows: play, select step
    obs[1, :, 80] = 1.0  # displace step at t = 1
    obs[1, :, 81, 0, 0] = 1.0
    valid = torch.tensor([[True, True], [True, False], [True, True]])
    logits, value = evaluate(net, obs, valid)
    ran = []
    for head in ("select_head", "displace_head", "value_head"):
        getattr(net, head).register_forward_hook(lambda *_, h=head: ran.append(h))
    with torch.no_grad():
        torch.testing.assert_close(evaluate_logits(net, obs, valid), logits)
        assert "value_head" not in ran and {"select_head", "displace_head"} <= set(ran)
        ran.clear()
        torch.testing.assert_close(evaluate_value(net, obs, valid), value)
        assert ran == ["value_head"]
    assert not value[1, 1] and not logits[1, 1].any()  # padding stays zero
    tiny, traj = TinyNet(), make_trajectory()
    whole = evaluate(tiny, traj.observation, traj.valid)
    torch.testing.assert_close(evaluate_logits(tiny, traj.observation, traj.valid), whole[0])
    torch.testing.assert_close(evaluate_value(tiny, traj.observation, traj.valid), whole[1])
