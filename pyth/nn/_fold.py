"""F.unfold and F.fold (im2col / col2im) composed of differentiable ops, never materialising the
padding. Both share one index: the position, in the padded and flattened image, of every
(kernel row, kernel column, block row, block column) cell. unfold gathers the image at it
(index_select), fold sums the columns back into it (index_add): each is the other's gradient."""

from __future__ import annotations

from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .._prims.creation import arange, zeros
from ..tensor import Tensor, as_int64


def _ntuple(value: Any, n: int, name: str) -> tuple:
    """value as an n-tuple of ints (an int is repeated)."""
    if isinstance(value, (tuple, list)):
        if len(value) != n:
            raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value!r}")
        return tuple(as_int64(int(v), "", name) for v in value)
    return (as_int64(int(value), "", name),) * n


def _blocks(op: str, spatial: tuple, kernel: tuple, dilation: tuple, padding: tuple,
            stride: tuple) -> tuple:
    """The grid of sliding blocks (rows, columns), checking the arguments as PyTorch does."""
    _check_geometry(op, kernel, dilation, padding, stride)
    grid = tuple((s + 2 * p - (d * (k - 1) + 1)) // st + 1
                 for s, k, d, p, st in zip(spatial, kernel, dilation, padding, stride))
    if min(grid) < 1:
        raise RuntimeError(f"{op}(): given spatial size {list(spatial)}, kernel_size="
                           f"{list(kernel)}, dilation={list(dilation)}, padding={list(padding)}"
                           f", stride={list(stride)}, the array of sliding blocks would be "
                           f"{list(grid)}, but its components must be at least one")
    return grid


def _check_geometry(op: str, kernel: tuple, dilation: tuple, padding: tuple,
                    stride: tuple) -> None:
    """RuntimeError for a kernel size, dilation or stride below one or a negative padding,
    before anything divides by them."""
    for name, vals, low in (("kernel size", kernel, 1), ("dilation", dilation, 1),
                            ("stride", stride, 1), ("padding", padding, 0)):
        if min(vals) < low:
            raise RuntimeError(f"{op}(): {name} should be "
                               f"{'greater than zero' if low else 'non-negative'}, but got "
                               f"{name} {list(vals)}")


def _block_index(spatial: tuple, kernel: tuple, dilation: tuple, padding: tuple,
                 stride: tuple, grid: tuple) -> tuple:
    """(index, inside) over the kh*kw*oh*ow block cells: each cell's position in the flattened
    unpadded image (0 where the cell lies in the padding), and a bool mask of the cells inside
    it (None when every cell is). The padding is never materialised, so the work and memory
    are the result's, however large the padding."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw), (oh, ow) = kernel, dilation, padding, stride, grid
    rows = arange(kh).reshape(kh, 1, 1, 1) * dh + arange(oh).reshape(1, 1, oh, 1) * sh - ph
    cols = arange(kw).reshape(1, kw, 1, 1) * dw + arange(ow).reshape(1, 1, 1, ow) * sw - pw
    if not any(padding):
        return (rows * spatial[1] + cols).reshape(-1), None
    inside = ((rows >= 0) & (rows < spatial[0])) & ((cols >= 0) & (cols < spatial[1]))
    index = (rows.clamp(0, spatial[0] - 1) * spatial[1] + cols.clamp(0, spatial[1] - 1))
    return index.reshape(-1), inside.reshape(-1)


def _geometry(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple:
    """kernel_size, dilation, padding and stride as pairs of ints."""
    return tuple(_ntuple(v, 2, n) for v, n in ((kernel_size, "kernel_size"),
                                               (dilation, "dilation"), (padding, "padding"),
                                               (stride, "stride")))


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """im2col: (N, C, H, W) -> (N, C*kh*kw, L), each column one sliding block's cells (the
    blocks row by row); an unbatched (C, H, W) gives (C*kh*kw, L)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(unfold, locals())
    if input.dim() not in (3, 4) or any(s == 0 for s in input.shape[input.dim() - 3:]):
        raise RuntimeError(f"unfold(): expected a non-empty 3D or 4D (batch mode) input, "
                           f"with an optional 0-size batch dim, got {list(input.shape)}")
    kernel, dilation, padding, stride = _geometry(kernel_size, dilation, padding, stride)
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    grid = _blocks("unfold", (h, w), kernel, dilation, padding, stride)
    index, inside = _block_index((h, w), kernel, dilation, padding, stride, grid)
    cols = x.reshape(n, c, h * w).index_select(2, index)
    if inside is not None:   # cells in the padding read 0 (whatever the clamped cell holds)
        cols = cols.masked_fill(~inside, 0)
    cols = cols.reshape(n, c * kernel[0] * kernel[1], grid[0] * grid[1])
    return cols if input.dim() == 4 else cols.squeeze(0)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """col2im: (N, C*kh*kw, L) -> (N, C, *output_size), each block's cells summed back into
    place (overlaps add up); an unbatched (C*kh*kw, L) gives (C, *output_size)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(fold, locals())
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[input.dim() - 2:]):
        raise RuntimeError(f"fold(): expected a non-empty 2D or 3D (batch mode) input, with an "
                           f"optional 0-size batch dim, got {list(input.shape)}")
    size = _ntuple(output_size, 2, "output_size")
    kernel, dilation, padding, stride = _geometry(kernel_size, dilation, padding, stride)
    if min(size) < 1:
        raise RuntimeError(f"fold(): output_size should be greater than zero, got {list(size)}")
    _check_geometry("fold", kernel, dilation, padding, stride)   # (cells divides below)
    x = input if input.dim() == 3 else input.unsqueeze(0)
    n, ckk, blocks = x.shape
    cells = kernel[0] * kernel[1]
    if ckk % cells:
        raise RuntimeError(f"fold(): expected input's dim 1 ({ckk}) to be divisible by the "
                           f"product of kernel_size {list(kernel)}")
    grid = _blocks("fold", size, kernel, dilation, padding, stride)
    if blocks != grid[0] * grid[1]:
        raise RuntimeError(f"fold(): expected input's dim 2 to be the number of sliding blocks "
                           f"{grid[0]} * {grid[1]} = {grid[0] * grid[1]}, got {blocks}")
    index, inside = _block_index(size, kernel, dilation, padding, stride, grid)
    c = ckk // cells
    src = x.reshape(n, c, cells * blocks)
    if inside is not None:   # cells in the padding add to nothing
        kept = inside.nonzero().reshape(-1)
        index, src = index.index_select(0, kept), src.index_select(2, kept)
    out = zeros(n, c, size[0] * size[1], dtype=input.dtype)
    out = out.index_add(2, index, src).reshape(n, c, *size)
    return out if input.dim() == 3 else out.squeeze(0)
