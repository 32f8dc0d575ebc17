"""Pooling on the THNN kernels (generic/THNNPooling.c), recorded as Op rows.

Every pooling here is a linear map of its input once the max pooling's argmax is fixed, so its
backward is that map's adjoint: one C call, or under create_graph the adjoint recorded as an Op
row of its own, whose formula is the forward map again. 1-D pooling is 2-D pooling over a unit
height; 2-D and 3-D pooling call TH's Spatial and Volumetric layers, one C kernel each (the
Spatial is the Volumetric over a unit depth).
"""

from __future__ import annotations

from typing import Any

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._th import lib
from ..autograd.record import Op, next_edges, record_node
from ..tensor import Tensor, as_int64

_COMPUTE = {_dt.float32: "Float", _dt.float64: "Double"}


def _fn(name: str, dt: _dt.dtype) -> Any:
    return getattr(lib, f"THNN_{_COMPUTE[dt]}{name}")


# kind -> the TH layer (Spatial for a 4-D input, Volumetric for a 5-D one) and its arguments:
# "max" (k..., s..., pad..., dil..., ceil), "avg" (k..., s..., pad..., ceil, count_include_pad,
# divisor), "adaptive" and "adaptive_max" (the output size), each tuple in the order (T,) H, W.
_LAYERS = {"max": "DilatedMaxPooling", "avg": "AveragePooling",
           "adaptive": "AdaptiveAveragePooling", "adaptive_max": "AdaptiveMaxPooling"}
_INDEXED = ("max", "adaptive_max")


_KERNELS: dict = {}  # (kind, rank, verb, dtype) -> the C function, looked up once


def _kernel(kind: str, x: Tensor, verb: str) -> Any:
    key = (kind, x.dim(), verb, x.dtype)
    fn = _KERNELS.get(key)
    if fn is None:
        layer = ("Volumetric" if key[1] == 5 else "Spatial") + _LAYERS[kind]
        fn = _KERNELS[key] = _fn(f"{layer}_{verb}", x.dtype)
    return fn


def _forward(kind: str, x: Tensor, args: tuple) -> tuple:
    y = new_result(x.dtype)
    if kind in _INDEXED:
        idx = new_result(_dt.int64)
        check(_kernel(kind, x, "updateOutput")(y._h, idx._h, x._h, *args))
        return y, idx
    check(_kernel(kind, x, "updateOutput")(y._h, x._h, *args))
    return y, None


def _adjoint(kind: str, g: Tensor, x: Tensor, idx: Tensor | None, args: tuple) -> Tensor:
    """The gradient for x (x gives only the shape) of the pooling's output gradient g."""
    gi = new_result(g.dtype)
    fn = _kernel(kind, x, "updateGradInput")
    if kind in _INDEXED:
        check(fn(gi._h, g._h, x._h, idx._h))
    elif kind == "avg":
        check(fn(gi._h, g._h, x._h, *args))
    else:
        check(fn(gi._h, g._h, x._h))
    return gi


def _apply_map(kind: str, v: Tensor, idx: Tensor | None, args: tuple) -> Tensor:
    """The forward map on v with the argmax fixed (the adjoint's adjoint)."""
    if kind in _INDEXED:
        n, c = v.shape[:2]
        return v.reshape(n, c, -1).gather(2, idx.reshape(n, c, -1)).reshape(idx.shape)
    return pool(kind, v, args)[0]


def _pool_backward(g: Any, a: dict) -> list:
    """The pooling's gradient: its adjoint on g, recorded, so it differentiates again."""
    if isinstance(g, list):   # (output, indices): the indices have none
        g = g[0]
    x = a["input"]
    if g.dtype is not x.dtype:
        g = g.to(x.dtype)
    return [pool_adjoint(g, x, a["kind"], a.get("indices"), a["args"])]


def _pool_first(g: Any, a: dict) -> list:
    """The same gradient by the kernel's updateGradInput."""
    if isinstance(g, list):
        g = g[0]
    x = a["input"]
    if g.dtype is not x.dtype:
        g = g.to(x.dtype)
    return [_adjoint(a["kind"], g, x, a.get("indices"), a["args"])]


def _pool_adjoint_backward(v: Tensor, a: dict) -> list:
    """The adjoint's gradient: the forward map on v with the argmax fixed (the input gives only
    a shape: it has none)."""
    if v.dtype is not a["dtype"]:
        v = v.to(a["dtype"])
    return [_apply_map(a["kind"], v, a.get("indices"), a["args"]) if a["needs"][0] else None,
            None]


