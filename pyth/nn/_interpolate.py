"""F.interpolate (and the deprecated F.upsample, F.upsample_nearest, F.upsample_bilinear),
F.pixel_shuffle, F.pixel_unshuffle and F.channel_shuffle, composed of differentiable ops so that
every mode has gradients.

How interpolation is computed:
1. Every mode is separable: resampling an N-d grid is resampling one spatial dim after another.
   For each dim, numpy works out once which source positions (taps) each output reads and with
   which weights, with PyTorch's CPU formulas in the precision its kernels use (float32 for
   float32, float16, bfloat16 and uint8 inputs, float64 for float64; floors through float32 as
   its floorf does), so the same positions are chosen bit for bit.
2. The tensor is resampled dim by dim, last dim first, as out = sum_k index_select(taps_k) *
   weight_k (nearest modes: one tap and no weight). PyTorch's kernels accumulate in that order:
   the innermost dim is interpolated first, its results combined along the outer dims.
3. float16 / bfloat16 compute in float32 and round once at the end (PyTorch's opmath). uint8
   bilinear / bicubic and antialiased modes follow PyTorch's separable kernels: a dim whose size
   does not change is skipped; uint8 uses weights scaled to int16 with a per-dim precision and
   rounds, shifts and clamps after each dim, so results match to the last bit.
4. 'area' is adaptive average pooling (the THNN kernel), as in PyTorch; 3-d is 2-d pooling over
   (H, W) followed by pooling over D (the boxes are separable, so the means are the same).
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch, overridden as _overridden
from .. import dtypes as _dt
from .._errors import not_implemented
from .._prims.creation import tensor
from ..tensor import Tensor
from ._pool_kernels import adaptive_avg_pool1d, adaptive_avg_pool2d

_INT64_MAX = 2**63 - 1
_HALVES = (_dt.float16, _dt.bfloat16)
_FLOATS = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
_NEAREST_DTYPES = (_dt.uint8, *_FLOATS)
_AA_DTYPES = (_dt.uint8, _dt.float32, _dt.float64)
_NO_ALIGN = ("nearest", "area", "nearest-exact")    # modes that refuse align_corners
_ANTIALIASED = ("bilinear", "bicubic", "lanczos")
_LINEAR_NEEDS = {"linear": 1, "bilinear": 2, "trilinear": 3}
_DIM_NAMES = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


# ==== taps: which source positions each output reads, and with what weights ===================
#
# A plan for one dim is (idx, wts): idx an int64 array (K, n_out) of source positions, wts an
# array (K, n_out) of weights, or None when the mode only copies (nearest).

def _floorf(v: np.ndarray) -> np.ndarray:
    """floor(v) after rounding v to float32: PyTorch floors every source index with floorf."""
    return np.floor(np.asarray(v).astype(np.float32)).astype(np.int64)


def _ratio(n_in: int, n_out: int, align_corners: bool, scale: float | None, ft: type) -> Any:
    """Input size per output cell of one dim in precision ft: (n_in - 1) / (n_out - 1) with
    align_corners, else 1 / scale_factor when one was given, else n_in / n_out."""
    if align_corners:
        return ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(n_in) / ft(n_out)


def _source(ratio: Any, n_out: int, align_corners: bool, cubic: bool, ft: type) -> np.ndarray:
    """Each output's real-valued source coordinate: i * ratio with align_corners, else the pixel
    centres mapped, (i + 0.5) * ratio - 0.5, held at 0 from below except for cubic."""
    i = np.arange(n_out).astype(ft)
    if align_corners:
        return ratio * i
    src = ratio * (i + ft(0.5)) - ft(0.5)
    return src if cubic else np.where(src < 0, ft(0), src)


def _nearest_plan(n_in: int, n_out: int, scale: float | None, ft: type, exact: bool,
                  fast: bool) -> tuple:
    """nearest: floor(i * ratio); nearest-exact: floor((i + 0.5) * ratio). fast is PyTorch's
    channels-last / small-output kernel, whose ratio is float32 and which copies when the size
    is kept and halves the index when it doubles, whatever the scale_factor."""
    i = np.arange(n_out)
    if fast and not exact and n_out in (n_in, 2 * n_in):
        return (i if n_out == n_in else i >> 1)[None], None
    if fast:
        r = _ratio(n_in, n_out, False, scale, np.float32)
        src = (i + 0.5) * np.float64(r) if exact else i.astype(np.float32) * r
    else:
        r = _ratio(n_in, n_out, False, scale, ft)
        src = (np.float64(_source(r, n_out, False, False, ft)) + 0.5 if exact
               else r * i.astype(ft))
    return np.minimum(_floorf(src), n_in - 1)[None], None


def _linear_plan(n_in: int, n_out: int, scale: float | None, align_corners: bool,
                 ft: type) -> tuple:
    """Two taps around the source coordinate, weighted by distance (a kept size copies)."""
    if n_out == n_in:
        i = np.arange(n_out)
        return np.stack([i, i]), np.stack([np.ones(n_out, ft), np.zeros(n_out, ft)])
    real = _source(_ratio(n_in, n_out, align_corners, scale, ft), n_out, align_corners, False,
                   ft)
    i0 = np.minimum(_floorf(real), n_in - 1)
    l1 = np.clip(real - i0.astype(ft), ft(0), ft(1))
    i1 = i0 + (i0 < n_in - 1)
    return np.stack([i0, i1]), np.stack([ft(1) - l1, l1])


def _cubic_near(x: np.ndarray, a: Any) -> np.ndarray:
    """Keys' cubic convolution kernel for |x| <= 1."""
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic_far(x: np.ndarray, a: Any) -> np.ndarray:
    """Keys' cubic convolution kernel for 1 < |x| < 2."""
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def _cubic_plan(n_in: int, n_out: int, scale: float | None, align_corners: bool,
                ft: type) -> tuple:
    """Four taps (clamped to the edges) with Keys' weights for A = -0.75."""
    real = _source(_ratio(n_in, n_out, align_corners, scale, ft), n_out, align_corners, True, ft)
    i0 = np.minimum(_floorf(real), n_in - 1)
    t = np.clip(real - i0.astype(ft), ft(0), ft(1))
    a, one = ft(-0.75), ft(1)
    rest = one - t
    wts = np.stack([_cubic_far(t + one, a), _cubic_near(t, a), _cubic_near(rest, a),
                    _cubic_far(rest + one, a)])
    idx = np.clip(i0[None] + np.arange(-1, 3)[:, None], 0, n_in - 1)
    return idx, wts


