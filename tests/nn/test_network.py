"""The DeepNash network: shapes per preset, head routing by phase, the value head's zeroing, masking."""

from __future__ import annotations

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch import nn

from deepnash.env.planes import P_NO_ATTACK, P_PHASE, P_SELECTED, P_STEP
from deepnash.nn import PRESETS, DeepNashNet, NetConfig, get_preset, masked_log_policy, parameter_count

torch.set_num_threads(1)


def make_obs(phases: list[int], seed: int = 0) -> torch.Tensor:
    """Random observations whose phase/step/selected planes are consistent with ``phases`` (0 deploy, 1 select, 2 displace)."""
    g = torch.Generator().manual_seed(seed)
    obs = torch.rand(len(phases), 82, 10, 10, generator=g)
    obs[:, 1:13] = (obs[:, 1:13] > 0.9).float()
    obs[:, P_PHASE:] = 0
    for i, p in enumerate(phases):
        obs[i, P_PHASE] = float(p == 0)
        obs[i, P_STEP] = float(p == 2)
        if p == 2:
            sq = int(torch.randint(100, (1,), generator=g))
            obs[i, P_SELECTED].view(-1)[sq] = 1
            obs[i, 1:13].view(12, -1)[:, sq] = 0
            obs[i, 2 + sq % 10].view(-1)[sq] = 1  # a movable type on the selected square
    return obs


def conv_params(c_in: int, c_out: int, k: int) -> int:
    return c_in * c_out * k * k + c_out


def pyramid_params(c_in: int, c: int, ci: int, n: int, m: int) -> int:
    """Independent count from the paper's description (spec/network.md), block by block."""
    total = conv_params(c_in, c, 3)
    blocks = [(c, c, False)] * n + [(c, c, True)] + [(c if i == 0 else ci, ci, False) for i in range(m)]
    for a, b, strided in blocks:
        proj = strided or a != b
        conv = conv_params(a, b // 2, 3) + conv_params(b // 2, b, 3) + (conv_params(a, b, 1) if proj else 0)
        deconv = conv_params(b, a // 2, 3) + conv_params(a, a // 2, 1) + conv_params(a // 2, a, 3)
        deconv += conv_params(b, a, 1) if proj else 0
        total += conv + deconv
    return total


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_maps_observations_to_logits_and_value(name):
    net = DeepNashNet(get_preset(name))
    logits, value = net(make_obs([0, 1, 2]))
    assert logits.shape == (3, 100) and logits.dtype == torch.float32
    assert value.shape == (3,) and torch.isfinite(value).all()


@pytest.mark.parametrize("name", list(PRESETS))
def test_parameter_count_matches_the_paper_layout(name):
    cfg = get_preset(name)
    c, hc = cfg.channels, cfg.head_channels
    expected = pyramid_params(82, c, cfg.inner_channels, cfg.torso_outer, cfg.torso_inner)
    for extra in (0, 1, 11):  # deployment, selection, displacement heads
        expected += pyramid_params(c + extra, hc, hc, cfg.head_outer, 0) + conv_params(hc, 1, 3)
    outputs = 1 if cfg.version == 1 else 3  # a scalar, or win/draw/loss logits
    expected += pyramid_params(c + 11, hc, hc, 0, 0) + conv_params(hc, 1, 3) + 100 * outputs + outputs
    assert parameter_count(DeepNashNet(cfg)) == expected


def test_paper_preset_has_the_paper_widths():
    cfg = get_preset("paper")
    assert (cfg.channels, cfg.inner_channels, cfg.head_channels, cfg.head_outer) == (256, 320, 256, 1)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=12), st.integers(0, 1000))
