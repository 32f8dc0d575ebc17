"""Stochastic weight averaging (Izmailov et al.) and exponential moving averages of a model:
AveragedModel keeps a running average of another model's parameters, SWALR anneals each
group's lr to a constant swa_lr, update_bn recomputes BatchNorm statistics for the average."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable
from copy import deepcopy
from typing import Any, Callable

from .. import dtypes as _dt
from .._prims.creation import tensor
from ..autograd import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..tensor import Tensor
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay: float) -> None:
    """ValueError unless 0 <= decay <= 1."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """An in-place update of lists of averages: ema = decay ema + (1 - decay) p."""
    _check_decay(decay)

    def ema_update(averages: list, currents: list, _: Any) -> None:
        """Moves every average towards its current value, in place."""
        with no_grad():
            for avg, cur in zip(averages, currents):
                if avg.dtype.is_floating_point:
                    avg.lerp_(cur, 1 - decay)
                else:
                    avg.copy_(avg * decay + cur * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """An in-place update of lists of averages: the running mean over num_averaged + 1."""
    def swa_update(averages: list, currents: list, num_averaged: Any) -> None:
        """Folds the current values into the running means, in place."""
        with no_grad():
            for avg, cur in zip(averages, currents):
                if avg.dtype.is_floating_point:
                    avg.lerp_(cur, float(1 / (num_averaged + 1)))
                elif isinstance(num_averaged, Tensor):
                    avg.addcdiv_(cur - avg, num_averaged + 1)
                else:
                    avg.add_(cur - avg, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """The new average of one parameter: decay ema + (1 - decay) p."""
    _check_decay(decay)

    def ema_update(ema: Tensor, current: Tensor, num_averaged: Any) -> Tensor:
        """The moved average."""
        with no_grad():
            return decay * ema + (1 - decay) * current
    return ema_update


def get_swa_avg_fn() -> Callable:
    """The new average of one parameter: avg + (p - avg) / (num_averaged + 1)."""
    def swa_update(averaged: Tensor, current: Tensor, num_averaged: Any) -> Tensor:
        """The running mean with current folded in."""
        with no_grad():
            return averaged + (current - averaged) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of model whose parameters (and, with use_buffers, buffers) are the average of
    the models passed to update_parameters: the running mean by default, or avg_fn /
    multi_avg_fn's (an EMA, say). n_averaged counts the updates."""

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dt.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The averaged model's output."""
        return self.module(*args, **kwargs)

    def _pairs(self, model: Module) -> tuple:
        """(averaged, model) tensors to pair up: parameters, and buffers with use_buffers."""
        if self.use_buffers:
            return (itertools.chain(self.module.parameters(), self.module.buffers()),
                    itertools.chain(model.parameters(), model.buffers()))
        return self.parameters(), model.parameters()

    def update_parameters(self, model: Module) -> None:
        """Folds model's current parameters into the average (the first call copies them)."""
        mine, theirs = self._pairs(model)
        averages, currents = [], []
        first = int(self.n_averaged) == 0
        with no_grad():
            for avg, cur in zip(mine, theirs):
                averages.append(avg.detach())
                currents.append(cur.detach())
                if first:
                    avg.detach().copy_(cur.detach())
            if not first:
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(averages, currents, self.n_averaged)
                elif self.avg_fn is None:
                    fn = get_swa_avg_fn()
                    for avg, cur in zip(averages, currents):
                        avg.copy_(fn(avg, cur, self.n_averaged))
                else:
                    for avg, cur in zip(averages, currents):
                        avg.copy_(self.avg_fn(avg, cur, self.n_averaged))
            if not self.use_buffers:
                for mine_b, theirs_b in zip(self.module.buffers(), model.buffers()):
                    mine_b.detach().copy_(theirs_b.detach())
            self.n_averaged += 1


def update_bn(loader: Iterable, model: Module, device: Any = None) -> None:
    """Recomputes the running statistics of model's BatchNorm layers from one pass over
    loader (the cumulative average of every batch), as an averaged model needs."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to swa_lr over anneal_epochs (cos or linear), then holds it."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        for lr, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        """The linear annealing weight at t in [0, 1]."""
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        """The cosine annealing weight at t in [0, 1]."""
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The lr the annealing started from, recovered from this step's lr and alpha."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / span)))
        starts = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                  for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / span)))
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, starts)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        """Selects the annealing weight by name (kept by name in the state dict)."""
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        """As the base, without the annealing function (restored from its name on load)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
