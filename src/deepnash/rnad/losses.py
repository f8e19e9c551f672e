"""The regularised reward's log-ratio, the critic loss and the NeuRD policy loss.

Source: DeepNash (arXiv) "Methods: additional information" (reward
transform, NeuRD with the beta band, Table 3); ``docs/rnad.md`` §3 and §4.
Both players' steps are disjoint, so their per-player means are written as one
weighted sum with :func:`step_weights`; that also lets a trajectory be cut
into time chunks whose losses add up to the whole trajectory's loss.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .vtrace import importance_ratio


def legal_log_softmax(logits: torch.Tensor, legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Policy and log-policy over the legal actions, both exactly 0 on illegal ones.

    Args:
        logits: ``[..., A]`` float.
        legal: ``[..., A]`` bool; a row without a legal action gives an all-zero policy.

    Returns:
        ``(policy, log_policy)``, each ``[..., A]``.
    """
    if logits.shape != legal.shape:
        raise ValueError(f"legal_log_softmax: logits {tuple(logits.shape)} and legal "
                         f"{tuple(legal.shape)} must have the same shape")
    masked = logits.masked_fill(~legal, float("-inf"))
    top = masked.amax(-1, keepdim=True).detach()
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    shifted = torch.where(legal, logits - top, torch.zeros_like(logits))
    exp = torch.where(legal, shifted.exp(), torch.zeros_like(logits))
    total = exp.sum(-1, keepdim=True)
    log_total = torch.log(torch.where(total > 0, total, torch.ones_like(total)))
    log_policy = torch.where(legal, shifted - log_total, torch.zeros_like(logits))
    return torch.where(legal, log_policy.exp(), torch.zeros_like(logits)), log_policy