# the input is saved (its shape, and version-checked as PyTorch's); so are max pooling's indices
POOL = Op("pool", "input", _pool_backward, node="PoolFunctionBackward", first=_pool_first)
POOL_ADJOINT = Op("pool_adjoint", "grad input", _pool_adjoint_backward,
                  node="PoolAdjointFunctionBackward")


def pool_adjoint(g: Tensor, x: Tensor, kind: str, idx: Tensor | None, args: tuple) -> Tensor:
    """The pooling's backward as a function of the output gradient g, recorded when g requires
    grad (double backward)."""
    edges = next_edges(g, x)
    gi = _adjoint(kind, g, x, idx, args)
    if edges is not None:
        record_node(POOL_ADJOINT, edges, gi, {"indices": idx},
                    {"kind": kind, "args": args, "dtype": g.dtype})
    return gi


def pool(kind: str, x: Tensor, args: tuple) -> tuple:
    """(output, indices or None) of a pooling of a 4-D or 5-D input of float32 or float64,
    recorded when x requires grad (the indices are not differentiable)."""
    edges = next_edges(x)
    y, idx = _forward(kind, x, args)
    if edges is not None:
        record_node(POOL, edges, y if idx is None else (y, idx), {"input": x, "indices": idx},
                    {"kind": kind, "args": args})
    return y, idx


# ---- the functional front -----------------------------------------------------------------------

_WORDS = {1: "one", 2: "two", 3: "three"}


def _tuple(v: Any, n: int, name: str, op: str) -> tuple:
    t = tuple(as_int64(int(e), op, name, i + 1) for i, e in enumerate(v)) \
        if isinstance(v, (tuple, list)) else (as_int64(int(v), op, name),) * n
    if len(t) == 1:
        t = t * n
    if len(t) != n:
        raise RuntimeError(f"{op}: {name} must either be a single int, or a tuple of "
                           f"{_WORDS[n]} ints")
    return t


def _rank_error(x: Tensor, nd: int, op: str, adaptive: bool) -> RuntimeError:
    if adaptive:
        return RuntimeError(f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor, but got "
                            f"{list(x.shape)}")
    if nd == 3:
        return RuntimeError(f"{op}(): non-empty 4D or 5D (batch mode) tensor expected for input, "
                            f"but got {list(x.shape)}")
    return RuntimeError(f"{op}: Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with "
                        f"optional 0 dim batch size for input, but got: {list(x.shape)}")


def _planes(x: Tensor, nd: int, op: str, adaptive: bool = False) -> tuple:
    """The input as (N, C, H, W) (nd 1 or 2) or (N, C, T, H, W) (nd 3), and whether it was
    batched: unbatched inputs gain N = 1, 1-D ones H = 1."""
    if x.dim() not in (nd + 1, nd + 2):
        raise _rank_error(x, nd, op, adaptive)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{op}: expected a floating point input, got {x.dtype}")
    shape = tuple(x.shape)
    batched = len(shape) == nd + 2
    empty = [i for i in range(len(shape)) if shape[i] == 0 and (i > 0 or not batched)] \
        if 0 in shape else ()
    if empty and adaptive:
        raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch "
                           f"dimensions, but input has sizes {list(x.shape)} with dimension "
                           f"{empty[0]} being empty")
    if empty and nd == 3:
        raise RuntimeError(f"{op}(): Expected input's non-batch dimensions to have positive "
                           f"length, but input has a shape of {list(x.shape)} and non-batch "
                           f"dimension {empty[0]} has length zero!")
    if empty:
        raise _rank_error(x, nd, op, adaptive)
    v = x if batched else x.unsqueeze(0)
    if nd == 1:
        v = v.unsqueeze(2)
    if v.dtype not in _COMPUTE:
        v = v.float()
    return v, batched


def _back(y: Tensor, x: Tensor, nd: int, batched: bool, cast: bool = True) -> Tensor:
    if nd == 1:
        y = y.squeeze(2)
    if not batched:
        y = y.squeeze(0)
    return y.to(x.dtype) if cast and y.dtype is not x.dtype else y


def _stride(stride: Any, kernel: tuple, nd: int, op: str) -> tuple:
    """The stride (None or empty: the kernel size)."""
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        return kernel
    return _tuple(stride, nd, "stride", op)


def max_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
             ceil_mode: bool, return_indices: bool, nd: int) -> Any:
    """max_pool1d / max_pool2d / max_pool3d."""
    op = f"max_pool{nd}d"
    x, batched = _planes(input, nd, op)
    k = _tuple(kernel_size, nd, "kernel_size", op)
    s = _stride(stride, k, nd, op)
    p, d = _tuple(padding, nd, "padding", op), _tuple(dilation, nd, "dilation", op)
    if nd == 1:
        k, s, p, d = (1, *k), (1, *s), (0, *p), (1, *d)
    y, idx = pool("max", x, (*k, *s, *p, *d, int(ceil_mode)))
    y = _back(y, input, nd, batched)
    return (y, _back(idx, input, nd, batched, cast=False)) if return_indices else y


