"""InstanceNorm1d, InstanceNorm2d, InstanceNorm3d: per-sample, per-channel normalisation
(PyTorch's parameters, buffers, defaults — no affine, no running statistics — and repr)."""

from __future__ import annotations

import warnings
from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .batchnorm import _BatchNorm


class _InstanceNorm(_BatchNorm):
    """The batch-norm parameters and buffers, used per instance: batch statistics unless
    evaluating with track_running_stats (num_batches_tracked is kept but never counted)."""

    _spatial = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (self._spatial + 1, self._spatial + 2):
            raise ValueError(f"expected {self._spatial + 1}D or {self._spatial + 2}D input "
                             f"(got {input.dim()}D input)")

    def _check_features(self, input: Tensor) -> None:
        """A channel count other than num_features is an error with affine, else a warning."""
        dim = input.dim() - self._spatial - 1
        if input.size(dim) == self.num_features:
            return
        if self.affine:
            raise ValueError(f"expected input's size at dim={dim} to match num_features "
                             f"({self.num_features}), but got: {input.size(dim)}.")
        warnings.warn(f"input's size at dim={dim} does not match num_features. You can silence "
                      f"this warning by not passing in num_features, which is not used because "
                      f"affine=False", stacklevel=3)

    def _normalize(self, input: Tensor) -> Tensor:
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        self._check_features(input)
        if input.dim() == self._spatial + 1:   # unbatched
            return self._normalize(input.unsqueeze(0)).squeeze(0)
        return self._normalize(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over (N, C, L) or unbatched (C, L) input."""

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over (N, C, H, W) or unbatched (C, H, W) input."""

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over (N, C, D, H, W) or unbatched (C, D, H, W) input."""

    _spatial = 3
