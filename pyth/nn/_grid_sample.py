"""F.grid_sample on the THNN kernels (generic/THNNGridSampler.c) and F.affine_grid, the two
halves of a spatial transformer.

grid_sample's forward is one C call, recorded as a GRID_SAMPLER row (node
GridSampler2DBackward0 or GridSampler3DBackward0, as PyTorch's): its first-order backward is
one C call giving the input and grid gradients together; its formula, run under create_graph,
differentiates the composed sampling (`_composed` below: the same taps and weights written with
gather and pointwise ops), so higher-order gradients stay exact.
affine_grid is a product of a base grid of normalised pixel centres with theta, composed of
differentiable ops.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._prims.creation import empty
from .._th import ffi, lib
from ..autograd import enable_grad, grad
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor

_MODES = {"bilinear": lib.THNN_GRID_BILINEAR, "nearest": lib.THNN_GRID_NEAREST,
          "bicubic": lib.THNN_GRID_BICUBIC}
_PADDINGS = {"zeros": lib.THNN_GRID_ZEROS, "border": lib.THNN_GRID_BORDER,
             "reflection": lib.THNN_GRID_REFLECTION}
_FAMILY = {2: "SpatialGridSampler", 3: "VolumetricGridSampler"}
# (compute dtype, spatial dims) -> (updateOutput, updateGradInput)
_KERNELS: dict[tuple, tuple] = {
    (dt, nd): tuple(getattr(lib, f"THNN_{name}{_FAMILY[nd]}_{verb}")
                    for verb in ("updateOutput", "updateGradInput"))
    for dt, name in ((_dt.float32, "Float"), (_dt.float64, "Double")) for nd in (2, 3)}
_HALVES = (_dt.float16, _dt.bfloat16)     # computed in float32, rounded back
_NULL = ffi.NULL
_DEFAULT_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                    "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                    "old behavior is desired. See the documentation of grid_sample for details.")


# ---- the kernels -------------------------------------------------------------------------------

def _kernel_forward(x: Tensor, grid: Tensor, args: tuple) -> Tensor:
    """The sampled output from the C kernel (x and grid of one float dtype)."""
    nd, mode, padding, align = args
    y = new_result(x.dtype)
    check(_KERNELS[x.dtype, nd][0](y._h, x._h, grid._h, mode, padding, align))
    return y


def _kernel_backward(g: Tensor, x: Tensor, grid: Tensor, args: tuple, need_x: bool,
                     need_grid: bool) -> tuple:
    """(gradient for x or None, gradient for grid or None) from the C kernel."""
    nd, mode, padding, align = args
    gi = new_result(x.dtype) if need_x else None
    gg = new_result(x.dtype) if need_grid else None
    if g.dtype is not x.dtype:
        g = g.to(x.dtype)
    check(_KERNELS[x.dtype, nd][1](gi._h if need_x else _NULL, gg._h if need_grid else _NULL,
                                   g._h, x._h, grid._h, mode, padding, align))
    return gi, gg


def _grid_sampler_first(g: Tensor, a: dict) -> list:
    """The input and grid gradients by the kernel's updateGradInput (one call for both; half
    and bfloat16 in float32, rounded back)."""
    need_x, need_grid = a["needs"]
    x, grid = a["input"], a["grid"]
    dt = x.dtype
    if dt in _HALVES:
        x, grid = x.float(), grid.float()
    res = _kernel_backward(g, x, grid, a["config"], need_x, need_grid)
    return [r if r is None or dt is r.dtype else r.to(dt) for r in res]


def _grid_sampler_backward(g: Tensor, a: dict) -> list:
    """The gradients of the composed sampling (in float32 for half and bfloat16), differentiable
    again."""
    need_x, need_grid = a["needs"]
    x, grid = a["input"], a["grid"]
    dt = x.dtype
    if dt in _HALVES:
        x, grid, g = x.float(), grid.float(), g.float()
    res = _composed_grads(g, x, grid, a["config"], need_x, need_grid)
    return [r if r is None or dt is r.dtype else r.to(dt) for r in res]


# spatial dims -> the row, whose node is PyTorch's (GridSampler2DBackward0 ...)
GRID_SAMPLER = {nd: Op(f"grid_sampler_{nd}d", "input grid", _grid_sampler_backward,
                       save="input grid", node=f"GridSampler{nd}DBackward0",
                       first=_grid_sampler_first) for nd in (2, 3)}


def _sample(x: Tensor, grid: Tensor, args: tuple) -> Tensor:
    """The sampling through the kernel, recorded when x or grid requires grad (half and
    bfloat16 in float32 arithmetic, one rounding at the end: PyTorch's opmath)."""
    if x.dtype in _HALVES:
        y = _kernel_forward(x.detach().float(), grid.detach().float(), args).to(x.dtype)
    else:
        y = _kernel_forward(x, grid, args)
    edges = next_edges(x, grid)
    if edges is not None:
        record_node(GRID_SAMPLER[args[0]], edges, y, {"input": x, "grid": grid},
                    {"config": args})
    return y


# ---- the composed sampling (for create_graph) ----------------------------------------------------
# The C kernel's arithmetic with tensor ops: per axis, tap positions (integers, no gradient),
# their weights (differentiable in the grid) and whether they fall inside; then the input is
# gathered at every combination of taps and summed with the products of the weights.

def _unnormalize(g: Tensor, size: int, align: int) -> Tensor:
    if align:
        return (g + 1) / 2 * (size - 1)
    return ((g + 1) * size - 1) / 2


def _reflect(v: Tensor, twice_low: int, twice_high: int) -> Tensor:
    if twice_low == twice_high:
        return v * 0
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    a = (v - lo).abs()
    flips = (a.detach() / span).floor()
    extra = a - flips * span
    odd = (flips - (flips / 2).floor() * 2) == 1
    return extra.where(~odd, span - extra) + lo


def _pad(v: Tensor, size: int, padding: int, align: int) -> Tensor:
    if padding == lib.THNN_GRID_BORDER:
        return v.clamp(0, size - 1)
    if padding == lib.THNN_GRID_REFLECTION:
        v = _reflect(v, 0, 2 * (size - 1)) if align else _reflect(v, -1, 2 * size - 1)
        return v.clamp(0, size - 1)
    return v


def _cubic_weights(t: Tensor) -> list:
    a = -0.75

    def near(s: Tensor) -> Tensor:
        return ((a + 2) * s - (a + 3)) * s * s + 1

    def far(s: Tensor) -> Tensor:
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _axis_taps(g: Tensor, size: int, mode: int, padding: int, align: int) -> list:
    """[(position, weight)] of one axis: positions as detached float tensors (any value; those
    outside [0, size) read zero)."""
    u = _unnormalize(g, size, align)
    if mode == lib.THNN_GRID_NEAREST:
        return [(_pad(u, size, padding, align).detach().round(), None)]
    if mode == lib.THNN_GRID_BILINEAR:
        v = _pad(u, size, padding, align)
        v0 = v.detach().floor()
        t = v - v0
        return [(v0, 1 - t), (v0 + 1, t)]
    v0 = u.detach().floor()
    w = _cubic_weights(u - v0)
    return [(_pad(v0 + (k - 1), size, padding, align).detach().trunc(), w[k]) for k in range(4)]


def _composed(x: Tensor, grid: Tensor, args: tuple) -> Tensor:
    """grid_sample in differentiable ops (the C kernel's formulas)."""
    nd, mode, padding, align = args
    n, c = x.shape[0], x.shape[1]
    spatial = list(x.shape[2:])
    out = list(grid.shape[1:-1])
    pts = 1
    for s in out:
        pts *= s
    flat = x.reshape(n, c, -1)
    g = grid.reshape(n, 1, pts, nd)
    axes = [_axis_taps(g[..., nd - 1 - k], spatial[k], mode, padding, align)
            for k in range(nd)]   # grid coordinates are (x, y[, z]): the last axis first
    total = None

    def combos(k: int) -> Any:
        if k == nd:
            yield [], None
            return
        for rest, w in combos(k + 1):
            for pos, wk in axes[k]:
                yield [pos, *rest], (wk if w is None else (w if wk is None else wk * w))

    for taps, w in combos(0):
        inside = None
        index = None
        for k, pos in enumerate(taps):
            ok = (pos >= 0) & (pos < spatial[k])
            inside = ok if inside is None else inside & ok
            pk = pos.clamp(0, spatial[k] - 1)
            index = pk if index is None else index * spatial[k] + pk
        index = index.to(_dt.int64).expand(n, c, pts)
        val = flat.gather(2, index) * inside.to(x.dtype)
        term = val if w is None else val * w
        total = term if total is None else total + term
    return total.reshape(n, c, *out)


def _composed_grads(g: Tensor, x: Tensor, grid: Tensor, args: tuple, need_x: bool,
                    need_grid: bool) -> tuple:
    wanted = [t for t, need in ((x, need_x), (grid, need_grid)) if need]
    with enable_grad():
        y = _composed(x, grid, args)
        got = iter(grad(y, wanted, g, create_graph=True, allow_unused=True))
    res = []
    for t, need in ((x, need_x), (grid, need_grid)):
        r = next(got) if need else None
        if need and r is None:     # nearest: no path from the grid
            r = t * 0
        res.append(r)
    return tuple(res)


# ---- argument checks (PyTorch's order, messages and exception types) -----------------------------

def _check(input: Tensor, grid: Tensor, mode: int) -> int:
    """The number of spatial dims (2 or 3) of a valid (input, grid) pair; raises as PyTorch."""
    for name, t in (("input", input), ("grid", grid)):
        if not isinstance(t, Tensor):
            raise TypeError(f"grid_sampler(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    isz, gsz = list(input.shape), list(grid.shape)
    if input.dim() == 0 or grid.dim() == 0:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {isz} and grid with sizes "
                           f"{gsz}")
    if isz[0] != gsz[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {isz} and grid with sizes {gsz}")
    if gsz[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {gsz}")
    for i in range(2, input.dim()):
        if isz[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {isz} with dimension {i} "
                               f"being empty")
    nd = 2 if input.dim() == 4 else 3
    if input.dim() != nd + 2 or grid.dim() != nd + 2:
        raise RuntimeError(f"grid_sampler(): expected {nd + 2}D input and grid with same number "
                           f"of dimensions, but got input with sizes {isz} and grid with sizes "
                           f"{gsz}")
    if nd == 3 and mode == lib.THNN_GRID_BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.dtype.is_floating_point:
        kernel = "grid_sampler_2d_cpu_kernel_impl" if nd == 2 else "grid_sampler3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_TORCH_NAMES.get(input.dtype, input.dtype.real)}'")
    if grid.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_TORCH_NAMES[input.dtype]} but found "
                           f"{_TORCH_NAMES.get(grid.dtype, grid.dtype.real)}")
    return nd