# ---- antialiased and uint8 windows (PyTorch's separable kernels, computed in float64) ----------

def _triangle(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1.0, 1.0 - x, 0.0)


def _keys(a: float) -> Callable[[np.ndarray], np.ndarray]:
    """Keys' cubic filter with parameter a, zero from |x| = 2."""
    def filt(x: np.ndarray) -> np.ndarray:
        x = np.abs(x)
        return np.where(x < 1.0, _cubic_near(x, a), np.where(x < 2.0, _cubic_far(x, a), 0.0))
    return filt


def _lanczos3(x: np.ndarray) -> np.ndarray:
    """The Lanczos window of 3 lobes: sinc(x) sinc(x / 3) for -3 <= x < 3."""
    return np.where((x >= -3.0) & (x < 3.0), np.sinc(x) * np.sinc(x / 3.0), 0.0)


# mode: (half-width of the filter at scale 1, filter) with antialias; uint8 without antialias
# uses (taps, filter): bicubic there keeps A = -0.75, the antialiased one uses Keys' -0.5
_AA_FILTERS = {"bilinear": (1.0, _triangle), "bicubic": (2.0, _keys(-0.5)),
               "lanczos": (3.0, _lanczos3)}
_UINT8_FILTERS = {"bilinear": (2, _triangle), "bicubic": (4, _keys(-0.75))}


def _aa_plan(n_in: int, n_out: int, ratio: float, half_width: float,
             filt: Callable) -> tuple:
    """A window of source pixels per output, the filter stretched by the ratio when shrinking
    (so every input pixel contributes), weights normalised to sum 1. Returns (idx, wts, largest
    weight)."""
    support = half_width * ratio if ratio >= 1.0 else half_width
    width = math.ceil(support) * 2 + 1
    center = ratio * (np.arange(n_out) + 0.5)
    inv = 1.0 / ratio if ratio >= 1.0 else 1.0
    start = np.maximum(np.trunc(center - support + 0.5), 0).astype(np.int64)
    count = np.clip(np.minimum(np.trunc(center + support + 0.5).astype(np.int64), n_in) - start,
                    0, width)
    j = np.arange(width)[:, None]
    wts = np.where(j < count, filt((j + start - center + 0.5) * inv), 0.0)
    total = np.zeros(n_out)
    for row in wts:                      # summed tap by tap, as the kernel does
        total = total + row
    norm = total != 0
    wts = np.where(norm, wts / np.where(norm, total, 1.0), wts)
    top = float(np.where(norm, wts, 0.0).max(initial=0.0))
    return np.minimum(start + j, n_in - 1), wts, top


