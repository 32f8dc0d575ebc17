"""Channel dropout: Dropout1d and Dropout2d zero whole channels while training."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .other import Dropout


class Dropout1d(Dropout):
    """Zeroes whole channels of (N, C, L) or (C, L) input with probability p."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) input with probability p."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)
