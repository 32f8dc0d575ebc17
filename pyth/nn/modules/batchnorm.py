"""BatchNorm1d, BatchNorm2d, BatchNorm3d: per-channel normalisation with running statistics
(PyTorch's parameters, buffers, state_dict keys and momentum rules)."""

from __future__ import annotations

from typing import Any

from ... import dtypes as _dt
from ..._prims.creation import ones, tensor, zeros
from ...tensor import Tensor
from .. import functional as F
from .module import Module
from .normalization import affine_parameters, reset_affine


class _BatchNorm(Module):
    """weight (ones) and bias (zeros, unless bias=False) when affine; running_mean, running_var and
    num_batches_tracked buffers when track_running_stats."""

    _ranks: tuple = ()
    _expect = ""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        dt = _dt.resolve(dtype) if dtype is not None else _dt.get_default_dtype()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        affine_parameters(self, (num_features,), affine, bias, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dt))
            self.register_buffer("running_var", ones(num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=_dt.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in self._ranks:
            raise ValueError(f"expected {self._expect} input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            # momentum=None: the cumulative average over all batches seen
            factor = 1.0 / int(self.num_batches_tracked) if self.momentum is None \
                else self.momentum
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias,
                            use_batch, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input."""

    _ranks, _expect = (2, 3), "2D or 3D"


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input."""

    _ranks, _expect = (4,), "4D"


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) input."""

    _ranks, _expect = (5,), "5D"