_TORCH_NAMES = {_dt.float32: "Float", _dt.float64: "Double", _dt.float16: "Half",
                _dt.bfloat16: "BFloat16", _dt.uint8: "Byte", _dt.int8: "Char",
                _dt.int16: "Short", _dt.int32: "Int", _dt.int64: "Long", _dt.bool_: "Bool"}


def _align_corners(align_corners: bool | None) -> bool:
    if align_corners is None:
        warnings.warn(_DEFAULT_WARNING, UserWarning, stacklevel=3)
        return False
    return bool(align_corners)


# ---- pyth.nn.functional's names -----------------------------------------------------------------

def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """input (N, C, H, W) or (N, C, D, H, W) read at the points of grid (N, oH, oW, 2) or
    (N, oD, oH, oW, 3), given as (x, y[, z]) in [-1, 1]: a spatial transformer's sampler,
    differentiable in both input and grid."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(grid_sample, locals())
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align = _align_corners(align_corners)
    nd = _check(input, grid, _MODES[mode])
    return _sample(input, grid, (nd, _MODES[mode], _PADDINGS[padding_mode], int(align)))


def _linspace_from_neg_one(n: int, align: bool, ft: type) -> np.ndarray:
    """n normalised pixel positions: the corner pixels' centres at -1 and 1 with align_corners,
    else the pixel centres of [-1, 1] cut in n cells; 0 for a single pixel. Computed in the
    dtype's precision by PyTorch's linspace rule (each half counted from its own end, each
    value end +- step * i rounded once, as its fused multiply-add does)."""
    if n <= 1:
        return np.zeros(1, ft)
    i = np.arange(n)
    step, wide = ft(2) / ft(n - 1), np.longdouble
    r = np.where(i < n // 2, wide(-1) + wide(step) * i, wide(1) - wide(step) * (n - 1 - i))
    r = r.astype(ft)
    return r if align else (r * ft(n - 1) / ft(n)).astype(ft)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps theta (N, 2, 3) or
    (N, 3, 4) applied to the output's normalised pixel positions (for grid_sample)."""
    if type(theta) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(affine_grid, locals())
    align = _align_corners(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got "
                         f"{theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, k = size[0], len(size) - 2
    if theta.shape[0] != n:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{n}, {k + 1}] but got: [{theta.shape[0]}, {k + 1}].")
    return _affine_grid(theta, spatial, align)


def _affine_grid(theta: Tensor, spatial: tuple, align: bool) -> Tensor:
    """base (points, k + 1) @ theta^T, each base row a pixel's normalised position and 1. The
    base is allocated first, checked (MemoryError when it cannot be had), and filled through
    broadcasting views, so no temporary is larger than an axis before that allocation has
    succeeded; the product allocates the result, checked as well."""
    ft = np.float64 if theta.dtype is _dt.float64 else np.float32
    k = len(spatial)
    base = empty(*spatial, k + 1, dtype=theta.dtype)
    view = base.numpy()
    # base[..., j] is the position along spatial dim k - 1 - j (x along W first), then 1
    for j in range(k):
        d = k - 1 - j
        shape = [1] * k
        shape[d] = spatial[d]
        view[..., j] = _linspace_from_neg_one(spatial[d], align, ft).reshape(shape)
    view[..., k] = 1
    grid = base.reshape(-1, k + 1).matmul(theta.transpose(1, 2))   # (N, points, k)
    return grid.reshape(theta.shape[0], *spatial, k)
