"""ExponentialFamily: the base of distributions whose density is exp(<t(x), theta> - F(theta) +
k(x)); entropy and KL between two of one family follow from the log-normaliser F."""

from __future__ import annotations

from typing import Any

from ..autograd import grad_mode
from ..autograd.gradients import grad
from ..tensor import Tensor
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Subclasses give _natural_params, _log_normalizer and _mean_carrier_measure."""

    @property
    def _natural_params(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """-E[log p] through the Bregman divergence of the log-normaliser."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with grad_mode.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