def regularised_log_ratio(log_policy: torch.Tensor, log_reg: torch.Tensor, log_reg_prev: torch.Tensor,
                          alpha: float) -> torch.Tensor:
    """``log pi - [alpha log pi_reg + (1 - alpha) log pi_reg_prev]`` (``docs/rnad.md`` §3, mixed in log space).

    All arguments ``[..., A]`` with illegal actions at 0, so the result is 0 there too.
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"regularised_log_ratio: alpha = {alpha!r}: must be in [0, 1]")
    return log_policy - (alpha * log_reg + (1.0 - alpha) * log_reg_prev)


def step_weights(owns: Sequence[torch.Tensor]) -> torch.Tensor:
    """``[T, B]`` weight ``1 / n_i`` on the steps of player ``i`` (``n_i`` = its number of steps).

    ``sum(weights * x)`` is then ``sum_i mean_{t: psi_t = i, valid} x_t``; a player
    with no step contributes nothing.
    """
    weights = torch.zeros(owns[0].shape, dtype=torch.float32, device=owns[0].device)
    for own in owns:
        weights = weights + own.float() / own.sum().clamp_min(1)
    return weights


def critic_loss(value: torch.Tensor, v_target: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """``sum_i mean_{t: psi_t=i, valid} (v_theta(o_t) - stopgrad(vhat_t^i))^2`` (``docs/rnad.md`` §4).

    Args:
        value: ``[T, B]`` online value of the acting player.
        v_target: ``[T, B]`` v-trace target of the acting player.
        weights: ``[T, B]`` from :func:`step_weights` (0 on padding).
    """
    return (weights * (value - v_target.detach()) ** 2).sum()


def neurd_advantage(q_target: torch.Tensor, policy: torch.Tensor, clip: float) -> torch.Tensor:
    """``clip(Qhat(a) - sum_b pi(b) Qhat(b), -clip, clip)``, without gradient. Shapes ``[..., A]``."""
    q = q_target.detach()
    adv = q - (policy.detach() * q).sum(-1, keepdim=True)
    return adv.clamp(-clip, clip)


def neurd_loss(logits: torch.Tensor, legal: torch.Tensor, advantage: torch.Tensor,
               weights: torch.Tensor, beta: float) -> torch.Tensor:
    """NeuRD loss with the beta band on legal-mean-centred logits (``docs/rnad.md`` §4).

    ``z(a) = l(a) - mean_legal l``; a positive advantage pushes ``z(a)`` only
    while ``z(a) < beta``, a negative one only while ``z(a) > -beta``;
    loss ``= -sum_{t,b} weights * sum_{legal a} z(a) * force(a)``.

    Args:
        logits: ``[T, B, A]`` online logits (with gradient).
        legal: ``[T, B, A]`` bool.
        advantage: ``[T, B, A]`` from :func:`neurd_advantage`.
        weights: ``[T, B]`` from :func:`step_weights`.
        beta: half-width of the band.
    """
    legal_f = legal.to(logits.dtype)
    z = centred_logits(logits, legal)
    adv = advantage.detach()
    force = torch.where(adv > 0, adv * (z.detach() < beta), adv * (z.detach() > -beta))
    return -(weights * (legal_f * z * force).sum(-1)).sum()


def outside_band_mass(policy: torch.Tensor, logits: torch.Tensor, legal: torch.Tensor, weights: torch.Tensor,
                      beta: float) -> float:
    """The policy's probability on legal actions whose centred logit ``|z(a)| >= beta``, averaged over steps.

    NeuRD's own force on such a logit only pulls it back towards the band
    (:func:`neurd_loss`), so training flattens a policy with much mass there: a
    measure of how much sharper than the band a policy is, e.g. a behaviour-cloned
    prior given to ``train --init`` (``docs/rnad.md`` §4.3).

    Args:
        policy: ``[..., A]`` from :func:`legal_log_softmax` (the learner's ``[T, B, A]``).
        logits: ``[..., A]``.
        legal: ``[..., A]`` bool.
        weights: ``[...]``: the learner's from :func:`step_weights` (each player's steps weigh 1 in
            all), or ones for a plain mean over decisions.
        beta: half-width of the band.

    Returns:
        the ``weights``-weighted mean over steps (with :func:`step_weights`, the mean over both
        players of their steps' mean), in ``[0, 1]``.
    """
    outside = (centred_logits(logits, legal).abs() >= beta) & legal
    per_step = (policy * outside).sum(-1)
    return float((weights * per_step).sum() / weights.sum().clamp_min(1e-12))


def truncated_importance_weight(policy: torch.Tensor, behaviour: torch.Tensor, action: torch.Tensor,
                                weights: torch.Tensor, c_bar: float) -> float:
    """``min(c_bar, pi(a_t) / mu(a_t))`` of the taken actions, averaged over steps: how on-policy a batch is.

    v-trace multiplies these weights along a player's steps (``docs/rnad.md`` §4.1), so a game's result
    reaches back only as far as their product stays near 1: at a mean of 0.95 it halves within some ten
    of a player's moves.  Games played by a network some updates older than the learner's lower it.

    Args:
        policy: ``[T, B, A]`` the learner's policy pi (0 on illegal actions).
        behaviour: ``[T, B, A]`` the actors' policy mu.
        action: ``[T, B]`` int64, the taken action (any value on padding).
        weights: ``[T, B]`` from :func:`step_weights` (0 on padding).
        c_bar: the trace clip of v-trace.

    Returns:
        the ``weights``-weighted mean, in ``[0, c_bar]``; 1 for on-policy games with ``c_bar >= 1``.
    """
    clipped = importance_ratio(policy, behaviour, action, weights > 0).clamp(max=c_bar)
    return float((weights * clipped).sum() / weights.sum().clamp_min(1e-12))


def centred_logits(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``z(a) = l(a) - mean_legal l``, the logits NeuRD's band applies to; ``[..., A]`` float and bool."""
    legal_f = legal.to(logits.dtype)
    n_legal = legal_f.sum(-1, keepdim=True).clamp_min(1)
    return logits - (logits * legal_f).sum(-1, keepdim=True) / n_legal
