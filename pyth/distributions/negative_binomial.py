"""NegativeBinomial(total_count, probs | logits): failures before total_count successes of
trials succeeding with probability 1 - probs; sampled as Poisson(Gamma(total_count, ...))."""

from __future__ import annotations

from typing import Any

from .._refs.sampling import poisson
from .._size import Size
from ..autograd import grad_mode
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _BinaryParameters, lazy_property

__all__ = ["NegativeBinomial"]


def _logsigmoid(x: Tensor) -> Tensor:
    return -x.new_zeros(()).logaddexp(-x)


class NegativeBinomial(_BinaryParameters, Distribution):
    """P(k) = C(k + r - 1, k) (1 - p)^r p^k, r = total_count, p = probs."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._set_count_and_probs_or_logits(total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "NegativeBinomial":
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self) -> Gamma:
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(),
                     validate_args=False)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with grad_mode.no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * _logsigmoid(-self.logits)
                                 + value * _logsigmoid(self.logits))
        log_normalization = (-(self.total_count + value).lgamma() + (1.0 + value).lgamma()
                             + self.total_count.lgamma())
        # total_count = value = 0 has probability 1, where lgamma(0) is infinite
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
