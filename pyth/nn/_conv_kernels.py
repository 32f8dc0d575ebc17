"""Convolutions on the THNN kernels (generic/THNNConvolution.c) as autograd Functions.

Three linear maps make every convolution (lib/THNNConv.h names them): A, grid = conv(image, W);
B, image = conv_transpose(grid, W), A's adjoint in the image; C, the weight gradient
grid x vol2col(image). ConvNd's forward is A, its backward B and C; ConvTransposeNd's forward is
B, its backward A and C. Forward and first-order backward are one C call each; under
create_graph the backward applies the same three maps as Functions, so every order of
derivative exists. 1-D convolutions are 2-D ones over a unit height; 2-D operands (4-D tensors)
call the Spatial* verbs and 3-D ones (5-D tensors) the Volumetric* verbs of the same kernel.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._th import ffi, lib
from ..autograd import Function, is_grad_enabled
from ..tensor import Tensor, as_int64

_COMPUTE = {_dt.float32: "Float", _dt.float64: "Double"}
# the C layer of each (kind, rank of the operands): 4-D tensors are 2-D convolutions, 5-D 3-D ones
_LAYER = {("conv", 4): "SpatialConvolutionMM", ("conv", 5): "VolumetricConvolutionMM",
          ("full", 4): "SpatialFullDilatedConvolution",
          ("full", 5): "VolumetricFullDilatedConvolution"}
_FN: dict = {}

# p, the geometry every call shares, per spatial dim (depth, height, width for 3-D; height, width
# for 2-D): (*strides, *padding before, *padding after, *dilations, groups)


def _fn(kind: str, verb: str, rank: int, dt: _dt.dtype) -> Any:
    """THNN_<Real><layer>_<verb>, the layer of kind ('conv' or 'full') for operands of rank."""
    key = (kind, verb, rank, dt)
    f = _FN.get(key)
    if f is None:
        f = _FN[key] = getattr(lib, f"THNN_{_COMPUTE[dt]}{_LAYER[(kind, rank)]}_{verb}")
    return f


def _h(t: Tensor | None) -> Any:
    return ffi.NULL if t is None else t._h


def _zeros(shape: Any, dt: _dt.dtype) -> Tensor:
    return zeros(shape, dtype=dt)


def _out_pad(image_hw: tuple, grid_hw: tuple, k: tuple, p: tuple) -> tuple:
    """The transposed convolution's output_padding that gives an image of image_hw."""
    n = len(image_hw)
    return tuple(image_hw[d] - ((grid_hw[d] - 1) * p[d] - p[n + d] - p[2 * n + d] +
                                p[3 * n + d] * (k[d] - 1) + 1) for d in range(n))


def _bias_dims(g: Tensor) -> tuple:
    """The dims a bias gradient sums over: all but the channels."""
    return (0, *range(2, g.dim()))


# ---- the three maps, raw (one C call each) ------------------------------------------------------

def _grid(image: Tensor, w: Tensor, b: Tensor | None, p: tuple, grid_hw: tuple | None) -> Tensor:
    """A: the convolution of image by w (+ b); grid_hw crops to a given size."""
    y = new_result(image.dtype)
    if grid_hw is None:
        check(_fn("conv", "updateOutput", image.dim(), image.dtype)(y._h, image._h, w._h, _h(b),
                                                                    *p))
    else:  # no bias here: only the transposed convolution's input gradient crops
        check(_fn("full", "updateGradInput", image.dim(), image.dtype)(
            y._h, image._h, w._h, *grid_hw, *p))
    return y


def _image(grid: Tensor, w: Tensor, b: Tensor | None, p: tuple, image_hw: tuple) -> Tensor:
    """B: the transposed convolution of grid by w (+ b), to an image of image_hw."""
    x = new_result(grid.dtype)
    op = _out_pad(image_hw, tuple(grid.shape[2:]), tuple(w.shape[2:]), p)
    check(_fn("full", "updateOutput", grid.dim(), grid.dtype)(
        x._h, grid._h, w._h, _h(b), *p[:-1], *op, p[-1]))
    return x