def _uint8_plan(n_in: int, n_out: int, ratio: float, align_corners: bool, taps: int,
                filt: Callable) -> tuple:
    """uint8 bilinear / bicubic without antialias: the float taps, with the weights of taps
    beyond an edge folded onto the edge pixel. Returns (idx, wts, largest partial weight)."""
    real = _source(np.float64(ratio), n_out, align_corners, taps > 2, np.float64)
    i0 = np.minimum(_floorf(real), n_in - 1)
    lam = np.clip(real - i0, 0.0, 1.0)
    half = taps // 2
    low = i0 - half + 1
    start = np.maximum(low, 0)
    count = np.clip(np.minimum(i0 + half + 1, n_in) - start, 0, taps)
    wts, cols = np.zeros((taps, n_out)), np.arange(n_out)
    slot, top = np.zeros(n_out, np.int64), 0.0
    for j in range(taps):
        src = low + j
        slot = np.where(src <= 0, 0, np.where(src >= n_in - 1, count - 1, slot))
        wts[slot, cols] += filt(float(j + 1 - half) - lam)
        top = max(top, float(wts[slot, cols].max(initial=0.0)))
        slot = slot + 1
    j = np.arange(taps)[:, None]
    return np.minimum(start + j, n_in - 1), np.where(j < count, wts, 0.0), top


def _int16_weights(wts: np.ndarray, top: float) -> tuple:
    """(weights as integers scaled by 2**p, p): p as large as keeps the largest weight within
    int16, at most 22; rounded half away from zero."""
    p = 0
    while p < 22 and int(0.5 + top * (1 << (p + 1))) < (1 << 15):
        p += 1
    v = wts * (1 << p)
    return np.where(v < 0, np.trunc(v - 0.5), np.trunc(v + 0.5)).astype(np.int64), p


# ==== applying plans =============================================================================

def _apply_dim(x: Tensor, dim: int, idx: np.ndarray, wts: np.ndarray | None) -> Tensor:
    """sum_k x.index_select(dim, idx[k]) * wts[k], the weights laid along dim."""
    shape = (-1,) + (1,) * (x.dim() - 1 - dim)
    out = None
    for k in range(idx.shape[0]):
        part = x.index_select(dim, tensor(idx[k], dtype=_dt.int64))
        if wts is not None:
            part = part * tensor(wts[k], dtype=x.dtype).reshape(shape)
        out = part if out is None else out + part
    return out


def _resample(x: Tensor, plans: Sequence) -> Tensor:
    """x resampled by one plan per spatial dim (None: dim kept), the last dim first; a new
    tensor even when every dim is kept."""
    first = x.dim() - len(plans)
    out = x
    for d in reversed(range(len(plans))):
        if plans[d] is not None:
            out = _apply_dim(out, first + d, *plans[d])
    return out.clone() if out is x else out


def _in_float(x: Tensor, run: Callable[[Tensor], Tensor]) -> Tensor:
    """run on x, float16 / bfloat16 widened to float32 and rounded back once at the end."""
    if x.dtype in _HALVES:
        return run(x.float()).to(x.dtype)
    return run(x)


def _uint8_resample(x: Tensor, plans: Sequence) -> Tensor:
    """uint8 resampling in integers: per dim, the int16-scaled weighted sum plus half, shifted
    back and clamped to [0, 255] (plans hold (idx, weights, precision))."""
    if all(p is None for p in plans):
        return x.clone()
    y = x.to(_dt.int64)
    first = x.dim() - len(plans)
    for d in reversed(range(len(plans))):
        if plans[d] is not None:
            idx, w16, p = plans[d]
            acc = _apply_dim(y, first + d, idx, w16)
            y = ((acc + (1 << (p - 1))) >> p).clamp(0, 255)
    return y.to(_dt.uint8)


# ==== argument checks ============================================================================

