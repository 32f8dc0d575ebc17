"""F.pad: every mode by slicing and concatenation (constant pads are filled blocks; reflect,
replicate and circular pads are flipped, expanded or wrapped slices of the input), so every mode
is differentiable through ops that already have gradients and costs what its result does. The
convolutions' padding_mode uses the same slices."""

from __future__ import annotations

from collections.abc import Sequence

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._prims.creation import full
from ..autograd.recorded import cat
from ..tensor import Tensor

_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_parts(x: Tensor, dim: int, before: int, after: int, mode: str) -> list:
    """The slices of x whose concatenation along dim is x padded by (before, after) there in
    reflect / replicate / circular mode (negative pads crop; circular wraps around what they
    leave, as PyTorch's does). Every part is a view (replicate's edges expanded, reflect's
    mirrors flipped copies of at most the input), so the work and memory are the result's,
    found by cat in one checked allocation: no per-position list, whatever the pad."""
    n = x.size(dim)
    lo = max(-before, 0)
    kept = n - lo - max(-after, 0)
    mid = x.narrow(dim, lo, kept)
    left = right = None
    if mode == "replicate":
        shape = list(x.shape)
        if before > 0:
            shape[dim] = before
            left = x.narrow(dim, 0, 1).expand(shape)
        if after > 0:
            shape[dim] = after
            right = x.narrow(dim, n - 1, 1).expand(shape)
    elif mode == "circular":
        if before > 0:
            left = mid.narrow(dim, kept - before, before)
        if after > 0:
            right = mid.narrow(dim, 0, after)
    else:  # reflect: mirrored about the input's edge, without repeating it
        if before > 0:
            left = x.narrow(dim, 1, before).flip(dim)
        if after > 0:
            right = x.narrow(dim, n - 1 - after, after).flip(dim)
    return [p for p in (left, mid, right) if p is not None]


def _pad_nonzero(x: Tensor, pads: tuple, mode: str) -> Tensor:
    """x padded on its last len(pads) // 2 dims (pads: (before, after) per dim, first dim
    first) by concatenating views, so the padding is differentiable."""
    nd = len(pads) // 2
    copied = False
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
        parts = _pad_parts(x, dim, before, after, mode)
        x = cat(parts, dim) if len(parts) > 1 else parts[0]
        copied = copied or len(parts) > 1
    return x if copied else x.clone()   # crops alone still give a new tensor


def _fill_value(value: float, dtype: _dt.dtype) -> float | int | bool:
    """The pad value as the input's dtype holds it (integers truncate, as a C cast does)."""
    if dtype is _dt.bool_:
        return bool(value)
    if dtype.is_floating_point or dtype.is_complex:
        return value
    return int(value)


def _pad_constant(x: Tensor, pad: tuple, value: float) -> Tensor:
    """x with pad[2i], pad[2i+1] elements before and after dim -1-i (negative ones crop)."""
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
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(pad, locals())
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