def _wgrad(grid: Tensor, image: Tensor, p: tuple, wshape: tuple, bias: bool) -> tuple:
    """C (and the bias gradient, the sum of grid): the gradients of the weight shaped wshape."""
    gw = _zeros(wshape, grid.dtype)
    gb = _zeros((grid.size(1),), grid.dtype) if bias else None
    check(_fn("conv", "accGradParameters", grid.dim(), grid.dtype)(
        gw._h, _h(gb), grid._h, image._h, *p, 1.0))
    return gw, gb


# ---- the three maps as Functions ----------------------------------------------------------------

def _needs(*ts: Any) -> bool:
    return is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in ts)


def grid_of(image: Tensor, w: Tensor, b: Tensor | None, p: tuple,
            grid_hw: tuple | None = None) -> Tensor:
    """A, recorded when an operand requires grad."""
    if _needs(image, w, b):
        return ConvFunction.apply(image, w, b, p, grid_hw)
    return _grid(image, w, b, p, grid_hw)


def image_of(grid: Tensor, w: Tensor, b: Tensor | None, p: tuple, image_hw: tuple) -> Tensor:
    """B, recorded when an operand requires grad."""
    if _needs(grid, w, b):
        return ConvTransposeFunction.apply(grid, w, b, p, image_hw)
    return _image(grid, w, b, p, image_hw)


def weight_grad_of(grid: Tensor, image: Tensor, p: tuple, wshape: tuple) -> Tensor:
    """C, recorded when an operand requires grad (double backward)."""
    if _needs(grid, image):
        return ConvWeightGradFunction.apply(grid, image, p, wshape)
    return _wgrad(grid, image, p, wshape, False)[0]


class ConvFunction(Function):
    """A: the 2-D or 3-D convolution (grid = image * w + b)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor, b: Tensor | None, p: tuple,
                grid_hw: tuple | None) -> Tensor:
        ctx.p = p
        ctx.save_for_backward(x, w)
        ctx.bias = b is not None
        return _grid(x, w, b, p, grid_hw)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        p, need = ctx.p, ctx.needs_input_grad
        hw = tuple(x.shape[2:])
        if is_grad_enabled():  # create_graph: the adjoint maps, recorded
            gx = image_of(g, w, None, p, hw) if need[0] else None
            gw = weight_grad_of(g, x, p, tuple(w.shape)) if need[1] else None
            gb = g.sum(_bias_dims(g)) if ctx.bias and need[2] else None
            return gx, gw, gb, None, None
        gx = None
        if need[0]:
            gx = new_result(g.dtype)
            check(_fn("conv", "updateGradInput", g.dim(), g.dtype)(gx._h, g._h, w._h, *hw, *p))
        gw = gb = None
        if need[1] or (ctx.bias and need[2]):
            gw, gb = _wgrad(g, x, p, tuple(w.shape), ctx.bias and need[2])
        return gx, gw if need[1] else None, gb, None, None


class ConvTransposeFunction(Function):
    """B: the 2-D or 3-D transposed convolution (image = grid *^T w + b), A's adjoint."""

    @staticmethod
    def forward(ctx: Any, y: Tensor, w: Tensor, b: Tensor | None, p: tuple,
                image_hw: tuple) -> Tensor:
        ctx.p = p
        ctx.save_for_backward(y, w)
        ctx.bias = b is not None
        return _image(y, w, b, p, image_hw)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        y, w = ctx.saved_tensors
        p, need = ctx.p, ctx.needs_input_grad
        hw = tuple(y.shape[2:])
        if is_grad_enabled():
            gy = grid_of(g, w, None, p, hw) if need[0] else None
            gw = weight_grad_of(y, g, p, tuple(w.shape)) if need[1] else None
            gb = g.sum(_bias_dims(g)) if ctx.bias and need[2] else None
            return gy, gw, gb, None, None
        gy = _grid(g, w, None, p, hw) if need[0] else None
        gw = gb = None
        if need[1] or (ctx.bias and need[2]):
            gw = _zeros(tuple(w.shape), g.dtype) if need[1] else None
            gb = _zeros((g.size(1),), g.dtype) if ctx.bias and need[2] else None
            check(_fn("full", "accGradParameters", g.dim(), g.dtype)(
                _h(gw), _h(gb), g._h, y._h, *p, 1.0))
        return gy, gw, gb, None, None


