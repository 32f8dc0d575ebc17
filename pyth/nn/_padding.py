"""F.pad: constant padding by slicing and concatenation, reflect / replicate / circular padding
by gathering source positions with index_select, so every mode is differentiable through ops
that already have gradients. The convolutions' padding_mode uses the same gather."""

from __future__ import annotations

from collections.abc import Sequence

from .. import dtypes as _dt
from ..tensor import Tensor

_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_index(n: int, before: int, after: int, mode: str) -> list:
    """Source positions of a padded length for reflect / replicate / circular padding (circular
    wraps around what a negative pad leaves, as PyTorch's does)."""
    lo, hi = max(-before, 0), n - max(-after, 0)
    out = []
    for i in range(-before, n + after):
        if mode == "replicate":
            out.append(min(max(i, 0), n - 1))
        elif mode == "circular":
            out.append(lo + (i - lo) % (hi - lo))
        else:  # reflect: mirrored without repeating the edge
            j = abs(i)
            out.append(2 * (n - 1) - j if j >= n else j)
    return out


def _pad_nonzero(x: Tensor, pads: tuple, mode: str) -> Tensor:
    """x padded on its last len(pads) // 2 dims (pads: (before, after) per dim, first dim
    first) by index_select, so the padding is differentiable."""
    from ..factories import tensor
    nd = len(pads) // 2
    for i in range(nd):
        dim = x.dim() - nd + i
        before, after = pads[2 * i], pads[2 * i + 1]
        if before == 0 and after == 0:
            continue
        n = x.size(dim)
        if mode == "reflect" and (before >= n or after >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({before}, {after}) at "
                               f"dimension {dim} of input {list(x.shape)}")
        kept = n - max(-before, 0) - max(-after, 0)   # what negative pads leave to wrap
        if mode == "circular" and (before > kept or after > kept):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if kept < 0:
            raise RuntimeError(f"pad: padding ({before}, {after}) at dimension {dim} crops more "
                               f"than the input's {n} elements")
        if mode != "circular" and n + before + after < 1:
            raise RuntimeError(f"pad: input (size {n} at dimension {dim}) is too small for "
                               f"{mode} padding ({before}, {after}): calculated output size "
                               f"{n + before + after}")
        x = x.index_select(dim, tensor(_pad_index(n, before, after, mode), dtype=_dt.int64))
    return x


def _fill_value(value: float, dtype: _dt.dtype) -> float | int | bool:
    """The pad value as the input's dtype holds it (integers truncate, as a C cast does)."""
    if dtype is _dt.bool_:
        return bool(value)
    if dtype.is_floating_point or dtype.is_complex:
        return value
    return int(value)


def _pad_constant(x: Tensor, pad: tuple, value: float) -> Tensor:
    """x with pad[2i], pad[2i+1] elements before and after dim -1-i (negative ones crop)."""
    from ..factories import full
    from ..shape_ops import cat
    fill = _fill_value(value, x.dtype)
    out = x
    for i in range(len(pad) // 2):
        dim = x.dim() - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        n = out.size(dim)
        kept = n - max(-before, 0) - max(-after, 0)   # what negative pads leave
        if kept < 0:
            raise RuntimeError(f"pad: padding ({before}, {after}) at dimension {dim} crops more "
                               f"than the input's {n} elements")
        if before < 0 or after < 0:
            out = out.narrow(dim, max(-before, 0), kept)
        parts = []
        for k in (before, None, after):
            if k is None:
                parts.append(out)
            elif k > 0:
                shape = list(out.shape)
                shape[dim] = k
                parts.append(full(shape, fill, dtype=x.dtype))
        if len(parts) > 1:
            out = cat(parts, dim)
    return out.clone() if out is x else out


def _check_pad(input: Tensor, pad: Sequence[int]) -> tuple:
    if not isinstance(pad, (tuple, list)) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in pad):
        raise TypeError(f"pad(): argument 'pad' must be a tuple of ints, but got {pad!r}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.dim()}")
    return tuple(pad)


def _check_nonconstant(input: Tensor, pad: tuple, mode: str) -> None:
    """PyTorch's shapes for reflect / replicate / circular: k padded dims on a (k+1)-D or
    (k+2)-D input, k = 1, 2, 3; reflect and replicate need every dim but the first non-empty."""
    k = len(pad) // 2
    if not 1 <= k <= 3 or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode != "circular" and any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Tensor:
    """input padded on its last len(pad) // 2 dims; pad lists (before, after) pairs from the
    last dim backwards, as PyTorch's does. Modes: constant (value, default 0; negative pads
    crop), reflect, replicate, circular."""
    pads = _check_pad(input, pad)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        return _pad_constant(input, pads, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    _check_nonconstant(input, pads, mode)
    # (left, right, top, bottom, ...) -> (before, after) per dim, first padded dim first
    first_dim_first = sum((pads[2 * i:2 * i + 2] for i in reversed(range(len(pads) // 2))), ())
    out = _pad_nonzero(input, first_dim_first, mode)
    return out.clone() if out is input else out   # a new tensor even with nothing to pad
