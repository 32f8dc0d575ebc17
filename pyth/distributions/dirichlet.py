"""Dirichlet(concentration): distributions over the simplex; rsample's gradient is PyTorch's
implicit one, d x_j / d alpha_i = g_i (delta_ij - x_j) with g = _dirichlet_grad(x, alpha,
sum alpha)."""

from __future__ import annotations

from typing import Any

from .._refs.sampling import _dirichlet_grad, _sample_dirichlet
from ..autograd import grad_mode
from ..autograd.function import refuse_second_order
from ..autograd.record import Op, next_edges, record_node
from .._size import Size
from ..nn.functional import one_hot
from ..tensor import Tensor
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x: Tensor, concentration: Tensor, grad_output: Tensor) -> Tensor:
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = _dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


def _dirichlet_backward(g: Tensor, a: dict) -> list:
    """The implicit gradient, computed without recording, as PyTorch's once_differentiable
    backward: under create_graph a gradient that flows on refuses a second differentiation."""
    with grad_mode.no_grad():
        r = _Dirichlet_backward(a["result"], a["concentration"], g)
    return [refuse_second_order(r, g)]


_DIRICHLET = Op("_dirichlet", "concentration", _dirichlet_backward, node="_DirichletBackward")


class Dirichlet(ExponentialFamily):
    """Density prod x_i^(a_i - 1) / B(a) on the simplex, a = concentration (last dim)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Dirichlet":
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        edges = next_edges(concentration)
        x = _sample_dirichlet(concentration)
        if edges is not None:
            record_node(_DIRICHLET, edges, x, {"result": x, "concentration": concentration})
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return ((c - 1).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        concm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concm1 / concm1.sum(-1, keepdim=True)
        mask = (self.concentration < 1).all(dim=-1)
        if bool(mask.any()):
            hot = one_hot(mode.argmax(-1), concm1.shape[-1]).to(mode.dtype)
            mode = hot.where(mask.unsqueeze(-1), mode)
        return mode

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return (c.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma()
                - ((c - 1.0) * c.digamma()).sum(-1))

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