@example([1] * 9, 0)  # select steps only (the look-ahead's batches), past SUBPIXEL_MIN_ROWS
def test_each_row_is_computed_as_if_alone(phases, seed):
    """Routing rows to heads by phase must not mix rows: a batch equals its rows run one by one (which
    also checks batches of ``SUBPIXEL_MIN_ROWS`` or more, computed in the sub-pixel form, against single
    rows, computed by torch's transposed convolution)."""
    torch.manual_seed(0)
    net = DeepNashNet(get_preset("tiny")).eval()
    obs = make_obs(phases, seed)
    logits, value = net(obs)
    for i in range(len(phases)):
        li, vi = net(obs[i:i + 1])
        torch.testing.assert_close(logits[i:i + 1], li, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(value[i:i + 1], vi, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(net.value(obs), value)  # the value-only path, for look-ahead
    torch.testing.assert_close(net.logits(obs), logits)  # the policy-only path, for play


def test_each_phase_uses_its_own_head():
    torch.manual_seed(0)
    net = DeepNashNet(get_preset("tiny"))
    obs = make_obs([0, 1, 2])
    before, _ = net(obs)
    heads = [net.deploy_head, net.select_head, net.displace_head]
    for k, head in enumerate(heads):
        with torch.no_grad():
            head.out.bias += 1.0
        after, _ = net(obs)
        changed = [not torch.allclose(before[i], after[i]) for i in range(3)]
        assert changed == [i == k for i in range(3)]
        before = after


class _ZeroTorso(nn.Module):
    """Stands in for the torso so head inputs can be probed without the torso seeing the planes."""

    def __init__(self, channels: int):
        super().__init__()
        self.channels = channels

    def forward(self, x, stem=None):
        return x.new_zeros(x.shape[0], self.channels, 10, 10)


def probe(phase: int, plane: int, sq: int | None) -> tuple[bool, bool]:
    """Does changing ``plane`` at ``sq`` (the whole plane for ``None``) change (logits, value) in ``phase``?

    The torso is replaced by zeros so only the heads' extra inputs can matter.
    """
    torch.manual_seed(1)
    net = DeepNashNet(get_preset("tiny"))
    net.torso = _ZeroTorso(net.config.channels)
    obs = make_obs([phase], seed=3)
    if phase == 2:
        obs[0, P_SELECTED] = 0
        obs[0, 1:13, 4, 4] = 0
        obs[0, P_SELECTED, 4, 4] = 1
        obs[0, 5, 4, 4] = 1  # a Sergeant selected on e5
    l0, v0 = net(obs)
    if sq is None:
        obs[0, plane] += 0.75
    else:
        obs[0, plane].view(-1)[sq] += 0.75
    l1, v1 = net(obs)
    return (not torch.allclose(l0, l1)), (not torch.allclose(v0, v1))


def test_value_head_zeroes_no_attack_ratio_in_deployment_only():
    assert probe(0, P_NO_ATTACK, None) == (False, False)
    assert probe(1, P_NO_ATTACK, None) == (True, True)
    assert probe(2, P_NO_ATTACK, None) == (True, True)


def test_selected_piece_one_hot_reaches_displacement_and_value_only_at_step_two():
    sel = 44
    assert probe(1, 5, sel) == (False, False)  # step 1: no selected piece
    assert probe(2, 5, sel) == (True, True)  # the selected piece's type plane
    assert probe(2, 5, 45) == (False, False)  # same type plane, another square
    assert probe(2, 1, sel) == (False, False)  # Flag is not among the 10 movable types
    assert probe(2, 12, sel) == (False, False)  # nor the Bomb


def test_gradients_reach_every_parameter_from_a_mixed_batch():
    net = DeepNashNet(get_preset("tiny"))
    logits, value = net(make_obs([0, 1, 2, 2]))
    (logits.square().sum() + value.sum()).backward()
    missing = [n for n, p in net.named_parameters() if p.grad is None or not p.grad.abs().sum() > 0]
    assert missing == []


def test_masked_log_policy_puts_all_mass_on_legal_actions():
    logits = torch.randn(5, 100)
    mask = torch.rand(5, 100) > 0.7
    mask[:, 0] = True
    logp = masked_log_policy(logits, mask)
    assert torch.all(logp[~mask] == float("-inf"))
    torch.testing.assert_close(logp.exp().sum(1), torch.ones(5))
    expected = torch.softmax(logits[0][mask[0]], 0)
    torch.testing.assert_close(logp[0][mask[0]].exp(), expected)


def test_bad_inputs_raise_specific_errors():
    with pytest.raises(ValueError, match=r"\[N, 82, 10, 10\]"):
        DeepNashNet(get_preset("tiny"))(torch.zeros(2, 81, 10, 10))
    with pytest.raises(ValueError, match="no legal action"):
        masked_log_policy(torch.zeros(2, 100), torch.zeros(2, 100, dtype=torch.bool))
    with pytest.raises(ValueError, match="unknown network preset 'huge'"):
        get_preset("huge")
    with pytest.raises(ValueError, match="channels"):
        NetConfig(channels=1)


def test_relu_logits_switch():
    net = DeepNashNet(NetConfig(**{**get_preset("tiny").to_dict(), "relu_logits": True}))
    logits, _ = net(make_obs([0, 1, 2]))
    assert (logits >= 0).all()


@pytest.mark.parametrize("stride", [1, 2])
def test_strided_pointwise_layers_compute_what_torch_layers_compute(stride):
    """The 1×1 projections are the same functions, with the same parameters, as torch's own layers."""
    from deepnash.nn.pyramid import StridedPointwise, StridedPointwiseTranspose

    torch.manual_seed(stride)
    ours, theirs = StridedPointwise(8, 6, stride), torch.nn.Conv2d(8, 6, 1, stride=stride)
    theirs.load_state_dict(ours.state_dict())
    x = torch.randn(5, 8, 10, 10).to(memory_format=torch.channels_last)
    torch.testing.assert_close(ours(x), theirs(x))
    ours = StridedPointwiseTranspose(8, 6, stride)
    theirs = torch.nn.ConvTranspose2d(8, 6, 1, stride=stride, output_padding=stride - 1)
    theirs.load_state_dict(ours.state_dict())
    x = torch.randn(5, 8, 5, 5).to(memory_format=torch.channels_last)
    a, b = ours(x), theirs(x)
    torch.testing.assert_close(a, b)
    (a * a.detach().cos()).sum().backward()
    (b * b.detach().cos()).sum().backward()
    torch.testing.assert_close(ours.weight.grad, theirs.weight.grad)
    torch.testing.assert_close(ours.bias.grad, theirs.bias.grad)


def _sub_pixel(stride):
    from deepnash.nn.pyramid import SubPixelConvTranspose

    return (SubPixelConvTranspose(8, 6, stride),
            lambda: torch.nn.ConvTranspose2d(8, 6, 3, stride=stride, padding=1, output_padding=stride - 1))


def _flipped(kernel, padding):
    from deepnash.nn.pyramid import FlippedConvTranspose

    return FlippedConvTranspose(8, 6, kernel, padding=padding), lambda: torch.nn.ConvTranspose2d(8, 6, kernel, padding=padding)


@pytest.mark.parametrize("layers", [lambda: _sub_pixel(2), lambda: _sub_pixel(3), lambda: _flipped(3, 1),
                                    lambda: _flipped(3, 0), lambda: _flipped(1, 0)],
                         ids=["sub-pixel-2", "sub-pixel-3", "flipped-3-1", "flipped-3-0", "flipped-1-0"])
def test_derived_transposed_convolutions_compute_what_torchs_computes(layers):
    """Same outputs and gradients as ``nn.ConvTranspose2d`` (the sub-pixel form on batches on either side of
    ``SUBPIXEL_MIN_ROWS``); the kernel kept between calls without autograd follows the weight."""
    from deepnash.nn.pyramid import SUBPIXEL_MIN_ROWS

    torch.manual_seed(0)
    ours, make_theirs = layers()
    theirs = make_theirs()
    theirs.load_state_dict(ours.state_dict())
    for n in (1, SUBPIXEL_MIN_ROWS, 3 * SUBPIXEL_MIN_ROWS):
        x = torch.randn(n, 8, 5, 5).to(memory_format=torch.channels_last).requires_grad_()
        y = x.detach().clone().requires_grad_()
        a, b = ours(x), theirs(y)
        assert a.shape == b.shape
        torch.testing.assert_close(a, b)
        (a * a.detach().sin()).sum().backward()
        (b * b.detach().sin()).sum().backward()
        torch.testing.assert_close(x.grad, y.grad)
        torch.testing.assert_close(ours.weight.grad, theirs.weight.grad)
        torch.testing.assert_close(ours.bias.grad, theirs.bias.grad)
        ours.zero_grad(), theirs.zero_grad()
    x = torch.randn(2 * SUBPIXEL_MIN_ROWS, 8, 5, 5).to(memory_format=torch.channels_last)
    with torch.inference_mode():
        torch.testing.assert_close(ours(x), theirs(x))  # kernel derived and kept
        with torch.no_grad():
            for net in (ours, theirs):
                net.weight.mul_(-2.0)  # an in-place update, as an optimizer step makes
        torch.testing.assert_close(ours(x), theirs(x))
        fresh = make_theirs()
        ours.load_state_dict(fresh.state_dict())
        torch.testing.assert_close(ours(x), fresh(x))
        low = x.to(torch.bfloat16)  # a new dtype: the kernel is derived again (the two sum in other orders)
        torch.testing.assert_close(ours.to(torch.bfloat16)(low), fresh.to(torch.bfloat16)(low), atol=0.02, rtol=0.02)


def test_tiny_network_trains_on_two_threads():
    """PyTorch's strided 1×1 oneDNN kernel corrupted the heap on two threads (the tiny heads' 8 channels):
    a process that runs the heads' backward passes on batches of every size must exit cleanly."""
    import subprocess
    import sys

    code = """
import random, torch
torch.set_num_threads(2)
from deepnash.nn import DeepNashNet, get_preset
net = DeepNashNet(get_preset("tiny"))
random.seed(0)
for head, c in [(net.deploy_head, 16), (net.select_head, 17), (net.displace_head, 27), (net.value_head, 27)] * 20:
    x = torch.randn(random.randint(1, 300), c, 10, 10).to(memory_format=torch.channels_last).requires_grad_()
    head(x).square().mean().backward()
print("clean")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "clean", out.stderr[-500:]


def _fusable_layers():
    from deepnash.nn.pyramid import (Conv2d, FlippedConvTranspose, StridedPointwise, StridedPointwiseTranspose,
                                     SubPixelConvTranspose)

    return {"conv-3": (lambda: Conv2d(8, 6, 3, padding=1), 10), "conv-3-stride-2": (lambda: Conv2d(8, 6, 3, 2, 1), 10),
            "conv-1": (lambda: Conv2d(8, 6, 1), 10), "strided-pointwise": (lambda: StridedPointwise(8, 6, 2), 10),
            "strided-pointwise-transpose": (lambda: StridedPointwiseTranspose(8, 6, 2), 5),
            "flipped": (lambda: FlippedConvTranspose(8, 6, 3, padding=1), 10),
            "sub-pixel": (lambda: SubPixelConvTranspose(8, 6, 2), 5)}


@pytest.mark.parametrize("name", list(_fusable_layers()))
def test_fused_layers_compute_the_convolution_the_sum_and_the_relu(name):
    """``fused(x, relu, add)`` is ``relu(layer(x) + add)``: with autograd, exactly (the layers apart); on
    oneDNN's packed path (inference, float32 and, where the CPU has it, bfloat16; batches on either side
    of ``SUBPIXEL_MIN_ROWS``) up to rounding; the packed kernel follows in-place updates, and a deep copy
    starts without it."""
    import copy

    from deepnash.nn.pyramid import FUSABLE, FUSABLE_BF16, SUBPIXEL_MIN_ROWS

    make, size = _fusable_layers()[name]
    torch.manual_seed(0)
    layer = make()
    packed = [(dtype, tol) for dtype, tol, runs in ((torch.float32, {}, FUSABLE),
                                                  (torch.bfloat16, dict(atol=0.05, rtol=0.02), FUSABLE_BF16)) if runs]
    for n in (SUBPIXEL_MIN_ROWS - 3, 2 * SUBPIXEL_MIN_ROWS):
        x = torch.randn(n, 8, size, size).to(memory_format=torch.channels_last)
        add = torch.randn_like(layer(x))
        for relu in (False, True):
            for extra in (None, add):
                want = layer(x) if extra is None else layer(x) + extra
                want = torch.relu(want) if relu else want
                torch.testing.assert_close(layer.fused(x, relu=relu, add=extra), want)  # autograd: apart
                for dtype, tol in packed:
                    low, negated = copy.deepcopy(layer).to(dtype), copy.deepcopy(layer)
                    with torch.no_grad():
                        negated.weight.mul_(-1.0)
                        want_negated = torch.relu(negated(x)) if relu else negated(x)
                    with torch.inference_mode():
                        got = low.fused(x.to(dtype), relu=relu, add=None if extra is None else extra.to(dtype))
                        assert got.dtype == dtype and got.shape == want.shape
                        torch.testing.assert_close(got.float(), want, **tol)
                        with torch.no_grad():
                            low.weight.mul_(-1.0)  # an in-place update: the packed kernel is packed again
                        flipped = low.fused(x.to(dtype), relu=relu)
                        torch.testing.assert_close(flipped.float(), want_negated, **tol)
                    with torch.no_grad():
                        twin = copy.deepcopy(low)  # without the packed kernel, which belongs to ``low``'s weight
                    with torch.inference_mode():
                        torch.testing.assert_close(twin.fused(x.to(dtype), relu=relu), flipped)


def test_a_bfloat16_network_in_inference_mode_computes_what_it_computes_with_autograd():
    """The rollouts' network (bfloat16, inference mode: oneDNN's fused path) gives the logits and values of
    the same network run layer by layer, up to bfloat16 rounding; a copy made after use runs too."""
    import copy

    net = DeepNashNet(get_preset("small")).to(torch.bfloat16)
    obs = make_obs([1, 2] * 8, seed=3)
    with torch.enable_grad():
        want_logits, want_value = (t.detach().float() for t in net(obs))
    with torch.inference_mode():
        logits, value = (t.float() for t in net(obs))
    with torch.no_grad():  # not in inference mode: the copy's kept kernels read its weights' versions
        twin = copy.deepcopy(net)
    with torch.inference_mode():
        twin_logits = twin.logits(obs).float()
    torch.testing.assert_close(logits, want_logits, atol=0.03, rtol=0.03)
    torch.testing.assert_close(value, want_value, atol=0.03, rtol=0.03)
    torch.testing.assert_close(twin_logits, logits)
