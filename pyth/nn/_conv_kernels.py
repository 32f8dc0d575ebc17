"""Convolutions on the THNN kernels (generic/THNNConvolution.c), recorded as Op rows.

Three linear maps make every convolution (lib/THNNConv.h names them): A, grid = conv(image, W);
B, image = conv_transpose(grid, W), A's adjoint in the image; C, the weight gradient
grid x vol2col(image). ConvNd's forward is A, its backward B and C; ConvTransposeNd's forward is
B, its backward A and C. Each map is one Op row: forward and first-order backward are one C
call each, and its formula (under create_graph) applies the other maps, recorded, so every
order of derivative exists. 1-D convolutions are 2-D ones over a unit height; 2-D operands
(4-D tensors) call the Spatial* verbs and 3-D ones (5-D tensors) the Volumetric* verbs of the
same kernel.
"""

from __future__ import annotations

from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._th import ffi, lib
from ..autograd.record import Op, next_edges, record_node
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


# ---- the three maps, recorded: one Op row each, its formula the other maps recorded -----------

def _maps_backward(g: Tensor, a: dict, transposed: bool) -> list:
    """A's gradients: B of g for the image, C of (g, image) for the weight; or B's
    (transposed): A of g, cropped to the grid, for the grid, C of (grid, g) for the weight; and
    g's sums for the bias. Recorded maps, so they differentiate again."""
    x, w, p = a["input"], a["weight"], a["p"]
    need_x, need_w, need_b = a["needs"]
    if g.dtype is not x.dtype:
        g = g.to(x.dtype)
    hw, wshape = tuple(x.shape[2:]), tuple(w.shape)
    gx = gw = None
    if need_x:
        gx = grid_of(g, w, None, p, hw) if transposed else image_of(g, w, None, p, hw)
    if need_w:
        gw = weight_grad_of(x, g, p, wshape) if transposed else weight_grad_of(g, x, p, wshape)
    return [gx, gw, g.sum(_bias_dims(g)) if need_b else None]


def _grid_of_backward(g: Tensor, a: dict) -> list:
    """A's formula."""
    return _maps_backward(g, a, False)


def _image_of_backward(g: Tensor, a: dict) -> list:
    """B's formula."""
    return _maps_backward(g, a, True)


def _grid_of_first(g: Tensor, a: dict) -> list:
    """A's gradients by the convolution's two backward verbs."""
    x, w, p = a["input"], a["weight"], a["p"]
    need_x, need_w, need_b = a["needs"]
    if g.dtype is not x.dtype:
        g = g.to(x.dtype)
    gx = gw = gb = None
    if need_x:
        gx = new_result(g.dtype)
        check(_fn("conv", "updateGradInput", g.dim(), g.dtype)(gx._h, g._h, w._h,
                                                               *x.shape[2:], *p))
    if need_w or need_b:
        gw, gb = _wgrad(g, x, p, tuple(w.shape), need_b)
    return [gx, gw if need_w else None, gb]


def _image_of_first(g: Tensor, a: dict) -> list:
    """B's gradients by the transposed convolution's backward verbs."""
    y, w, p = a["input"], a["weight"], a["p"]
    need_y, need_w, need_b = a["needs"]
    if g.dtype is not y.dtype:
        g = g.to(y.dtype)
    gy = _grid(g, w, None, p, tuple(y.shape[2:])) if need_y else None
    gw = gb = None
    if need_w or need_b:
        gw = _zeros(tuple(w.shape), g.dtype) if need_w else None
        gb = _zeros((g.size(1),), g.dtype) if need_b else None
        check(_fn("full", "accGradParameters", g.dim(), g.dtype)(
            _h(gw), _h(gb), g._h, y._h, *p, 1.0))
    return [gy, gw, gb]


def _weight_grad_of_backward(gw: Tensor, a: dict) -> list:
    """C's gradients: A of the image by gw for the grid, B of the grid by gw for the image."""
    grid, image, p = a["grid"], a["image"], a["p"]
    need_grid, need_image = a["needs"]
    if gw.dtype is not grid.dtype:
        gw = gw.to(grid.dtype)
    return [grid_of(image, gw, None, p, tuple(grid.shape[2:])) if need_grid else None,
            image_of(grid, gw, None, p, tuple(image.shape[2:])) if need_image else None]


# p (the geometry) is the one argument each formula reads; both operands are saved
GRID_OF = Op("grid_of", "input weight bias", _grid_of_backward, node="ConvFunctionBackward",
             first=_grid_of_first)
IMAGE_OF = Op("image_of", "input weight bias", _image_of_backward,
              node="ConvTransposeFunctionBackward", first=_image_of_first)
WEIGHT_GRAD_OF = Op("weight_grad_of", "grid image", _weight_grad_of_backward,
                    node="ConvWeightGradFunctionBackward")


def grid_of(image: Tensor, w: Tensor, b: Tensor | None, p: tuple,
            grid_hw: tuple | None = None) -> Tensor:
    """A: the 2-D or 3-D convolution (grid = image * w + b), recorded when an operand requires
    grad."""
    edges = next_edges(image, w, b)
    y = _grid(image, w, b, p, grid_hw)
    if edges is not None:
        record_node(GRID_OF, edges, y, {"input": image, "weight": w}, {"p": p})
    return y


def image_of(grid: Tensor, w: Tensor, b: Tensor | None, p: tuple, image_hw: tuple) -> Tensor:
    """B: the 2-D or 3-D transposed convolution (image = grid *^T w + b), A's adjoint,
    recorded when an operand requires grad."""
    edges = next_edges(grid, w, b)
    x = _image(grid, w, b, p, image_hw)
    if edges is not None:
        record_node(IMAGE_OF, edges, x, {"input": grid, "weight": w}, {"p": p})
    return x


def weight_grad_of(grid: Tensor, image: Tensor, p: tuple, wshape: tuple) -> Tensor:
    """C: the weight gradient as a function of grid and image, recorded when an operand
    requires grad (double backward)."""
    edges = next_edges(grid, image)
    gw = _wgrad(grid, image, p, wshape, False)[0]
    if edges is not None:
        record_node(WEIGHT_GRAD_OF, edges, gw, {"grid": grid, "image": image}, {"p": p})
    return gw


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
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(conv1d, locals())
    return conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution over (N, C, H, W) or (C, H, W) by weight (Cout, C / groups, kH, kW)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(conv2d, locals())
    return conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """The adjoint of conv1d in its input (the gradient of conv1d), plus bias."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(conv_transpose1d, locals())
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """The adjoint of conv2d in its input, plus bias; weight (Cin, Cout / groups, kH, kW)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(conv_transpose2d, locals())
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 2)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) by weight (Cout, C / groups, kD, kH,
    kW): TH's VolumetricConvolutionMM, the 2-D kernel with a depth."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(conv3d, locals())
    return conv(input, weight, bias, stride, padding, dilation, groups, 3)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """The adjoint of conv3d in its input, plus bias; weight (Cin, Cout / groups, kD, kH, kW)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(conv_transpose3d, locals())
    return conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                          dilation, 3)


# ---- names the functions above use, imported last so that import cycles resolve -------------
from .._prims.creation import zeros  # noqa: E402