def _is_integer(v: Any) -> bool:
    """An int-like size: int, numpy integer or an integer tensor (bool counts, as in PyTorch's
    first check; the size check refuses it later)."""
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, Tensor) and not v.dtype.is_floating_point


def _align_corners_for(mode: Any, align_corners: Any) -> Any:
    """align_corners as the modes take it: refused by nearest / area, False by default else."""
    if mode in _NO_ALIGN:
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
        return None
    return False if align_corners is None else align_corners


def _size_or_scales(input: Tensor, nd: int, size: Any, scale_factor: Any) -> tuple:
    """(output sizes or None, scale factors or None), one per spatial dim; exactly one given."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if not isinstance(size, (list, tuple)):
            return [size] * max(nd, 0), None
        if len(size) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions,"
                             f" but got input with spatial dimensions of {list(input.shape[2:])} "
                             f"and output size of {size}. Please provide input tensor in (N, C, "
                             f"d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        if not all(_is_integer(v) for v in size):
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            f"Tuple[int, int, int], but got size with types "
                            f"{[type(v) for v in size]}")
        return list(size), None
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if not isinstance(scale_factor, (list, tuple)):
        return None, [scale_factor] * max(nd, 0)
    if len(scale_factor) != nd:
        raise ValueError(f"Input and scale_factor must have the same number of spatial "
                         f"dimensions, but got input with spatial dimensions of "
                         f"{list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                         f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                         f"scale_factor in (s1, s2, ...,sK) format.")
    return None, list(scale_factor)


def _int_sizes(op: str, sizes: Sequence) -> list:
    """The output sizes as ints (TypeError for anything but integers)."""
    out = []
    for v in sizes:
        if isinstance(v, bool) or not _is_integer(v) or (isinstance(v, Tensor) and v.numel() != 1):
            raise TypeError(f"{op}(): output_size must be a tuple of ints, but got {list(sizes)}")
        out.append(int(v.item() if isinstance(v, Tensor) else v))
    return out


def _float_scales(op: str, scales: Sequence) -> list:
    """The scale factors as floats (TypeError for anything but real numbers)."""
    if not all(isinstance(s, numbers.Real) for s in scales):
        raise TypeError(f"{op}(): scale_factors must be a tuple of floats, but got "
                        f"{list(scales)}")
    return [float(s) for s in scales]


def _scaled_size(n: int, s: float) -> int:
    """floor(n * s) toward zero, as an int64 (RuntimeError when it cannot be one)."""
    v = n * s
    if not math.isfinite(v) or abs(v) > _INT64_MAX:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(v)


def _resolve(op: str, x: Tensor, out: list | None, scales: list | None) -> tuple:
    """(output sizes, scales or None): sizes given as ints, or computed from the scales; a
    result too large to address raises RuntimeError before anything is allocated."""
    if out is not None:
        out = _int_sizes(op, out)
    else:
        scales = _float_scales(op, scales)
        nd = len(scales)
        out = [_scaled_size(x.size(x.dim() - nd + i), s) for i, s in enumerate(scales)]
    shape = [*x.shape[:2], *out]
    if min(shape) >= 0 and math.prod(shape) * x.element_size() > _INT64_MAX:
        raise RuntimeError(f"{op}: Storage size calculation overflowed with sizes={shape}")
    return out, scales


def _check_grid(op: str, x: Tensor, out: list) -> None:
    """PyTorch's upsample checks: every input and output size positive, and only the batch dim
    may be empty."""
    nd = len(out)
    sizes = list(x.shape[2:])
    if any(s <= 0 for s in sizes + out):
        names = _DIM_NAMES[nd]
        got = ", ".join(f"{n}: {s}" for n, s in zip(names, sizes))
        want = ", ".join(f"{n}: {s}" for n, s in zip(names, out))
        raise RuntimeError(f"{op}: Input and output sizes should be greater than 0, but got "
                           f"input ({got}) and output ({want})")
    if x.numel() == 0 and x.size(1) == 0:
        raise RuntimeError(f"{op}: Non-empty {x.dim()}D data tensor expected but got a tensor "
                           f"with sizes {list(x.shape)}")


def _index_precision(x: Tensor) -> type:
    """The float type PyTorch's kernels compute x's source positions in (its opmath type)."""
    return np.float64 if x.dtype is _dt.float64 else np.float32


def _check_dtype(op: str, x: Tensor, allowed: tuple) -> None:
    if x.dtype not in allowed:
        raise not_implemented(op, x.dtype)


def _check_flag(op: str, align_corners: Any) -> None:
    if not isinstance(align_corners, (bool, np.bool_)):
        raise TypeError(f"{op}(): argument 'align_corners' must be bool, not "
                        f"{type(align_corners).__name__}")


def _op_name(mode: str, nd: int, antialias: bool) -> str:
    return f"upsample_{mode.replace('-', '_')}{nd}d" + ("_aa" if antialias else "")


def _ratios(x: Tensor, out: list, scales: list | None, align_corners: bool, ft: type) -> list:
    nd = len(out)
    return [_ratio(x.size(x.dim() - nd + i), o, align_corners,
                   scales[i] if scales else None, ft) for i, o in enumerate(out)]


def _channels_last(x: Tensor) -> bool:
    """Whether x's strides are (N, H, W, C)-contiguous (or (N, D, H, W, C)), as PyTorch
    decides it: dims of size 1 do not count."""
    order = (1, 3, 2, 0) if x.dim() == 4 else (1, 4, 3, 2, 0)
    expected = 1
    for d in order:
        if x.size(d) != 1:
            if x.stride(d) != expected:
                return False
            expected *= x.size(d)
    return True


def _nearest_fast(x: Tensor, out: list) -> bool:
    """Whether PyTorch's CPU dispatch picks its channels-last nearest kernel (whose index rule
    differs for kept and doubled sizes): channels-last input with more than 3 channels, or, for
    2-d, an output whose height + width is at most 128."""
    nd = len(out)
    if nd == 1:
        return False
    wide_channels_last = _channels_last(x) and x.size(1) > 3
    return wide_channels_last or (nd == 2 and sum(out) <= 128)


# ==== the modes ==================================================================================

def _nearest(x: Tensor, out: list | None, scales: list | None, align_corners: Any,
             antialias: bool, exact: bool) -> Tensor:
    """nearest (exact=False) and nearest-exact: one tap per output, no arithmetic."""
    nd = x.dim() - 2
    op = _op_name("nearest-exact" if exact else "nearest", nd, False)
    out, scales = _resolve(op, x, out, scales)
    _check_grid(op, x, out)
    _check_dtype(op, x, _NEAREST_DTYPES)
    ft = _index_precision(x)
    fast = _nearest_fast(x, out)
    plans = [_nearest_plan(x.size(2 + i), o, scales[i] if scales else None, ft, exact, fast)
             for i, o in enumerate(out)]
    return _resample(x, plans)


def _interpolating(x: Tensor, out: list | None, scales: list | None, align_corners: Any,
                   antialias: bool, mode: str) -> Tensor:
    """linear, bilinear, trilinear (two taps per dim) and bicubic (four)."""
    nd = x.dim() - 2
    op = _op_name(mode, nd, antialias)
    if antialias:
        return _antialiased(op, x, out, scales, align_corners, mode)
    _check_flag(op, align_corners)
    out, scales = _resolve(op, x, out, scales)
    _check_grid(op, x, out)
    if x.dtype is _dt.uint8 and nd == 2:
        return _uint8_separable(x, out, scales, align_corners, mode)
    _check_dtype(op, x, _FLOATS)
    ft = _index_precision(x)
    plan = _cubic_plan if mode == "bicubic" else _linear_plan
    plans = [plan(x.size(2 + i), o, scales[i] if scales else None, align_corners, ft)
             for i, o in enumerate(out)]
    return _in_float(x, lambda v: _resample(v, plans))


def _lanczos(x: Tensor, out: list | None, scales: list | None, align_corners: Any,
             antialias: bool) -> Tensor:
    if align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    return _antialiased(_op_name("lanczos", 2, True), x, out, scales, False, "lanczos")


def _antialiased(op: str, x: Tensor, out: list | None, scales: list | None,
                 align_corners: Any, mode: str) -> Tensor:
    """Antialiased bilinear / bicubic / lanczos: each kept-size dim skipped, the others
    resampled through a window that widens with the downscaling ratio."""
    _check_flag(op, align_corners)
    out, scales = _resolve(op, x, out, scales)
    _check_grid(op, x, out)
    _check_dtype(op, x, _AA_DTYPES)
    half_width, filt = _AA_FILTERS[mode]
    if x.dtype is _dt.uint8:
        return _uint8_separable(x, out, scales, align_corners, mode, antialias=True)
    ft = _index_precision(x)
    plans = []
    for i, (o, r) in enumerate(zip(out, _ratios(x, out, scales, align_corners, ft))):
        if o == x.size(2 + i):
            plans.append(None)
            continue
        idx, wts, _ = _aa_plan(x.size(2 + i), o, float(r), half_width, filt)
        plans.append((idx, wts.astype(ft)))
    return _resample(x, plans)


def _uint8_separable(x: Tensor, out: list, scales: list | None, align_corners: bool, mode: str,
                     antialias: bool = False) -> Tensor:
    """uint8 bilinear / bicubic / lanczos, in PyTorch's integer arithmetic."""
    plans = []
    for i, (o, r) in enumerate(zip(out, _ratios(x, out, scales, align_corners, np.float64))):
        n = x.size(2 + i)
        if o == n:
            plans.append(None)
            continue
        if antialias:
            idx, wts, top = _aa_plan(n, o, float(r), *_AA_FILTERS[mode])
        else:
            idx, wts, top = _uint8_plan(n, o, float(r), align_corners, *_UINT8_FILTERS[mode])
        plans.append((idx, *_int16_weights(wts, top)))
    return _uint8_resample(x, plans)


