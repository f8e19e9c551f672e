"""The R-NaD learner: four copies of a network, the schedule, and one update per batch.

Source: DeepNash (arXiv) "Methods: additional information" (R-NaD at scale,
Table 3) and ``docs/rnad.md`` §2-§7. The network is any ``nn.Module`` mapping
an observation batch ``[N, ...]`` to ``(logits [N, A], value [N] or [N, 1])``;
the value is the acting player's.

An update is two passes over a batch of whole trajectories (``docs/rnad.md`` §7): a first
pass without gradients evaluates every network over the whole trajectory and
computes the v-trace targets and NeuRD advantages of both players; a second
pass over time chunks (last chunk first) accumulates the gradients of the
losses, then the optimiser applies them once. ``accumulate_gradients`` and
``apply_update`` are separate so a data-parallel loop can average gradients
between them; ``step`` does both.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping

import torch
from torch import nn

from .config import RNaDConfig
from .losses import (critic_loss, legal_log_softmax, neurd_advantage, neurd_loss, outside_band_mass,
                     regularised_log_ratio, step_weights, truncated_importance_weight)
from .optim import ClippedAdam, load_moments
from .projection import project
from .schedule import SchedulePoint, schedule_point
from .trajectory import Trajectory
from .vtrace import v_trace

NETWORK_NAMES = ("theta", "theta_target", "theta_reg", "theta_reg_prev")


def evaluate(network: nn.Module, observation: torch.Tensor, valid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Run ``network`` on the valid steps of a ``[T, B, ...]`` observation.

    Returns:
        ``(logits [T, B, A], value [T, B])``, zero on padding.

    Raises:
        ValueError: if the network's outputs do not have the documented shapes.
    """
    obs, scatter = _valid_rows(observation, valid)
    logits, value = network(obs)
    return scatter(_checked_logits(logits, len(obs))), scatter(_checked_value(value, len(obs)))