class ConvWeightGradFunction(Function):
    """C: the weight gradient as a function of grid and image (for double backward)."""

    @staticmethod
    def forward(ctx: Any, grid: Tensor, image: Tensor, p: tuple, wshape: tuple) -> Tensor:
        ctx.p = p
        ctx.save_for_backward(grid, image)
        return _wgrad(grid, image, p, wshape, False)[0]

    @staticmethod
    def backward(ctx: Any, gw: Tensor) -> tuple:
        grid, image = ctx.saved_tensors
        p, need = ctx.p, ctx.needs_input_grad
        gg = grid_of(image, gw, None, p, tuple(grid.shape[2:])) if need[0] else None
        gi = image_of(grid, gw, None, p, tuple(image.shape[2:])) if need[1] else None
        return gg, gi, None, None


# ---- the functional front: arguments as PyTorch takes them --------------------------------------

def _pair(v: Any, n: int, name: str) -> tuple:
    if type(v) is int and -(2**63) <= v < 2**63:
        return (v,) * n
    t = tuple(as_int64(int(e), "", name) for e in v) if isinstance(v, (tuple, list)) else \
        (as_int64(int(v), "", name),) * n
    if len(t) == 1 and n > 1:
        t = t * n
    if len(t) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got {name}="
                           f"{list(t)}")
    return t