def _empty_result(x: Tensor, out: list) -> Tensor:
    """x sized to out on its spatial dims when nothing is to be computed (an empty batch,
    channel or output), still connected to x for autograd."""
    first = x.dim() - len(out)
    for i, o in enumerate(out):
        x = x.index_select(first + i, tensor([0] * o, dtype=_dt.int64))
    return x


def _area(x: Tensor, out: list | None, scales: list | None, align_corners: Any,
          antialias: bool) -> Tensor:
    """Adaptive average pooling to the output size."""
    nd = x.dim() - 2
    op = f"adaptive_avg_pool{nd}d"
    out, _ = _resolve(op, x, out, scales)
    if any(o < 0 for o in out):
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{', '.join(map(str, out))}}}")
    checked = range(1 if nd == 3 else 2, x.dim())     # 1-d and 2-d allow no channels
    empty = [d for d in checked if x.size(d) == 0]
    if empty:
        raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch "
                           f"dimensions, but input has sizes {list(x.shape)} with dimension "
                           f"{empty[0]} being empty")
    _check_dtype(op, x, _FLOATS)
    if x.numel() == 0 or 0 in out:
        return _empty_result(x, out)
    if nd == 1:
        return adaptive_avg_pool1d(x, out[0])
    if nd == 2:
        return adaptive_avg_pool2d(x, out)
    return _in_float(x, lambda v: _area3d(v, out))


