"""HalfCauchy(scale): |X| for X ~ Cauchy(0, scale)."""

from __future__ import annotations

import math
from typing import Any

from .._prims.creation import full
from ..tensor import Tensor
from . import constraints
from .cauchy import Cauchy
from .half_normal import _FoldedAtZero
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_FoldedAtZero):
    """The folded Cauchy of location 0."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "HalfCauchy":
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance
