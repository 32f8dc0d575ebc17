"""Channel and alpha dropout: Dropout1d/2d/3d zero whole channels while training;
AlphaDropout and FeatureAlphaDropout keep a SELU network's mean and variance."""

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


class Dropout3d(Dropout):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Dropout for SELU networks, keeping the input's mean and variance (inplace is unused)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels (inplace is unused, as PyTorch's)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