def evaluate_logits(network: nn.Module, observation: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """``evaluate(...)[0]``, the logits ``[T, B, A]``; a network whose class has a ``logits(obs)`` method
    (``DeepNashNet``: the policy heads without the value head's work, about a fifth less) runs that alone."""
    obs, scatter = _valid_rows(observation, valid)
    logits = network.logits(obs) if _has_method(network, "logits") else network(obs)[0]
    return scatter(_checked_logits(logits, len(obs)))


def evaluate_value(network: nn.Module, observation: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """``evaluate(...)[1]``, the value ``[T, B]``; a network whose class has a ``value(obs)`` method
    (``DeepNashNet``: the value head without the policy heads' work, about a fifth less) runs that alone."""
    obs, scatter = _valid_rows(observation, valid)
    value = network.value(obs) if _has_method(network, "value") else network(obs)[1]
    return scatter(_checked_value(value, len(obs)))


def _has_method(network: nn.Module, name: str) -> bool:
    """Whether ``network``'s class defines a method ``name`` (a submodule of that name is not one)."""
    return callable(getattr(type(network), name, None))


def _valid_rows(observation: torch.Tensor, valid: torch.Tensor) -> tuple[torch.Tensor, Callable]:
    """The valid steps' observations ``[N, ...]`` of ``observation [T, B, ...]``, and the function that puts
    per-row outputs ``[N, ...]`` back at their steps, ``[T, B, ...]`` with zeros on padding."""
    T, B = valid.shape
    flat_valid = valid.reshape(-1)

    def scatter(rows: torch.Tensor) -> torch.Tensor:
        full = rows.new_zeros(T * B, *rows.shape[1:]).index_put((flat_valid,), rows)
        return full.reshape(T, B, *rows.shape[1:])

    return observation.reshape(T * B, *observation.shape[2:])[flat_valid], scatter


def _checked_logits(logits: torch.Tensor, n: int) -> torch.Tensor:
    if logits.dim() != 2 or logits.shape[0] != n:
        raise ValueError(f"network logits have shape {tuple(logits.shape)}, expected [N, A] with N = {n}")
    return logits


def _checked_value(value: torch.Tensor, n: int) -> torch.Tensor:
    if value.dim() == 2 and value.shape[1] == 1:
        value = value[:, 0]
    if tuple(value.shape) != (n,):
        raise ValueError(f"network value has shape {tuple(value.shape)}, expected [N] or [N, 1] with N = {n}")
    return value


def _chunks(length: int, chunk_size: int | None) -> list[slice]:
    if chunk_size is None:
        return [slice(0, length)]
    if chunk_size < 1:
        raise ValueError(f"chunk_size = {chunk_size!r}: must be None or >= 1")
    return [slice(s, min(s + chunk_size, length)) for s in range(0, length, chunk_size)]


@torch.no_grad()
def _evaluate_chunked(run: Callable[..., torch.Tensor], network: nn.Module, traj: Trajectory,
                      chunks: list[slice]) -> torch.Tensor:
    """``run`` (``evaluate_logits`` or ``evaluate_value``) over the trajectory, chunk by chunk, concatenated."""
    return torch.cat([run(network, traj.observation[c], traj.valid[c]) for c in chunks])


def _same_weights(a: nn.Module, b: nn.Module) -> bool:
    """Whether two networks hold equal tensors (parameters and buffers), so their outputs are equal."""
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


class RNaDLearner:
    """Keeps theta, theta_target, theta_reg, theta_reg_prev and the optimiser (``docs/rnad.md`` §2).

    Args:
        make_network: builds one network; called once, the other three are deep copies.
        config: hyperparameters (defaults: the paper's Table 3).
        device: where the networks live; trajectories are moved there.
    """

    def __init__(self, make_network: Callable[[], nn.Module], config: RNaDConfig | None = None,
                 device: torch.device | str = "cpu") -> None:
        self.config = config if config is not None else RNaDConfig()
        self.device = torch.device(device)
        self.theta = make_network().to(self.device)
        if not isinstance(self.theta, nn.Module):
            raise TypeError(f"make_network() must return an nn.Module, got {type(self.theta).__name__}")
        self.theta_target = copy.deepcopy(self.theta).requires_grad_(False)
        self.theta_reg = copy.deepcopy(self.theta).requires_grad_(False)
        self.theta_reg_prev = copy.deepcopy(self.theta).requires_grad_(False)
        self.optimizer = ClippedAdam(self.theta.parameters(), self.config.adam)
        self.learner_step = 0

    def networks(self) -> dict[str, nn.Module]:
        """The four networks by name (``NETWORK_NAMES``), e.g. to save each with safetensors."""
        return {name: getattr(self, name) for name in NETWORK_NAMES}

    def schedule(self) -> SchedulePoint:
        """Where the next update falls in the entropy schedule."""
        return schedule_point(self.config.schedule, self.learner_step)

    @torch.no_grad()
    def policy(self, observation: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """The online policy pi_theta ``[N, A]`` for observations ``[N, ...]`` and legal masks ``[N, A]`` (bool)."""
        logits = evaluate_logits(self.theta, observation[None].to(self.device),
                                 torch.ones(1, observation.shape[0], dtype=torch.bool, device=self.device))
        return legal_log_softmax(logits[0], legal.to(self.device))[0]

    def accumulate_gradients(self, trajectory: Trajectory, chunk_size: int | None = None) -> dict[str, float]:
        """Both passes of ``docs/rnad.md`` §7: targets over the whole trajectory, then gradients chunk by chunk.

        Gradients are added to ``theta``'s ``.grad``; call :meth:`apply_update` next.

        Args:
            trajectory: ``[T, B, ...]`` batch of whole games.
            chunk_size: time steps per chunk of the gradient pass (None: one chunk).

        Returns:
            metrics: ``loss_critic``, ``loss_policy``, ``alpha``, ``iteration``,
            ``learner_step``, ``finetune`` (1.0 when the projection was applied),
            ``valid_steps``, ``outside_band`` (:func:`outside_band_mass` of the online policy) and
            ``importance_weight`` (:func:`truncated_importance_weight` of the policy v-trace reads).
        """
        cfg = self.config
        traj = trajectory.to(self.device)
        chunks = _chunks(traj.length, chunk_size)
        point = self.schedule()
        # The online network's pass over the last chunk keeps its graph: the gradient pass starts there.
        with torch.no_grad():
            head = [evaluate_logits(self.theta, traj.observation[c], traj.valid[c]) for c in chunks[:-1]]
        last = evaluate(self.theta, traj.observation[chunks[-1]], traj.valid[chunks[-1]])
        with torch.no_grad():
            logits = torch.cat([*head, last[0].detach()])
            value = _evaluate_chunked(evaluate_value, self.theta_target, traj, chunks)
            pi, log_pi = legal_log_softmax(logits, traj.legal)
            log_reg = legal_log_softmax(_evaluate_chunked(evaluate_logits, self.theta_reg, traj, chunks), traj.legal)[1]
            if point.alpha < 1.0 and not _same_weights(self.theta_reg, self.theta_reg_prev):
                log_reg_prev = legal_log_softmax(_evaluate_chunked(evaluate_logits, self.theta_reg_prev, traj, chunks),
                                                 traj.legal)[1]
            else:  # alpha = 1 reads no previous regulariser; equal weights (a held prior) give equal outputs
                log_reg_prev = log_reg
            log_ratio = regularised_log_ratio(log_pi, log_reg, log_reg_prev, point.alpha)
            finetune = cfg.finetune.active(self.learner_step)
            pi_trace = project(pi, cfg.finetune.threshold, cfg.finetune.quanta) if finetune else pi
            targets = [v_trace(player_id=i, value=value, valid=traj.valid, player=traj.player, policy=pi_trace,
                               log_ratio=log_ratio, behaviour=traj.behaviour, action=traj.action,
                               reward=traj.rewards[..., i], eta=cfg.eta, rho_bar=cfg.rho_bar, c_bar=cfg.c_bar)
                       for i in (0, 1)]
            v_target = targets[0].v_target + targets[1].v_target
            advantage = neurd_advantage(targets[0].q_target + targets[1].q_target, pi, cfg.neurd.clip)
            weights = step_weights([t.own for t in targets])
            band = outside_band_mass(pi, logits, traj.legal, weights, cfg.neurd.beta)
            importance = truncated_importance_weight(pi_trace, traj.behaviour, traj.action, weights, cfg.c_bar)
        loss_v = loss_pi = 0.0
        for c in reversed(chunks):
            logits_c, value_c = last if c == chunks[-1] else evaluate(self.theta, traj.observation[c], traj.valid[c])
            lv = critic_loss(value_c, v_target[c], weights[c])
            lp = neurd_loss(logits_c, traj.legal[c], advantage[c], weights[c], cfg.neurd.beta)
            (lv + lp).backward()
            loss_v += float(lv.detach())
            loss_pi += float(lp.detach())
        valid_steps = int(traj.valid.sum())
        return {"loss_critic": loss_v, "loss_policy": loss_pi, "alpha": point.alpha,
                "iteration": float(point.iteration), "learner_step": float(self.learner_step),
                "finetune": float(finetune), "valid_steps": float(valid_steps), "outside_band": band,
                "importance_weight": importance}

    @torch.no_grad()
    def apply_update(self) -> dict[str, float]:
        """Apply the accumulated gradients, move the target network, switch regularisers at an iteration's end
        (not before iteration ``config.hold_reg_iterations`` ends).

        Returns:
            metrics: ``grad_norm`` (of the applied gradient) and ``switched`` (1.0 at a switch).
        """
        point = self.schedule()
        grads = [p.grad for p in self.theta.parameters() if p.grad is not None]
        grad_norm = float(torch.linalg.vector_norm(torch.stack([g.norm() for g in grads]))) if grads else 0.0
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        for tgt, src in zip(self.theta_target.parameters(), self.theta.parameters()):
            tgt.lerp_(src, self.config.gamma_avg)
        for tgt, src in zip(self.theta_target.buffers(), self.theta.buffers()):
            tgt.copy_(src)
        switch = point.switch and point.iteration >= self.config.hold_reg_iterations
        if switch:
            self.theta_reg_prev.load_state_dict(self.theta_reg.state_dict())
            self.theta_reg.load_state_dict(self.theta_target.state_dict())
        self.learner_step += 1
        return {"grad_norm": grad_norm, "switched": float(switch)}

    def step(self, trajectory: Trajectory, chunk_size: int | None = None) -> dict[str, float]:
        """One learner update on ``trajectory``: :meth:`accumulate_gradients` then :meth:`apply_update`."""
        metrics = self.accumulate_gradients(trajectory, chunk_size)
        metrics.update(self.apply_update())
        return metrics

    def state_dict(self) -> dict[str, object]:
        """``{name: network state_dict for NETWORK_NAMES, "optimizer": ..., "learner_step": int}``."""
        out: dict[str, object] = {name: net.state_dict() for name, net in self.networks().items()}
        out["optimizer"] = self.optimizer.state_dict()
        out["learner_step"] = self.learner_step
        return out

    def load_state_dict(self, state: Mapping[str, object]) -> None:
        """Restore what :meth:`state_dict` returned.  The optimiser's moments come from ``state``; its
        hyperparameters (learning rate, betas, eps, clip) stay this learner's ``config.adam``, so a resumed
        run can change them (``train --resume DIR --lr X``).

        Raises:
            KeyError: naming the missing entries.
        """
        missing = [k for k in (*NETWORK_NAMES, "optimizer", "learner_step") if k not in state]
        if missing:
            raise KeyError(f"RNaDLearner.load_state_dict: missing {missing}")
        for name, net in self.networks().items():
            net.load_state_dict(state[name])
        load_moments(self.optimizer, state["optimizer"])
        self.learner_step = int(state["learner_step"])