def _pads(padding: Any, w: Tensor, dil: tuple, stride: tuple, op: str) -> tuple:
    """(*before, *after) per spatial dim of weight w from a tuple of ints (one per dim), 'valid'
    or 'same' (the odd unit of an even kernel's padding goes after, to the back / bottom /
    right, as PyTorch does)."""
    if not isinstance(padding, str):
        return (*padding, *padding)
    if padding == "valid":
        return (0,) * (2 * (w.dim() - 2))
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: {padding!r}")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(dil, w.shape[2:])]
    return (*(t // 2 for t in total), *(t - t // 2 for t in total))


def _compute(x: Tensor, op: str) -> _dt.dtype:
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{op}: expected a floating point input, got {x.dtype}")
    return x.dtype if x.dtype in _COMPUTE else _dt.float32


def _batched(x: Tensor, nd: int, op: str) -> bool:
    if x.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{op}, but got input of size: {list(x.shape)}")
    return x.dim() == nd + 2


def _prepare(x: Tensor, w: Tensor, b: Tensor | None, nd: int, op: str, transposed: bool,
             groups: int) -> tuple:
    """Checks ranks, dtypes and channels against PyTorch's words; returns the batched operands
    (4-D for conv1d), whether the input was batched, and the dtype the result takes."""
    batched = _batched(x, nd, op)
    xb = x if batched else x.unsqueeze(0)
    if w.dim() != nd + 2:
        raise RuntimeError(f"{op}: expected a {nd + 2}-D weight, got weight of size "
                           f"{list(w.shape)}")
    if w.dtype is not x.dtype or (b is not None and b.dtype is not x.dtype):
        raise RuntimeError(f"{op}: expected input, weight and bias of one dtype, got input "
                           f"{x.dtype}, weight {w.dtype}"
                           + (f", bias {b.dtype}" if b is not None else ""))
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w.size(0) % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size {list(w.shape)} instead")
    want = w.size(0) if transposed else w.size(1) * groups
    if xb.size(1) != want:
        head = "Given transposed=1" if transposed else f"Given groups={groups}"
        raise RuntimeError(f"{head}, weight of size {list(w.shape)}, expected input"
                           f"{list(xb.shape)} to have {want} channels, but got {xb.size(1)} "
                           f"channels instead")
    dt = _compute(x, op)
    if dt is not x.dtype:
        xb, w, b = xb.to(dt), w.to(dt), b.to(dt) if b is not None else None
    if nd == 1:
        xb, w = xb.unsqueeze(2), w.unsqueeze(2)
    return xb, w, b, batched


def _finish(y: Tensor, x: Tensor, nd: int, batched: bool) -> Tensor:
    if nd == 1:
        y = y.squeeze(2)
    if not batched:
        y = y.squeeze(0)
    return y if y.dtype is x.dtype else y.to(x.dtype)


def conv(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
         dilation: Any, groups: int, nd: int) -> Tensor:
    """conv1d (nd = 1), conv2d (nd = 2) and conv3d (nd = 3)."""
    op = f"conv{nd}d"
    x, w, b, batched = _prepare(input, weight, bias, nd, op, False, groups)
    s, d = _pair(stride, nd, "stride"), _pair(dilation, nd, "dilation")
    if not isinstance(padding, str):
        padding = _pair(padding, nd, "padding")
    if nd == 1:
        s, d = (1, *s), (1, *d)
        padding = padding if isinstance(padding, str) else (0, *padding)
    pads = _pads(padding, w, d, s, op)
    p = (*s, *pads, *d, int(groups))
    return _finish(grid_of(x, w, b, p), input, nd, batched)


def conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                   padding: Any, output_padding: Any, groups: int, dilation: Any,
                   nd: int) -> Tensor:
    """conv_transpose1d (nd = 1), conv_transpose2d (nd = 2) and conv_transpose3d (nd = 3)."""
    op = f"conv_transpose{nd}d"
    if isinstance(padding, str):
        raise TypeError(f"{op}(): argument 'padding' must be tuple of ints, not str")
    x, w, b, batched = _prepare(input, weight, bias, nd, op, True, groups)
    s, d = _pair(stride, nd, "stride"), _pair(dilation, nd, "dilation")
    pad, op_ = _pair(padding, nd, "padding"), _pair(output_padding, nd, "output_padding")
    if nd == 1:
        s, d, pad, op_ = (1, s[0]), (1, d[0]), (0, pad[0]), (0, op_[0])
    if any(v <= 0 for v in s):
        raise RuntimeError("non-positive stride is not supported")
    if any(v < 0 for v in pad):
        raise RuntimeError("negative padding is not supported")
    if any(v <= 0 for v in d):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(d)}")
    n = len(s)
    if any(not (0 <= o < s[i] or 0 <= o < d[i]) for i, o in enumerate(op_)):
        names = ("depth", "height", "width")[3 - n:]
        got = " ".join(f"{what}_{dim}: {v[i]}" for what, v in
                       (("output_padding", op_), ("stride", s), ("dilation", d))
                       for i, dim in enumerate(names))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got {got}")
    hw = tuple((x.size(2 + i) - 1) * s[i] - 2 * pad[i] + d[i] * (w.size(2 + i) - 1) + op_[i] + 1
               for i in range(n))
    if any(v <= 0 for v in hw):
        raise RuntimeError(f"Given input size per channel: "
                           f"({' x '.join(str(v) for v in x.shape[2:])}). Calculated output "
                           f"size per channel: ({' x '.join(str(v) for v in hw)}). Output size "
                           f"is too small")
    p = (*s, *pad, *pad, *d, int(groups))
    return _finish(image_of(x, w, b, p, hw), input, nd, batched)


# ---- pyth.nn.functional's names -----------------------------------------------------------------

def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution over (N, C, L) or (C, L); padding an int, a 1-tuple, 'valid' or 'same'."""
    return conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution over (N, C, H, W) or (C, H, W) by weight (Cout, C / groups, kH, kW)."""
    return conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """The adjoint of conv1d in its input (the gradient of conv1d), plus bias."""
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """The adjoint of conv2d in its input, plus bias; weight (Cin, Cout / groups, kH, kW)."""
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 2)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) by weight (Cout, C / groups, kD, kH,
    kW): TH's VolumetricConvolutionMM, the 2-D kernel with a depth."""
    return conv(input, weight, bias, stride, padding, dilation, groups, 3)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """The adjoint of conv3d in its input, plus bias; weight (Cin, Cout / groups, kD, kH, kW)."""
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 3)


# ---- names the functions above use, imported last so that import cycles resolve -------------
from .._prims.creation import zeros  # noqa: E402
