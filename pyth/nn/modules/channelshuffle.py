"""ChannelShuffle over F.channel_shuffle."""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class ChannelShuffle(Module):
    """Interleaves the channels of groups groups (F.channel_shuffle)."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