def _area3d(x: Tensor, out: list) -> Tensor:
    """3-d adaptive average pooling as 2-d pooling over (H, W), then over D."""
    n, c, d, h, w = x.shape
    od, oh, ow = out
    y = adaptive_avg_pool2d(x.reshape(n, c * d, h, w), (oh, ow)).reshape(n, c, d, oh * ow)
    return adaptive_avg_pool2d(y, (od, oh * ow)).reshape(n, c, od, oh, ow)


# (spatial dims, mode) -> the function that resamples
_KERNELS: dict[tuple, Callable[..., Tensor]] = {
    **{(nd, "nearest"): partial(_nearest, exact=False) for nd in (1, 2, 3)},
    **{(nd, "nearest-exact"): partial(_nearest, exact=True) for nd in (1, 2, 3)},
    **{(nd, "area"): _area for nd in (1, 2, 3)},
    **{(nd, mode): partial(_interpolating, mode=mode)
       for nd, mode in ((1, "linear"), (2, "bilinear"), (3, "trilinear"), (2, "bicubic"))},
    (2, "lanczos"): _lanczos,
}


def _unsupported(ndim: int, mode: Any) -> NotImplementedError:
    need = _LINEAR_NEEDS.get(mode)
    if need is not None and ndim in (3, 4, 5):
        return NotImplementedError(f"Got {ndim}D input, but {mode} mode needs {need + 2}D input")
    return NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                               f"{ndim}D) for the modes: nearest | linear | bilinear | bicubic | "
                               f"trilinear | lanczos | area | nearest-exact (got {mode})")


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """input (N, C, *spatial) resized on its 1 to 3 spatial dims to size, or by scale_factor
    (output size floor(in * scale)); modes nearest, nearest-exact, linear (3-D), bilinear,
    bicubic, lanczos (4-D), trilinear (5-D) and area. A scale_factor also sets the sampling
    ratio (1 / scale) unless recompute_scale_factor=True derives it from the sizes."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(interpolate, locals())
    align_corners = _align_corners_for(mode, align_corners)
    nd = input.dim() - 2
    out, scales = _size_or_scales(input, nd, size, scale_factor)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or (mode == "area" and out is None):
        out, scales = [int(input.size(i + 2) * scales[i]) for i in range(nd)], None
    if antialias and not (mode in _ANTIALIASED and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    kernel = _KERNELS.get((nd, mode)) if isinstance(mode, str) else None
    if kernel is None:
        raise _unsupported(input.dim(), mode)
    return kernel(input, out, scales, align_corners, antialias)


def _deprecated(name: str) -> None:
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  f"instead.", UserWarning, stacklevel=3)


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """F.interpolate under its old name (deprecated: warns)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(upsample, locals())
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """F.interpolate with mode='nearest' (deprecated: warns)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(upsample_nearest, locals())
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """F.interpolate with mode='bilinear' and align_corners=True (deprecated: warns)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(upsample_bilinear, locals())
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ==== pixel and channel shuffles (reshape, permute, reshape: views until the copy) ===============

