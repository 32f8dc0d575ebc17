"""pyth.Size: the shape of a tensor, a tuple of ints (as torch.Size)."""

from __future__ import annotations

from typing import Any


class Size(tuple):
    """A tuple of dimension sizes; prints as pyth.Size([2, 3]). Slicing, + and * give Sizes."""

    def __repr__(self) -> str:
        return f"pyth.Size({list(self)})"

    def numel(self) -> int:
        """Number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, index: Any) -> Any:
        r = tuple.__getitem__(self, index)
        return Size(r) if isinstance(index, slice) else r

    def __add__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n: Any) -> "Size":
        if not isinstance(n, int):
            return NotImplemented
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))
