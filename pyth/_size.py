"""pyth.Size: the shape of a tensor, a tuple of ints (as torch.Size)."""

from __future__ import annotations


class Size(tuple):
    """A tuple of dimension sizes; prints as pyth.Size([2, 3])."""

    def __repr__(self) -> str:
        return f"pyth.Size({list(self)})"

    def numel(self) -> int:
        """Number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n