def avg_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
             count_include_pad: bool, divisor_override: int | None, nd: int) -> Tensor:
    """avg_pool1d / avg_pool2d / avg_pool3d."""
    op = f"avg_pool{nd}d"
    x, batched = _planes(input, nd, op)
    k = _tuple(kernel_size, nd, "kernel_size", op)
    s = _stride(stride, k, nd, op)
    p = _tuple(padding, nd, "padding", op)
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    if nd == 1:
        k, s, p = (1, *k), (1, *s), (0, *p)
    args = (*k, *s, *p, int(ceil_mode), int(count_include_pad),
            as_int64(int(divisor_override or 0), op, "divisor_override"))
    return _back(pool("avg", x, args)[0], input, nd, batched)


def adaptive_pool(kind: str, input: Tensor, output_size: Any, nd: int,
                  return_indices: bool = False) -> Any:
    """adaptive_{avg,max}_pool{1,2,3}d (None in output_size keeps that size)."""
    op = f"adaptive_{'max' if kind == 'adaptive_max' else 'avg'}_pool{nd}d"
    x, batched = _planes(input, nd, op, adaptive=True)
    sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else \
        (output_size,) * nd
    if len(sizes) != nd:
        raise RuntimeError(f"{op}: output_size must be {nd}, got {output_size!r}")
    lead = x.dim() - nd
    sizes = tuple(int(x.size(lead + i)) if v is None else
                  as_int64(int(v), op, "output_size",
                           i + 1 if isinstance(output_size, (tuple, list)) else None)
                  for i, v in enumerate(sizes))
    y, idx = pool(kind, x, (1, *sizes) if nd == 1 else sizes)
    y = _back(y, input, nd, batched)
    return (y, _back(idx, input, nd, batched, cast=False)) if return_indices else y


def adaptive_avg_pool(input: Tensor, output_size: Any, nd: int) -> Tensor:
    """adaptive_avg_pool1d / 2d / 3d."""
    return adaptive_pool("adaptive", input, output_size, nd)


# ---- pyth.nn.functional's names -----------------------------------------------------------------

def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each window along the last dim; with return_indices also its position."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_pool1d, locals())
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each window over the last two dims; indices are flat within (H, W)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_pool2d, locals())
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum of each window over the last three dims; indices are flat within (T, H, W)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_pool3d, locals())
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = True) -> tuple:
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_pool1d_with_indices, locals())
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 1)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = True) -> tuple:
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_pool2d_with_indices, locals())
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 2)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """max_pool3d's (output, indices), whatever return_indices says (PyTorch's signature)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(max_pool3d_with_indices, locals())
    return max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 3)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """The mean of each window along the last dim."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(avg_pool1d, locals())
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each window over the last two dims (divisor_override replaces its size)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(avg_pool2d, locals())
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override, 2)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each window over the last three dims (divisor_override replaces its size)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(avg_pool3d, locals())
    return avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override, 3)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to output_size cells along the last dim, whatever the input's length."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_avg_pool1d, locals())
    return adaptive_pool("adaptive", input, output_size, 1)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to an (oH, oW) grid, whatever the input's size."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_avg_pool2d, locals())
    return adaptive_pool("adaptive", input, output_size, 2)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to an (oT, oH, oW) grid, whatever the input's size."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_avg_pool3d, locals())
    return adaptive_pool("adaptive", input, output_size, 3)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to output_size cells along the last dim; with return_indices the argmax."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_max_pool1d, locals())
    return adaptive_pool("adaptive_max", input, output_size, 1, return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to an (oH, oW) grid; indices are flat within (H, W)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_max_pool2d, locals())
    return adaptive_pool("adaptive_max", input, output_size, 2, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to an (oT, oH, oW) grid; indices are flat within (T, H, W)."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_max_pool3d, locals())
    return adaptive_pool("adaptive_max", input, output_size, 3, return_indices)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple:
    """adaptive_max_pool1d's (output, indices), whatever return_indices says."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_max_pool1d_with_indices, locals())
    return adaptive_pool("adaptive_max", input, output_size, 1, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple:
    """adaptive_max_pool2d's (output, indices), whatever return_indices says."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_max_pool2d_with_indices, locals())
    return adaptive_pool("adaptive_max", input, output_size, 2, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple:
    """adaptive_max_pool3d's (output, indices), whatever return_indices says."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(adaptive_max_pool3d_with_indices, locals())
    return adaptive_pool("adaptive_max", input, output_size, 3, True)