def _int_arg(op: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}(): argument '{name}' (position 2) must be int, not "
                        f"{type(value).__name__}")
    return int(value)


def _tensor_arg(op: str, input: Any) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _fresh(y: Tensor, x: Tensor) -> Tensor:
    """y, copied when it is still a view of x (the shuffles always return new memory)."""
    return y.clone() if y.storage().data_ptr() == x.storage().data_ptr() else y


def _check_image(op: str, input: Tensor) -> None:
    if input.dim() < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of r^2 channels becomes an r x r block
    of pixels (sub-pixel convolution's upsampling)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(pixel_shuffle, locals())
    _tensor_arg("pixel_shuffle", input)
    r = _int_arg("pixel_shuffle", "upscale_factor", upscale_factor)
    _check_image("pixel_shuffle", input)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if r * r > _INT64_MAX:
        raise ValueError(f"upscale factor is too large, (upscale_factor)^2 overflowed: "
                         f"upscale_factor={r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    k = len(lead)
    y = input.reshape(*lead, c // (r * r), r, r, h, w)
    y = y.permute(*range(k + 1), k + 3, k + 1, k + 4, k + 2)
    return _fresh(y.reshape(*lead, c // (r * r), h * r, w * r), input)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W): the inverse of pixel_shuffle."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(pixel_unshuffle, locals())
    _tensor_arg("pixel_unshuffle", input)
    r = _int_arg("pixel_unshuffle", "downscale_factor", downscale_factor)
    _check_image("pixel_unshuffle", input)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    for side, n, dim in (("height", h, -2), ("width", w, -1)):
        if n % r:
            raise RuntimeError(f"pixel_unshuffle expects {side} to be divisible by "
                               f"downscale_factor, but input.size({dim})={n} is not divisible "
                               f"by {r}")
    k = len(lead)
    y = input.reshape(*lead, c, h // r, r, w // r, r)
    y = y.permute(*range(k + 1), k + 2, k + 4, k + 1, k + 3)
    return _fresh(y.reshape(*lead, c * r * r, h // r, w // r), input)


def _shuffle_channels(op: str, input: Tensor, groups: Any) -> Tensor:
    _tensor_arg(op, input)
    g = _int_arg(op, "groups", groups)
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    n, c, *rest = input.shape
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {g} groups.")
    y = input.reshape(n, g, c // g, *rest).transpose(1, 2).reshape(*input.shape)
    return _fresh(y, input)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with its C channels split into groups and interleaved: channel i of group j
    moves to position i * groups + j (ShuffleNet's mixing between grouped convolutions)."""
    try:
        return _shuffle_channels("channel_shuffle", input, groups)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(channel_shuffle, locals())


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """channel_shuffle under PyTorch's name for its kernel; the same result."""
    try:
        return _shuffle_channels("native_channel_shuffle", input, groups)
    except TypeError:   # input is no Tensor: a Proxy (pyth.fx) may take the call
        return _overridden(native_channel_shuffle, locals())
