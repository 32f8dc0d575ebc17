"""The derivatives table: every differentiable op's backward formula, one entry per op.

Like PyTorch's derivatives.yaml, in Python. An entry names the op, its differentiable
arguments, what it saves, and the formula: a function (grad, args) -> the gradient of each
differentiable argument (None where there is none). `args` holds the op's arguments by name
(`self` is called `input`), saved tensors as tensors and the others as `Info` (shape, dtype),
and `result` when saved. Formulas are written with pyth's own (recorded) ops, so under
create_graph=True the backward pass is itself recorded and can be differentiated again.
Gradients are brought back to each input's shape (summing broadcast dims) and dtype by the
node, not by the formulas. Reductions' backward hands back expanded views, not copies.

`install()` puts the recording wrappers (record.py) in place of the forward functions: in the
pyth namespace, in the modules that define them (so composite ops such as hstack or dist,
built from recorded ops, record their pieces), and as Tensor methods and operators.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Callable

import pyth as P

from .._errors import check, raise_error
from .._th import ffi, lib
from ..dtypes import ALL_DTYPES
from ..tensor import Tensor, c_sizes, wrap
from . import grad_mode, pointwise_nodes
from .graph import _FREED, Node
from .record import Op, differentiable, geometry, in_place, mark_view
from .variable import requires_grad_of

TABLE: dict[str, Op] = {}


def defop(name: str, diff: str = "input", save: str = "", **kw: Any) -> Callable:
    def deco(fn: Callable) -> Callable:
        TABLE[name] = Op(name, diff, fn, save, **kw)
        return fn
    return deco


def _zero(g: Tensor) -> Tensor:
    return P.zeros_like(g)


# ---- helpers -------------------------------------------------------------------------------------

def _dims(dim: Any, n: int) -> list:
    """dim (None, (), an int or a sequence) as sorted non-negative dims of an n-dim tensor."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return list(range(n))
    if isinstance(dim, (tuple, list, P.Size)):
        return sorted(int(d) % max(n, 1) for d in dim)
    return [int(dim) % max(n, 1)] if n else []


# shape -> its int64_t[] (read-only: newExpand copies it): a training step's sums expand to the
# same few shapes every step, and a new array costs a third of the view's C call
_SIZES: dict[tuple, Any] = {}


def unreduce(g: Tensor, shape: tuple, dim: Any, keepdim: bool) -> Tensor:
    """A reduction's gradient as an expanded view of input's shape (no copy)."""
    if dim is None and g.dim() == 0:   # over all elements: the 0-dim g expands as it is
        if not grad_mode.state.enabled:     # a plain backward: the C view, nothing recorded
            dt = g.dtype
            sizes = _SIZES.get(shape) if type(shape) is tuple else c_sizes(shape)
            if sizes is None:
                if len(_SIZES) >= 256:
                    _SIZES.clear()
                sizes = _SIZES[shape] = ffi.new("int64_t[]", c_sizes(shape))
            r = wrap(dt, dt.tensor.newExpand(g._h, len(shape), sizes))
            mark_view(r, g)
            return r
        return g.expand(tuple(shape))
    if not keepdim:
        for d in _dims(dim, len(shape)):
            g = g.unsqueeze(d)
    return g.expand(tuple(shape))


def _count(shape: tuple, dim: Any) -> int:
    n = 1
    for d in _dims(dim, len(shape)):
        n *= shape[d]
    return n


def _positions(shape: tuple) -> Tensor:
    n = 1
    for s in shape:
        n *= s
    return P.arange(n, dtype=P.int64).view(tuple(shape))


def selection_backward(g: Tensor, shape: tuple, select: Callable) -> Tensor:
    """The adjoint of a selection (select(t) picks elements of t, possibly repeatedly):
    g's elements added back where they came from. Differentiable again (an index_add)."""
    pos = select(_positions(shape)).reshape(-1)
    n = 1
    for s in shape:
        n *= s
    out = P.zeros(n, dtype=g.dtype)
    return out.index_add(0, pos, g.reshape(-1)).view(tuple(shape))


def embed(g: Tensor, shape: tuple, view: Callable) -> Tensor:
    """The adjoint of a non-overlapping view: zeros with g written through the view."""
    if requires_grad_of(g):
        return selection_backward(g, shape, view)
    out = P.zeros(tuple(shape), dtype=g.dtype)
    view(out).copy_(g)
    return out


def _storage_len(t: Any) -> int:
    return len(t.storage())


def strided_backward(g: Tensor, in_geom: tuple, out_geom: tuple, length: int) -> Tensor:
    """Gradient through out = as_strided(in's storage, out_geom): out's gradient is added into
    the storage cells it reads, and in's gradient read from the cells in views."""
    cells = P.arange(length, dtype=P.int64)
    out_cells = cells.as_strided(*out_geom).reshape(-1)
    buf = P.zeros(length, dtype=g.dtype).index_add(0, out_cells, g.reshape(-1))
    in_cells = cells.as_strided(*in_geom)
    return buf.take(in_cells)


# ---- pointwise: unary ---------------------------------------------------------------------------

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_UNARY: dict[str, tuple[str, Callable]] = {
    "neg": ("", lambda g, x, r: -g),
    "abs": ("input", lambda g, x, r: g * x.sign()),
    "exp": ("result", lambda g, x, r: g * r),
    "expm1": ("result", lambda g, x, r: g * (r + 1)),
    "log": ("input", lambda g, x, r: g / x),
    "log1p": ("input", lambda g, x, r: g / (x + 1)),
    "log2": ("input", lambda g, x, r: g / (x * _LN2)),
    "log10": ("input", lambda g, x, r: g / (x * _LN10)),
    "sqrt": ("result", lambda g, x, r: g / (2 * r)),
    "rsqrt": ("result", lambda g, x, r: -0.5 * g * r * r * r),
    "reciprocal": ("result", lambda g, x, r: -g * r * r),
    "sin": ("input", lambda g, x, r: g * x.cos()),
    "cos": ("input", lambda g, x, r: -g * x.sin()),
    "tan": ("result", lambda g, x, r: g * (1 + r * r)),
    "asin": ("input", lambda g, x, r: g * (1 - x * x).rsqrt()),
    "acos": ("input", lambda g, x, r: -g * (1 - x * x).rsqrt()),
    "atan": ("input", lambda g, x, r: g / (1 + x * x)),
    "sinh": ("input", lambda g, x, r: g * x.cosh()),
    "cosh": ("input", lambda g, x, r: g * x.sinh()),
    "tanh": ("result", lambda g, x, r: g * (1 - r * r)),
    "sigmoid": ("result", lambda g, x, r: g * (r * (1 - r))),
    "erf": ("input", lambda g, x, r: g * (2 / math.sqrt(math.pi)) * (-x * x).exp()),
    "erfinv": ("result", lambda g, x, r: g * (math.sqrt(math.pi) / 2) * (r * r).exp()),
    "frac": ("", lambda g, x, r: g),
}
for _n in ("floor", "ceil", "round", "trunc", "sign"):
    _UNARY[_n] = ("", lambda g, x, r: _zero(g))


_UNARY["lgamma"] = ("input", lambda g, x, r: g * P.digamma(x))
_UNARY["digamma"] = ("input", lambda g, x, r: g * P.polygamma(1, x))
_UNARY["erfc"] = ("input", lambda g, x, r: g * (-2 / math.sqrt(math.pi)) * (-x * x).exp())
_UNARY["i0"] = ("input", None)   # needs I1, which pyth does not have yet: backward raises
# relu = max(x, 0): the gradient passes where the result is not <= 0 (PyTorch's threshold)
_UNARY["relu"] = ("result", lambda g, x, r: g.masked_fill(r <= 0, 0))

# ops whose derivative is also a stamped C kernel, TH<Real>Tensor_<name>_backward (its
# expression sits beside the forward one in lib/THMathOps.h): first-order backward is that one
# call; under create_graph the composed formula above runs instead, so it can be
# differentiated again.
C_GRADS = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "reciprocal", "sin",
           "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf",
           "erfinv", "lgamma", "abs", "relu"]


_C_GRAD_FNS: dict[tuple, Callable] = {}   # (name, dtype) -> TH<Real>Tensor_<name>_backwardNew


def c_grad(name: str, g: Tensor, saved: Tensor) -> Tensor:
    """The input's gradient of unary op name from g and its saved value, in one C call."""
    dt = g.dtype
    if saved.dtype is not dt:
        saved = saved.to(dt)
    fn = _C_GRAD_FNS.get((name, dt))
    if fn is None:
        fn = _C_GRAD_FNS[name, dt] = getattr(dt.tensor, name + "_backwardNew")
    return wrap(dt, fn(g._h, saved._h))


def _unary_formula(name: str, f: Callable | None) -> Callable:
    in_c = name in C_GRADS and hasattr(P.float32.tensor, name + "_backwardNew")

    def formula(g: Tensor, a: dict) -> Tensor:
        x, r = a.get("input"), a.get("result")
        if in_c and (f is None or not grad_mode.state.enabled):
            return c_grad(name, g, r if r is not None else x)
        if f is None:
            raise RuntimeError(f"the derivative of {name} is not available in this build")
        return f(g, x, r)
    return formula


_NODE_NAMES = {"log1p": "Log1PBackward0"}   # PyTorch's spelling where it is not the rule's

for _n, (_save, _f) in _UNARY.items():
    TABLE[_n] = Op(_n, "input", _unary_formula(_n, _f), _save, node=_NODE_NAMES.get(_n))


# ---- pointwise: binary ------------------------------------------------------------------------

def _alpha(g: Tensor, alpha: Any) -> Tensor:
    return g if alpha == 1 else g * alpha


defop("add", "input other", "")(lambda g, a: (g, _alpha(g, a.get("alpha", 1))))
pointwise_nodes.FIRST["add"] = lambda node, g: [g, g]   # the lean record has no alpha
defop("sub", "input other", "")(lambda g, a: (g, -_alpha(g, a.get("alpha", 1))))
defop("mul", "input other", "input@other other@input")(
    lambda g, a: (g * a["other"] if a["needs"][0] else None,
                  g * a["input"] if a["needs"][1] else None))


def _mul_first(node: Any, g: Tensor) -> list | None:
    """mul's plain backward in the lean record: g * other and g * input, one C call each
    (None where the C table has no entry: the formula runs)."""
    cls = type(g)
    table = pointwise_nodes.DIRECT_BINARY["mul"]
    if node.consts is not None:    # input * a Python number: the node saved nothing
        c = node.consts["other"]
        e = table.get((cls, type(c)))
        if e is None or e[1] is not cls:
            return None
        try:
            h = e[0](g._h, c)
        except OverflowError:
            return None
        return [pointwise_nodes.wrap_new(h, cls, e[2]), None]
    e = table.get((cls, cls))
    if e is None:
        return None
    out = [None, None]
    for name, s in zip(node.names, node.saved):   # other (for input's gradient), input
        t = s.unpack(node)
        if type(t) is not cls:
            return None
        out[name == "input"] = pointwise_nodes.wrap_new(e[0](g._h, t._h), e[1], e[2])
    return out


pointwise_nodes.FIRST["mul"] = _mul_first


@defop("div", "input other", "input@other other")
def _div(g: Tensor, a: dict) -> tuple:
    if a.get("rounding_mode") is not None:
        return _zero(g), (_zero(g) if isinstance(a["other"], Tensor) else None)
    other = a["other"]
    gi = g / other if a["needs"][0] else None
    go = -g * a["input"] / (other * other) if a["needs"][1] else None
    return gi, go


@defop("pow", "input exponent", "input exponent result")
def _pow(g: Tensor, a: dict) -> tuple:
    x, e, r = a["input"], a["exponent"], a["result"]
    gi = ge = None
    if a["needs"][0]:
        if isinstance(e, Tensor):
            gi = P.where(e == 0, 0.0, g * e * x.pow(e - 1))
        elif e == 0:
            gi = _zero(g)
        else:
            gi = g * e * x.pow(e - 1)
    if a["needs"][1]:
        if isinstance(x, Tensor):
            ge = P.where((x == 0) & (e >= 0), 0.0, g * r * x.log())
        else:
            ge = g * r * math.log(x) if x > 0 else (_zero(g) if x == 0 else g * math.nan)
    return gi, ge


@defop("atan2", "input other", "input other")
def _atan2(g: Tensor, a: dict) -> tuple:
    x, y = a["input"], a["other"]
    d = g / (x * x + y * y)
    return d * y, -d * x


@defop("xlogy", "input other", "input other")
def _xlogy(g: Tensor, a: dict) -> tuple:
    x, y = a["input"], a["other"]
    gx = g * P.log(y) if a["needs"][0] else None  # log(y) at x = 0 too, as PyTorch 2
    gy = g * x / y if a["needs"][1] else None
    return gx, gy


@defop("logaddexp", "input other", "input other")
def _logaddexp(g: Tensor, a: dict) -> tuple:
    x, y = a["input"], a["other"]
    return ((g * P.sigmoid(x - y)) if a["needs"][0] else None,
            (g * P.sigmoid(y - x)) if a["needs"][1] else None)


@defop("logaddexp2", "input other", "input other")
def _logaddexp2(g: Tensor, a: dict) -> tuple:
    x, y = a["input"], a["other"]
    return ((g * P.sigmoid((x - y) * _LN2)) if a["needs"][0] else None,
            (g * P.sigmoid((y - x) * _LN2)) if a["needs"][1] else None)


@defop("copysign", "input other", "input result")
def _copysign(g: Tensor, a: dict) -> tuple:
    # |x| sign(y): d/dx = sign(x) sign(result) (0 at x = 0, as PyTorch); d/dy = 0
    x, r = a["input"], a["result"]
    return (g * x.sign() * r.sign() if a["needs"][0] else None,
            _zero(g) if a["needs"][1] else None)


@defop("hypot", "input other", "input other result")
def _hypot(g: Tensor, a: dict) -> tuple:
    r = a["result"]
    return g * a["input"] / r, g * a["other"] / r


def _operand(v: Any, like: Tensor) -> Tensor:
    """A formula argument as a tensor of like's dtype (an unsaved one, which the kernel's
    expression does not read, as like itself: it broadcasts to the output's shape)."""
    if isinstance(v, Tensor):
        return v if v.dtype is like.dtype else v.to(like.dtype)
    if isinstance(v, (int, float)):
        return P.full((), v, dtype=like.dtype)
    return like


def c_grad2(name: str, which: str, g: Tensor, x: Any, y: Any) -> Tensor:
    """One operand's gradient of binary op name, in one C call (THMathOps.h's column)."""
    dt = g.dtype
    r = wrap(dt, dt.tensor.new())
    xt, yt = _operand(x, g), _operand(y, g)
    check(getattr(dt.tensor, f"{name}_backward_{which}")(r._h, g._h, xt._h, yt._h))
    return r


def _binary_c(name: str, second: str, formula: Callable) -> Callable:
    """formula for create_graph (recorded ops), the stamped C kernels for first order."""
    in_c = hasattr(P.float32.tensor, name + "_backward_input")

    def f(g: Tensor, a: dict) -> tuple:
        if not in_c or grad_mode.state.enabled or a.get("rounding_mode") is not None or \
                not g.dtype.is_floating_point:
            return formula(g, a)
        x, y, needs = a["input"], a[second], a["needs"]
        return (c_grad2(name, "input", g, x, y) if needs[0] else None,
                c_grad2(name, "other", g, x, y) if needs[1] else None)
    return f


def _max_min(sign: int) -> Callable:
    def f(g: Tensor, a: dict) -> tuple:
        x, y = a["input"], a["other"]
        half = P.where(x == y, g / 2, g)
        wins = (x > y) if sign > 0 else (x < y)
        loses = (x < y) if sign > 0 else (x > y)
        return half.masked_fill(loses, 0), half.masked_fill(wins, 0)
    return f


defop("maximum", "input other", "input other")(_max_min(1))
defop("minimum", "input other", "input other")(_max_min(-1))
defop("fmod", "input other", "input other")(
    lambda g, a: (g, -g * (a["input"] / a["other"]).trunc()
                  if isinstance(a["other"], Tensor) else None))
defop("remainder", "input other", "input other")(
    lambda g, a: (g, -g * (a["input"] / a["other"]).floor()
                  if isinstance(a["other"], Tensor) else None))


for _n, _second in (("div", "other"), ("pow", "exponent"), ("atan2", "other"),
                    ("hypot", "other"), ("fmod", "other"), ("remainder", "other")):
    TABLE[_n].backward = _binary_c(_n, _second, TABLE[_n].backward)


@defop("clamp", "input min max", "input min max")
def _clamp(g: Tensor, a: dict) -> tuple:
    """The gradient goes to input where lo <= x <= hi, else to the bound that won (max wins
    when lo > hi, as min(max(x, lo), hi) computes)."""
    x, lo, hi = a["input"], a["min"], a["max"]
    keep = None
    if lo is not None:
        keep = x >= lo
    if hi is not None:
        keep = (x <= hi) if keep is None else keep & (x <= hi)
    gi = P.where(keep, g, 0.0)
    glo = ghi = None
    if isinstance(lo, Tensor):
        below = x < lo
        if hi is not None:
            below = below & (lo <= hi)
        glo = P.where(below, g, 0.0)
    if isinstance(hi, Tensor):
        above = x > hi
        if lo is not None:
            above = above | (lo > hi)
        ghi = P.where(above, g, 0.0)
    return gi, glo, ghi


defop("clamp_min", "input min", "input min")(
    lambda g, a: (P.where(a["input"] >= a["min"], g, 0.0),
                  P.where(a["input"] < a["min"], g, 0.0) if isinstance(a["min"], Tensor) else None))
defop("clamp_max", "input max", "input max")(
    lambda g, a: (P.where(a["input"] <= a["max"], g, 0.0),
                  P.where(a["input"] > a["max"], g, 0.0) if isinstance(a["max"], Tensor) else None))
defop("where", "input other", "condition")(
    lambda g, a: (P.where(a["condition"], g, 0.0), P.where(a["condition"], 0.0, g)))


@defop("lerp", "input end weight", "input end weight")
def _lerp(g: Tensor, a: dict) -> tuple:
    x, e, w = a["input"], a["end"], a["weight"]
    return g * (1 - w), g * w, (g * (e - x) if isinstance(w, Tensor) else None)


defop("addcmul", "input tensor1 tensor2", "tensor1 tensor2")(
    lambda g, a: (g, g * a["tensor2"] * a["value"], g * a["tensor1"] * a["value"]))
defop("addcdiv", "input tensor1 tensor2", "tensor1 tensor2")(
    lambda g, a: (g, g * a["value"] / a["tensor2"],
                  -g * a["value"] * a["tensor1"] / (a["tensor2"] * a["tensor2"])))


# ---- reductions -----------------------------------------------------------------------------

def _dim_of(a: dict) -> Any:
    d = a.get("dim")
    return None if isinstance(d, bool) else d


defop("sum", "input")(lambda g, a: unreduce(g, a["input"].shape, a["dim"], a["keepdim"]))
# divided after expanding, as PyTorch: the gradient is a new tensor (a hook may write into it)
defop("mean", "input")(lambda g, a: unreduce(g, a["input"].shape, a["dim"], a["keepdim"]) /
                       _count(a["input"].shape, a["dim"]))
# the lean record's full sum and mean (consts: the input's Info), without the formula's dict
pointwise_nodes.FIRST["sum"] = lambda node, g: [unreduce(g, node.consts["input"]._shape,
                                                         None, False)]
pointwise_nodes.FIRST["mean"] = lambda node, g: [
    unreduce(g, node.consts["input"]._shape, None, False) / node.consts["input"].numel()]


def _exclusive_prod(x: Tensor, d: int) -> Tensor:
    """prod of x along d with each element left out (exact with zeros): left * right scans."""
    n = x.shape[d]
    if n == 0:
        return x
    ones = P.ones_like(x.narrow(d, 0, 1))
    left = P.cat([ones, x.narrow(d, 0, n - 1).cumprod(d)], d) if n > 1 else ones
    rx = x.flip(d)
    right = P.cat([ones, rx.narrow(d, 0, n - 1).cumprod(d)], d).flip(d) if n > 1 else ones
    return left * right


@defop("prod", "input", "input")
def _prod(g: Tensor, a: dict) -> Tensor:
    x, dim, keep = a["input"], a["dim"], a["keepdim"]
    shape = tuple(x.shape)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) != 1):
        if x.dim() == 0:
            return g
        flat = x.reshape(-1)
        return unreduce(g, shape, None, keep) * _exclusive_prod(flat, 0).view(shape)
    d = _dims(dim, len(shape))[0] if shape else 0
    if not shape:
        return g
    return unreduce(g, shape, dim, keep) * _exclusive_prod(x, d)


def _evenly(g: Tensor, x: Tensor, r: Tensor, dim: Any, keep: bool) -> Tensor:
    """max/min/amax/amin over dims: the gradient shared evenly among the tied elements."""
    shape = tuple(x.shape)
    ru = unreduce(r, shape, dim, keep)
    mask = (x == ru)
    count = mask.sum(dim if dim is not None else None, keepdim=True) if shape else None
    gu = unreduce(g, shape, dim, keep)
    if count is None:
        return gu
    return P.where(mask, gu / count.to(g.dtype), 0.0)


defop("amax", "input", "input result")(
    lambda g, a: _evenly(g, a["input"], a["result"], a["dim"], a["keepdim"]))
defop("amin", "input", "input result")(
    lambda g, a: _evenly(g, a["input"], a["result"], a["dim"], a["keepdim"]))


def _indexed(g: Tensor, shape: tuple, dim: int, indices: Tensor, keep: bool) -> Tensor:
    """values[i] = input[indices[i]] along dim: the gradient scattered back to indices."""
    if not shape:
        return g
    if not keep:
        g, indices = g.unsqueeze(dim), indices.unsqueeze(dim)
    return P.zeros(tuple(shape), dtype=g.dtype).scatter(dim, indices, g)


def _extreme(g: Any, a: dict) -> Any:
    dim = a["dim"]
    if dim is None:
        return _evenly(g, a["input"], a["result"], None, False)
    _values, _indices = a["result"]
    g0 = g[0] if isinstance(g, list) else g
    return _indexed(g0, tuple(a["input"].shape), int(dim) % max(a["input"].dim(), 1),
                    _saved_indices(a), a["keepdim"])


def _saved_indices(a: dict) -> Tensor:
    return a["result"][1]


def _extreme_or_pairwise(sign: int) -> Callable:
    pair = _max_min(sign)

    def f(g: Any, a: dict) -> tuple:
        if isinstance(a["dim"], Tensor):
            return pair(g, {"input": a["input"], "other": a["dim"]})
        return _extreme(g, a), None
    return f


defop("max", "input dim", "input dim result")(_extreme_or_pairwise(1))
defop("min", "input dim", "input dim result")(_extreme_or_pairwise(-1))


def _correction(a: dict) -> float:
    c, unbiased = a.get("correction"), a.get("unbiased")
    if isinstance(a.get("dim"), bool):
        unbiased = a["dim"]
    if c is None:
        return 1.0 if unbiased is None or unbiased else 0.0
    return float(c)


@defop("var", "input", "input")
def _var(g: Tensor, a: dict) -> Tensor:
    x, dim, keep = a["input"], _dim_of(a), a["keepdim"]
    n = _count(tuple(x.shape), dim)
    centered = x - x.mean(dim, keepdim=True) if x.dim() else x - x
    return unreduce(g, tuple(x.shape), dim, keep) * centered * (2.0 / max(n - _correction(a), 0))


@defop("std", "input", "input result")
def _std(g: Tensor, a: dict) -> Tensor:
    x, dim, keep = a["input"], _dim_of(a), a["keepdim"]
    n = _count(tuple(x.shape), dim)
    centered = x - x.mean(dim, keepdim=True) if x.dim() else x - x
    r = unreduce(a["result"], tuple(x.shape), dim, keep)
    gu = unreduce(g, tuple(x.shape), dim, keep)
    return gu * centered / (r * max(n - _correction(a), 0))


@defop("norm", "input", "input result")
def _norm(g: Tensor, a: dict) -> Tensor:
    return norm_backward(g, a["input"], a["p"], a["dim"], a["keepdim"], a["result"])


@defop("vector_norm", "x", "x result")
def _vector_norm(g: Tensor, a: dict) -> Tensor:
    x, dim = a["x"], a["dim"]
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        dim = None
    return norm_backward(g, x, a["ord"], dim, a["keepdim"], a["result"])


def norm_backward(g: Tensor, x: Tensor, p: Any, dim: Any, keep: bool, r: Tensor) -> Tensor:
    """d ||x||_p: x |x|^(p-2) / ||x||^(p-1) (0 where the norm is 0), sign(x) for p = 1, the
    gradient shared among the largest |x| for p = inf."""
    p = 2.0 if p is None or p == "fro" else float(p)
    shape = tuple(x.shape)
    gu, ru = unreduce(g, shape, dim, keep), unreduce(r, shape, dim, keep)
    if p == 0:
        return _zero(x)
    if p == 1:
        return gu * x.sign()
    if p == 2:
        return gu * x / ru.masked_fill(ru == 0, math.inf)
    if math.isinf(p):
        mask = (x.abs() == ru)
        count = mask.sum(dim, keepdim=True) if shape else 1
        return P.where(mask, gu * x.sign() / count, 0.0)
    ax = x.abs()
    return gu * x.sign() * ax.pow(p - 1) / ru.pow(p - 1).masked_fill(ru == 0, math.inf)


defop("logsumexp", "input", "input result")(
    lambda g, a: unreduce(g, tuple(a["input"].shape), a["dim"], a["keepdim"]) *
    (a["input"] - unreduce(a["result"], tuple(a["input"].shape), a["dim"], a["keepdim"])).exp())


def _rev_cumsum(g: Tensor, d: int) -> Tensor:
    return g.flip(d).cumsum(d).flip(d)


@defop("cumsum", "input")
def _cumsum(g: Tensor, a: dict) -> Tensor:
    if a["input"].dim() == 0:
        return g
    return _rev_cumsum(g, int(a["dim"]))


@defop("cumprod", "input", "input result")
def _cumprod(g: Tensor, a: dict) -> Tensor:
    x, r = a["input"], a["result"]
    if x.dim() == 0:
        return g
    d = int(a["dim"]) % x.dim()
    if not bool((x == 0).any()):
        return _rev_cumsum(g * r, d) / x
    # with zeros: grad_i = sum_{k >= i} g_k * prod_{j <= k, j != i} x_j, column by column
    n = x.shape[d]
    cols = []
    for i in range(n):
        xi = x.narrow(d, i, n - i)
        rest = P.cat([P.ones_like(x.narrow(d, 0, 1)), xi.narrow(d, 1, n - i - 1)], d)
        prefix = r.narrow(d, i - 1, 1) if i > 0 else P.ones_like(x.narrow(d, 0, 1))
        prods = prefix * rest.cumprod(d)
        cols.append((g.narrow(d, i, n - i) * prods).sum(d, keepdim=True))
    return P.cat(cols, d)


# ---- views and shapes --------------------------------------------------------------------------

def _shape_of(a: dict) -> tuple:
    return tuple(a["input"].shape)


defop("view", view=True)(lambda g, a: g.reshape(_shape_of(a)))
defop("reshape", view=True, node="ViewBackward0")(lambda g, a: g.reshape(_shape_of(a)))
defop("view_as", view=True, node="ViewBackward0")(lambda g, a: g.reshape(_shape_of(a)))
defop("reshape_as", view=True, node="ViewBackward0")(lambda g, a: g.reshape(_shape_of(a)))
defop("squeeze", view=True)(lambda g, a: g.reshape(_shape_of(a)))
defop("unsqueeze", view=True)(lambda g, a: g.reshape(_shape_of(a)))
defop("flatten", view=True, node="ViewBackward0")(lambda g, a: g.reshape(_shape_of(a)))
defop("expand", view=True)(lambda g, a: g)           # the node sums back to input's shape
defop("expand_as", view=True, node="ExpandBackward0")(lambda g, a: g)
defop("transpose", view=True)(lambda g, a: g.transpose(a["dim0"], a["dim1"]))
defop("t", view=True)(lambda g, a: g.t())


@defop("permute", view=True)
def _permute(g: Tensor, a: dict) -> Tensor:
    dims = a["dims"]
    if len(dims) == 1 and isinstance(dims[0], (tuple, list, P.Size)):
        dims = dims[0]
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[int(d) % n] = i
    return g.permute(*inv)


defop("narrow", view=True)(lambda g, a: embed(g, _shape_of(a), lambda t: t.narrow(
    a["dim"], a["start"], a["length"])))
defop("select", view=True)(lambda g, a: embed(g, _shape_of(a), lambda t: t.select(
    a["dim"], a["index"])))
defop("diagonal", view=True)(lambda g, a: embed(g, _shape_of(a), lambda t: t.diagonal(
    a["offset"], a["dim1"], a["dim2"])))
defop("unfold", view=True)(lambda g, a: selection_backward(g, _shape_of(a), lambda t: t.unfold(
    a["dimension"], a["size"], a["step"])))


@defop("as_strided", view=True)
def _as_strided(g: Tensor, a: dict) -> Tensor:
    off = a["storage_offset"]
    return strided_backward(g, a["_geom"], (tuple(a["size"]), tuple(a["stride"]),
                                           a["_geom"][2] if off is None else off), a["_len"])


defop("clone")(lambda g, a: g)
defop("contiguous", node="CloneBackward0")(lambda g, a: g)
defop("to", node="ToCopyBackward0")(lambda g, a: g)       # the node converts back to the input's dtype
defop("flip")(lambda g, a: g.flip(a["dims"]))


@defop("roll")
def _roll(g: Tensor, a: dict) -> Tensor:
    shifts, dims = a["shifts"], a["dims"]
    neg = [-s for s in shifts] if isinstance(shifts, (tuple, list)) else -shifts
    return g.roll(neg, dims)


defop("repeat")(lambda g, a: selection_backward(g, _shape_of(a), lambda t: t.repeat(
    *a["sizes"])))
defop("tile")(lambda g, a: selection_backward(g, _shape_of(a), lambda t: P.tile(t, a["dims"])))
defop("tril")(lambda g, a: g.tril(a["diagonal"]))
defop("triu")(lambda g, a: g.triu(a["diagonal"]))


@defop("diag")
def _diag(g: Tensor, a: dict) -> Tensor:
    if a["input"].dim() == 1:
        return g.diagonal(a["diagonal"])
    return selection_backward(g, _shape_of(a), lambda t: P.diag(t, a["diagonal"]))


@defop("cat", "tensors")
def _cat(g: Tensor, a: dict) -> list:
    infos = a["tensors"]
    nd = max(len(i.shape) for i in infos)
    d = int(a["dim"]) % max(nd, 1)
    out, start = [], 0
    for i in infos:
        if len(i.shape) == 1 and i.shape[0] == 0 and nd > 1:   # legacy empty tensors: skipped
            out.append(P.zeros(0, dtype=g.dtype))
            continue
        n = i.shape[d]
        out.append(g.narrow(d, start, n))
        start += n
    return out


@defop("stack", "tensors")
def _stack(g: Tensor, a: dict) -> list:
    d = int(a["dim"]) % (g.dim())
    return list(g.unbind(d))


def _joined(join: str, name: str = "input") -> Callable:
    """The backward of an op returning pieces of its input along dim: the pieces' gradients
    joined back by pyth.<join> (looked up per call: the recorded function, for double
    backward); a node of one output is handed its one gradient, not a list."""
    def backward(gs: Any, a: dict) -> Tensor:
        return getattr(P, join)(gs if isinstance(gs, (list, tuple)) else [gs],
                                int(a["dim"]) % a[name].dim())
    return backward


_PIECES = tuple(range(1 << 16))
# split() is a dispatcher over PyTorch's two ops (shape_ops): one size, or a list of sizes
defop("split", "tensor", outputs=_PIECES)(_joined("cat", "tensor"))
defop("split_with_sizes", outputs=_PIECES)(_joined("cat"))
defop("chunk", outputs=_PIECES, node="SplitBackward0")(_joined("cat"))   # PyTorch's name
defop("unbind", outputs=_PIECES)(_joined("stack"))


# ---- indexing ------------------------------------------------------------------------------------

def _is_view_index(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice)) and
               not isinstance(i, bool) for i in items)


@defop("getitem", node="IndexBackward0")
def _getitem(g: Tensor, a: dict) -> Tensor:
    index = a["index"]
    if _is_view_index(index):
        return embed(g, _shape_of(a), lambda t: t[index])
    return selection_backward(g, _shape_of(a), lambda t: t[index])


@defop("setitem", "input value", node="IndexPutBackward0")
def _setitem(g: Tensor, a: dict) -> tuple:
    shape, index = _shape_of(a), a["index"]
    pos = _positions(shape)[index]
    flat = g.reshape(-1)
    gv = flat.take(pos) if isinstance(a["value"], Info_) else None
    gi = g.clone().reshape(-1).index_fill(0, pos.reshape(-1), 0).view(shape)
    return gi, gv


defop("index_select", "input")(lambda g, a: P.zeros(_shape_of(a), dtype=g.dtype).index_add(
    a["dim"], a["index"], g))
defop("gather", "input")(lambda g, a: P.zeros(_shape_of(a), dtype=g.dtype).scatter_add(
    a["dim"], a["index"], g))
defop("take", "input")(lambda g, a: selection_backward(g, _shape_of(a),
                                                       lambda t: t.take(a["index"])))
defop("masked_select", "input")(lambda g, a: selection_backward(
    g, _shape_of(a), lambda t: t.masked_select(a["mask"])))


@defop("masked_fill", "input value")
def _masked_fill(g: Tensor, a: dict) -> tuple:
    mask = a["mask"]
    gv = P.where(mask, g, 0.0).sum() if isinstance(a["value"], Info_) else None
    return g.masked_fill(mask, 0), gv


@defop("index_fill", "input value")
def _index_fill(g: Tensor, a: dict) -> tuple:
    gi = g.index_fill(a["dim"], a["index"], 0)
    gv = (g - gi).sum() if isinstance(a["value"], Info_) else None
    return gi, gv


defop("index_add", "input source")(lambda g, a: (g, g.index_select(a["dim"], a["index"]) *
                                                 a["alpha"]))
defop("index_copy", "input source")(lambda g, a: (g.index_fill(a["dim"], a["index"], 0),
                                                  g.index_select(a["dim"], a["index"])))
defop("scatter_add", "input src")(lambda g, a: (g, g.gather(a["dim"], a["index"])))


@defop("scatter", "input src value")
def _scatter(g: Tensor, a: dict) -> tuple:
    gi = g.scatter(a["dim"], a["index"], 0.0)
    gs = g.gather(a["dim"], a["index"]) if isinstance(a.get("src"), Info_) else None
    return gi, gs, None


@defop("masked_scatter", "input source")
def _masked_scatter(g: Tensor, a: dict) -> tuple:
    mask, src = a["mask"], a["source"]
    picked = g.masked_select(mask)
    n = src.numel()
    gs = P.cat([picked, P.zeros(n - picked.numel(), dtype=g.dtype)]).view(tuple(src.shape))
    return g.masked_fill(mask, 0), gs


@defop("put", "input source")
def _put(g: Tensor, a: dict) -> tuple:
    idx = a["index"]
    gi = g if a["accumulate"] else g.put(idx, P.zeros(tuple(idx.shape), dtype=g.dtype))
    return gi, g.take(idx)


def _values_backward(g: Any, a: dict) -> Tensor:
    _values, indices = a["result"]
    g0 = g[0] if isinstance(g, list) else g
    x = a["input"]
    d = int(a["dim"]) % max(x.dim(), 1)
    keep = a.get("keepdim", True)
    return _indexed(g0, tuple(x.shape), d, indices, keep)


for _n in ("sort", "topk", "kthvalue", "mode"):
    TABLE[_n] = Op(_n, "input", _values_backward, "result", outputs=(0,))


def _median_backward(g: Any, a: dict) -> Tensor:
    if a["dim"] is None:       # median of all elements: shared among the tied elements
        return _evenly(g, a["input"], a["result"], None, False)
    return _values_backward(g, a)


for _n in ("median", "nanmedian"):
    TABLE[_n] = Op(_n, "input", _median_backward, "input result", outputs=(0,))


# ---- in-place-only ops ---------------------------------------------------------------------

defop("copy_", "input src", node="CopyBackwards")(lambda g, a: (_zero(g), g))
defop("fill_", "input value")(lambda g, a: (_zero(g), g.sum() if isinstance(a["value"], Info_)
                                            else None))
defop("zero_", "input")(lambda g, a: _zero(g))


# ---- matrix products -----------------------------------------------------------------------

def _mT(t: Tensor) -> Tensor:
    return t.transpose(-1, -2)


@defop("mm", "input mat2", "input@mat2 mat2@input")
def _mm(g: Tensor, a: dict) -> tuple:
    n = a["needs"]
    return (g.mm(_mT(a["mat2"])) if n[0] else None, _mT(a["input"]).mm(g) if n[1] else None)


@defop("bmm", "input mat2", "input@mat2 mat2@input")
def _bmm(g: Tensor, a: dict) -> tuple:
    n = a["needs"]
    return (g.bmm(_mT(a["mat2"])) if n[0] else None, _mT(a["input"]).bmm(g) if n[1] else None)


defop("mv", "input vec", "input@vec vec@input")(lambda g, a: (
    P.outer(g, a["vec"]) if a["needs"][0] else None,
    a["input"].t().mv(g) if a["needs"][1] else None))
defop("dot", "input tensor", "input@tensor tensor@input")(lambda g, a: (
    g * a["tensor"] if a["needs"][0] else None, g * a["input"] if a["needs"][1] else None))
defop("outer", "input vec2", "input@vec2 vec2@input")(lambda g, a: (
    g.mv(a["vec2"]) if a["needs"][0] else None, g.t().mv(a["input"]) if a["needs"][1] else None))


@defop("matmul", "input other", "input@other other@input")
def _matmul(g: Tensor, a: dict) -> tuple:
    x, y = a["input"], a["other"]
    n = a["needs"]
    if x.dim() == 1 and y.dim() == 1:
        return (g * y if n[0] else None), (g * x if n[1] else None)
    if y.dim() == 1:
        gx = P.matmul(g.unsqueeze(-1), y.unsqueeze(0)) if n[0] else None
        gy = P.matmul(_mT(x), g.unsqueeze(-1)).squeeze(-1) if n[1] else None
        return gx, gy
    if x.dim() == 1:
        gx = P.matmul(g.unsqueeze(-2), _mT(y)).squeeze(-2) if n[0] else None
        gy = P.matmul(x.unsqueeze(-1), g.unsqueeze(-2)) if n[1] else None
        return gx, gy
    return (P.matmul(g, _mT(y)) if n[0] else None, P.matmul(_mT(x), g) if n[1] else None)


def _scaled(g: Tensor, s: Any) -> Tensor:
    return g if s == 1 else g * s


def _add_product(product: Callable) -> Callable:
    def f(g: Tensor, a: dict) -> tuple:
        n, x, y = a["needs"], a["_a"], a["_b"]
        gx, gy = product(_scaled(g, a["alpha"]), a[x], a[y], n[1], n[2])
        return _scaled(g, a["beta"]), gx, gy
    return f


def _addmm_pieces(g, m1, m2, n1, n2):
    return (g.mm(_mT(m2)) if n1 else None, _mT(m1).mm(g) if n2 else None)


def _addmv_pieces(g, m, v, n1, n2):
    return (P.outer(g, v) if n1 else None, m.t().mv(g) if n2 else None)


def _addr_pieces(g, v1, v2, n1, n2):
    # addr promotes mixed operands (the others refuse them): products in the result's dtype
    v1, v2 = v1.to(g.dtype), v2.to(g.dtype)
    return (g.mv(v2) if n1 else None, g.t().mv(v1) if n2 else None)


def _baddbmm_pieces(g, b1, b2, n1, n2):
    return (g.bmm(_mT(b2)) if n1 else None, _mT(b1).bmm(g) if n2 else None)


def _addbmm_pieces(g, b1, b2, n1, n2):
    ge = g.unsqueeze(0).expand(b1.shape[0], *g.shape)
    return (ge.bmm(_mT(b2)) if n1 else None, _mT(b1).bmm(ge) if n2 else None)


for _n, _x, _y, _pieces in (("addmm", "mat1", "mat2", _addmm_pieces),
                            ("addmv", "mat", "vec", _addmv_pieces),
                            ("addr", "vec1", "vec2", _addr_pieces),
                            ("baddbmm", "batch1", "batch2", _baddbmm_pieces),
                            ("addbmm", "batch1", "batch2", _addbmm_pieces)):
    TABLE[_n] = Op(_n, f"input {_x} {_y}",
                   (lambda p, x, y: lambda g, a: _add_product(p)(g, {**a, "_a": x, "_b": y}))(
                       _pieces, _x, _y), f"{_x}@{_y} {_y}@{_x}")


# ---- linear algebra --------------------------------------------------------------------------

def _diag_embed(v: Tensor) -> Tensor:
    n = v.shape[-1]
    return v.unsqueeze(-1) * P.eye(n, dtype=v.dtype)


def _outer_last(g: Tensor) -> Tensor:
    return g.unsqueeze(-1).unsqueeze(-1)


defop("inv", "A", "result")(lambda g, a: -P.matmul(P.matmul(_mT(a["result"]), g),
                                                   _mT(a["result"])))
def _adjugate_t(A: Tensor) -> Tensor:
    """adj(A)^T, the derivative of det at any A (singular too), through the SVD A = U S Vh:
    det(U) det(Vh) U diag(prod of the other singular values) Vh."""
    U, S, Vh = P.linalg.svd(A)
    sign = P.linalg.det(U) * P.linalg.det(Vh)
    others = _exclusive_prod(S, S.dim() - 1) * sign.unsqueeze(-1)
    return P.matmul(U * others.unsqueeze(-2), Vh)


def _singular(d: Tensor) -> bool:
    return d.numel() > 0 and bool((d == 0).any())


@defop("det", "A", "A result")
def _det(g: Tensor, a: dict) -> Tensor:
    """g det(A) A^-T; at a singular A (det exactly 0) the adjugate, from the SVD (PyTorch's
    singular path, which its first-order backward skips and returns 0)."""
    A, d = a["A"], a["result"]
    if _singular(d):
        return _outer_last(g) * _adjugate_t(A)
    return _outer_last(g * d) * _mT(P.linalg.inv(A))


@defop("slogdet", "A", "A result", outputs=(1,))
def _slogdet(gs: list, a: dict) -> Tensor:
    """g A^-T; infinite at a singular A (adj(A)^T / det, as PyTorch's values)."""
    A, (sign, logabs) = a["A"], a["result"]
    if _singular(sign):
        return _outer_last(gs[1]) * _adjugate_t(A) / _outer_last(sign * logabs.exp())
    return _outer_last(gs[1]) * _mT(P.linalg.inv(A))


def pinv_backward(g: Tensor, pA: Tensor, A: Tensor) -> Tensor:
    """The gradient through A+ = pinv(A), from the derivative of the pseudo-inverse (rank kept):
    -A+^T g A+^T + (I - A A+) g^T A+ A+^T + A+^T A+ g^T (I - A+ A)."""
    pAt, gt = _mT(pA), _mT(g)
    mid = P.matmul(gt, P.matmul(pA, pAt))                 # g^T A+ A+^T          (m x n)
    left = P.matmul(P.matmul(pAt, pA), gt)                # A+^T A+ g^T          (m x n)
    return (-P.matmul(P.matmul(pAt, g), pAt) + mid - P.matmul(A, P.matmul(pA, mid)) +
            left - P.matmul(P.matmul(left, pA), A))


defop("pinv", "A", "A result", node="LinalgPinvBackward0")(
    lambda g, a: pinv_backward(g, a["result"], a["A"]))


@defop("lstsq", "A B", "A B", outputs=(0,), node="LinalgLstsqBackward0")
def _lstsq(gs: Any, a: dict) -> tuple:
    """The solution's gradient as PyTorch's: X = pinv(A) B (residuals, rank and singular values
    are not differentiable)."""
    gX = gs[0] if isinstance(gs, list) else gs
    A, B, needs = a["A"], a["B"], a["needs"]
    vector = B.dim() == A.dim() - 1
    if vector:
        gX, B = gX.unsqueeze(-1), B.unsqueeze(-1)
    pA = P.linalg.pinv(A)
    gA = pinv_backward(P.matmul(gX, _mT(B)), pA, A) if needs[0] else None
    gB = P.matmul(_mT(pA), gX) if needs[1] else None
    if gB is not None and vector:
        gB = gB.squeeze(-1)
    return gA, gB


@defop("solve", "A B", "A result")
def _solve(g: Tensor, a: dict) -> tuple:
    A, X = a["A"], a["result"]
    if not a.get("left", True):
        gB = P.linalg.solve(_mT(A), g, left=False)
        return -P.matmul(_mT(X), gB), gB
    gB = P.linalg.solve(_mT(A), g)
    if X.dim() == A.dim() - 1:       # B a (batch of) vector(s)
        gA = -P.matmul(gB.unsqueeze(-1), X.unsqueeze(-2))
    else:
        gA = -P.matmul(gB, _mT(X))
    return gA, gB


@defop("cholesky", "A", "result")
def _cholesky(g: Tensor, a: dict) -> Tensor:
    L = a["result"]
    if a.get("upper"):
        L, g = _mT(L), _mT(g)
    phi = P.matmul(_mT(L), g).tril()
    phi = phi - 0.5 * _diag_embed(phi.diagonal(0, -2, -1))
    Linv = P.linalg.inv(L)
    gA = P.matmul(P.matmul(_mT(Linv), phi), Linv)
    return 0.5 * (gA + _mT(gA))


def _copyltu(M: Tensor) -> Tensor:
    return M.tril() + _mT(M.tril(-1))


def _qr_tall(gQ: Tensor, gR: Tensor, Q: Tensor, R: Tensor) -> Tensor:
    """A = QR with m >= n (R square): (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T."""
    M = P.matmul(R, _mT(gR)) - P.matmul(_mT(gQ), Q)
    return P.matmul(gQ + P.matmul(Q, _copyltu(M)), _mT(P.linalg.inv(R)))


@defop("qr", "A", "result", outputs=(0, 1))
def _qr(gs: list, a: dict) -> Tensor:
    """As PyTorch: defined for mode 'reduced', and for 'complete' when m <= n. With m < n,
    A = [X | Y] and R = [U | V] (X, U square): X = QU is a square QR, Y = QV, so Y's gradient
    is Q gV and X's the square formula with gQ + Y gV^T."""
    (Q, R), (gQ, gR) = a["result"], gs
    mode = a.get("mode", "reduced")
    m, n = a["A"].shape[-2], a["A"].shape[-1]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going "
                           "to differentiate through linalg.qr.")
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    if m >= n:
        return _qr_tall(gQ, gR, Q, R)
    U, V = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    gU, gV = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
    Y = P.matmul(Q, V)
    gX = _qr_tall(gQ + P.matmul(Y, _mT(gV)), gU, Q, U)
    return P.cat([gX, P.matmul(Q, gV)], -1)


def _eigh_backward(gw: Tensor, gV: Any, w: Tensor, V: Tensor) -> Tensor:
    inner = _diag_embed(gw)
    if gV is not None:
        VhgV = P.matmul(_mT(V), gV)
        VhgV = 0.5 * (VhgV - _mT(VhgV))
        E = w.unsqueeze(-2) - w.unsqueeze(-1)
        eye = P.eye(w.shape[-1], dtype=w.dtype)
        E = E + eye
        inner = inner + (VhgV / E) * (1 - eye)
    return P.matmul(P.matmul(V, inner), _mT(V))


@defop("eigh", "A", "result", outputs=(0, 1))
def _eigh(gs: list, a: dict) -> Tensor:
    (w, V), (gw, gV) = a["result"], gs
    return _eigh_backward(gw, gV, w, V)


@defop("eigvalsh", "A", "A")
def _eigvalsh(g: Tensor, a: dict) -> Tensor:
    w, V = P.linalg.eigh(a["A"], a.get("UPLO", "L"))
    return _eigh_backward(g, None, w, V)


def _svd_backward(gU: Any, gS: Tensor, gVh: Any, U: Tensor, S: Tensor, Vh: Tensor) -> Tensor:
    m, n, k = U.shape[-2], Vh.shape[-1], S.shape[-1]
    U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
    if gU is not None:
        gU = gU.narrow(-1, 0, k)
    if gVh is not None:
        gVh = gVh.narrow(-2, 0, k)
    if gU is None and gVh is None:
        return P.matmul(U * gS.unsqueeze(-2), Vh)
    V = _mT(Vh)
    S2 = S * S
    eye = P.eye(k, dtype=S.dtype)
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye
    gA = _diag_embed(gS)
    if gU is not None:
        UhgU = P.matmul(_mT(U), gU)
        gA = gA + ((UhgU - _mT(UhgU)) * S.unsqueeze(-2)) / E
    if gVh is not None:
        VhgV = P.matmul(Vh, _mT(gVh))
        gA = gA + (S.unsqueeze(-1) * (VhgV - _mT(VhgV))) / E
    if m > k and gU is not None:
        gA = P.matmul(U, gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - P.matmul(U, P.matmul(_mT(U), gUSinv))
        gA = P.matmul(gA, Vh)
    elif n > k and gVh is not None:
        gA = P.matmul(gA, Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - P.matmul(P.matmul(SinvgVh, V), Vh)
        gA = P.matmul(U, gA)
    else:
        gA = P.matmul(P.matmul(U, gA), Vh)
    return gA


@defop("svd", "A", "result", outputs=(0, 1, 2))
def _svd(gs: list, a: dict) -> Tensor:
    U, S, Vh = a["result"]
    return _svd_backward(gs[0], gs[1], gs[2], U, S, Vh)


@defop("svdvals", "A", "A")
def _svdvals(g: Tensor, a: dict) -> Tensor:
    U, S, Vh = P.linalg.svd(a["A"], full_matrices=False)
    return _svd_backward(None, g, None, U, S, Vh)


def _first(formula: Callable) -> Callable:
    """The formula of op for its _ex form, whose result is (result, info)."""
    def f(gs: Any, a: dict) -> Any:
        g = gs[0] if isinstance(gs, list) else gs
        return formula(g, {**a, "result": a["result"][0]})
    return f


TABLE["inv_ex"] = Op("inv_ex", "A", _first(TABLE["inv"].backward), "result", outputs=(0,))
TABLE["cholesky_ex"] = Op("cholesky_ex", "A", _first(_cholesky), "result", outputs=(0,))
TABLE["solve_ex"] = Op("solve_ex", "A B", _first(_solve), "A result", outputs=(0,))


@defop("cholesky_solve", "B L", "L result")
def _cholesky_solve(g: Tensor, a: dict) -> tuple:
    L, X, upper = a["L"], a["result"], a.get("upper", False)
    gB = P.cholesky_solve(g, L, upper)
    common = P.matmul(gB, _mT(X))
    common = common + _mT(common)
    gL = -P.matmul(L, common) if upper else -P.matmul(common, L)
    return gB, gL


# ---- nodes that are not formulas: views of modified bases ------------------------------------

class AsStridedBackward0(Node):
    """A view's gradient added into the cells of its base (after the base changed in place)."""

    __slots__ = ("base_geom", "dtype", "length", "view_geom")
    n_outputs = 1

    def apply(self, grads: list) -> list:
        return [strided_backward(grads[0], self.base_geom, self.view_geom, self.length)]


def view_of_base_node(base: Tensor, view: Tensor, base_edge: tuple) -> Node:
    node = AsStridedBackward0((base_edge,))
    node.base_geom, node.view_geom = geometry(base), geometry(view)
    node.length = _storage_len(base)
    node.dtype = base.dtype
    return node


class CopySlices(Node):
    """The base of a view that an in-place op modified: the op's gradient applies to the
    view's cells of the base's gradient, the other cells pass through unchanged."""

    __slots__ = ("base_geom", "fn", "length", "released", "view_geom")
    n_outputs = 1

    def __init__(self, base: Tensor, view_geom: tuple, fn: Node, base_edge: Any) -> None:
        super().__init__(((base_edge if base_edge is not None else (None, 0)),) +
                         tuple(fn._next[1:]))
        self.base_geom, self.view_geom = geometry(base), view_geom
        self.length = _storage_len(base)
        self.fn = fn
        self.released = False

    def apply(self, grads: list) -> list:
        if self.released:
            raise RuntimeError(_FREED)
        g = grads[0]
        cells = P.arange(self.length, dtype=P.int64)
        base_cells = cells.as_strided(*self.base_geom)
        view_cells = cells.as_strided(*self.view_geom).reshape(-1)
        # the base's gradient spread over the storage cells (out-of-place, recorded ops only,
        # so that under create_graph this backward is differentiable in turn)
        spread = P.zeros(self.length, dtype=g.dtype).index_add(0, base_cells.reshape(-1),
                                                               g.reshape(-1))
        region = spread.take(view_cells).view(self.view_geom[0])
        res = self.fn.apply([region])
        spread = spread.index_fill(0, view_cells, 0)
        if res[0] is not None:
            spread = spread.index_add(0, view_cells, res[0].reshape(-1))
        return [spread.take(base_cells)] + list(res[1:])

    def release(self) -> None:
        self.fn.release()
        if self.fn.op.saves_tensors:
            self.released = True


TABLE["as_strided"].prepare = lambda a: {"_geom": geometry(a["input"]),
                                          "_len": _storage_len(a["input"])}


# ---- install -------------------------------------------------------------------------------

from .record import Info as Info_


def _modules() -> list:
    return [m for name, m in sys.modules.items()
            if m is not None and (name == "pyth" or name.startswith("pyth.")) and
            not name.startswith("pyth.autograd")]


class _Places:
    """Where each function sits in the pyth namespace, the modules' globals and their tables
    (dicts): built once, so that replacing the ~130 recorded functions is not a scan of every
    module per function (that scan was a fifth of `import pyth`). Rebuilt when modules were
    imported since."""

    def __init__(self) -> None:
        self.places: dict[int, list] = {}
        self.n_modules = len(sys.modules)
        for m in _modules():
            d = vars(m)
            for k, v in d.items():
                if callable(v):
                    self.places.setdefault(id(v), []).append((d, k))
                elif type(v) is dict:
                    for dk, dv in v.items():
                        if callable(dv):
                            self.places.setdefault(id(dv), []).append((v, dk))

    def replace(self, raw: Any, new: Any) -> None:
        """new in place of raw wherever raw sits."""
        if len(sys.modules) != self.n_modules:
            self.__init__()
        for d, k in self.places.pop(id(raw), ()):
            if d.get(k) is raw:
                d[k] = new
                self.places.setdefault(id(new), []).append((d, k))


def _method_of(fn: Callable) -> Callable:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = getattr(fn, "__name__", "method")
    method.__doc__ = getattr(fn, "__doc__", None)
    return method


def _function_op(name: str, raw: Callable, op: Op, places: _Places,
                 method_names: tuple = ()) -> Callable:
    prim = _SIGNATURES.get(name)
    w = differentiable(op, raw, prim)
    places.replace(raw, w)
    for attr in (name,) + _ALIASES.get(name, ()) + method_names:
        v = vars(Tensor).get(attr)
        if v is raw:
            setattr(Tensor, attr, w)
        elif v is not None and getattr(v, "__qualname__", "").startswith("as_method.") and \
                getattr(v, "__name__", None) == raw.__name__:
            setattr(Tensor, attr, _method_of(w))
    return w


_ALIASES = {"abs": ("absolute",), "neg": ("negative",), "trunc": ("fix",), "mul": ("multiply",),
            "sub": ("subtract",), "div": ("divide", "true_divide"), "atan2": ("arctan2",),
            "clamp": ("clip",), "dot": ("vdot",), "outer": ("ger",), "cat": ("concat",)}

_METHOD_ONLY = ("view", "reshape", "view_as", "reshape_as", "flatten", "expand", "expand_as",
                "transpose", "t", "permute", "narrow", "select", "diagonal", "unfold",
                "as_strided", "clone", "contiguous", "to", "squeeze", "unsqueeze", "repeat")

# view methods whose arguments are only ints (or sequences of them): see _view_method
_PLAIN_VIEWS = frozenset(("view", "reshape", "flatten", "expand", "transpose", "t", "permute",
                          "narrow", "select", "unfold", "squeeze", "unsqueeze"))

_INPLACE_SPECIAL = {"copy_": "copy_", "fill_": "fill_", "zero_": "zero_",
                    "index_add_": "index_add", "index_copy_": "index_copy",
                    "index_fill_": "index_fill", "scatter_": "scatter",
                    "scatter_add_": "scatter_add", "masked_fill_": "masked_fill",
                    "masked_scatter_": "masked_scatter", "put_": "put", "tril_": "tril",
                    "triu_": "triu", "clip_": "clamp", "clamp_": "clamp", "lerp_": "lerp",
                    "addcmul_": "addcmul", "addcdiv_": "addcdiv", "cumsum_": "cumsum",
                    "cumprod_": "cumprod"}

_installed = [False]
_MODULE_OF = {"indexing_ops": "_prims.indexing", "pointwise": "_prims.pointwise",
              "reductions": "_prims.reductions", "shape_ops": "_prims.shape",
              "sorting": "_prims.sorting", "matmul": "_prims.matmul", "_indexing": "_prims.subscript"}
_SIGNATURES: dict[str, Callable] = {}


def install() -> None:
    if _installed[0]:
        return
    _installed[0] = True
    import importlib
    mods = {n: importlib.import_module("pyth." + _MODULE_OF.get(n, n)) for n in
            ("indexing_ops", "pointwise", "reductions", "shape_ops", "sorting", "matmul",
             "linalg", "_indexing")}
    pointwise, _indexing = mods["pointwise"], mods["_indexing"]
    for n, (prim, _) in mods["indexing_ops"]._INPLACE.items():
        _SIGNATURES[n] = prim
    T = vars(Tensor)
    # methods with their own signatures (views, conversions)
    raw_methods = {n: T[n] for n in _METHOD_ONLY if n in T}
    for n, raw in raw_methods.items():
        w = differentiable(TABLE[n], raw)
        if n in _PLAIN_VIEWS:
            w = _view_method(raw, w, n in ("reshape", "flatten"))
        elif n in ("contiguous", "clone"):
            w = _bare_method(raw, w)
        setattr(Tensor, n, w)
    # functions (and the methods that call them)
    sources = {}
    for n in ("pointwise", "reductions", "shape_ops", "matmul", "indexing_ops", "sorting",
              "linalg"):
        sources.update(mods[n].FUNCTIONS)
    sources["split"] = mods["shape_ops"]._split_size   # FUNCTIONS' split dispatches to it
    sources["cholesky_solve"] = mods["linalg"].TOPLEVEL["cholesky_solve"]
    sources["pinv"] = importlib.import_module("pyth._refs.linalg").LINALG["pinv"]
    sources["relu"] = importlib.import_module("pyth._refs.pointwise").FUNCTIONS["relu"]
    sources["norm"] = mods["reductions"].FUNCTIONS["norm"]
    places = _Places()
    for name, op in TABLE.items():
        if name in _METHOD_ONLY or name in ("getitem", "setitem", "diagonal") or \
                name.endswith("_"):
            continue
        raw = sources.get(name)
        if raw is None:
            continue
        if getattr(raw, "__wrapped__", None) is not None:
            continue
        _function_op(name, raw, op, places)
    refs_pointwise = sys.modules["pyth._refs.pointwise"]   # its methods are put on Tensor later
    refs_pointwise.METHODS["relu"] = _method_of(refs_pointwise.FUNCTIONS["relu"])
    shape_ops = mods["shape_ops"]
    for n in ("flip", "tile"):
        w = shape_ops.FUNCTIONS[n]
        setattr(Tensor, n, _varargs_method(w))
    # conversions (t.float() ...) go through the recorded to()
    from .. import dtypes as _dt
    for cname, target in _dt.CONVERSIONS.items():
        setattr(Tensor, cname, (lambda d: lambda self: self.to(d))(target))
    # indexing
    TABLE["getitem"].view = True
    getitem_w = differentiable(TABLE["getitem"], _indexing.getitem)
    Tensor.__getitem__ = _getitem_method(getitem_w, _indexing._ints_and_slices)
    setitem_raw = T["__setitem__"]
    Tensor.__setitem__ = _setitem(in_place(TABLE["setitem"], setitem_raw), _indexing)
    # in-place methods
    for attr in list(T):
        if not attr.endswith("_") or attr.startswith("_"):
            continue
        fn = T[attr]
        if attr in ("requires_grad_", "detach_", "share_memory_"):
            continue
        base = attr[:-1]
        opname = _INPLACE_SPECIAL.get(attr, base)
        op = TABLE.get(opname) if opname in TABLE and attr not in ("resize_", "resize_as_",
                                                                    "set_") else None
        if attr == "div_":
            op = TABLE["div"]
        setattr(Tensor, attr, in_place(op, fn))
    for py, name in (("iadd", "add_"), ("isub", "sub_"), ("imul", "mul_"), ("itruediv", "div_"),
                     ("ipow", "pow_"), ("ifloordiv", "floor_divide_"), ("imod", "remainder_")):
        setattr(Tensor, f"__{py}__", vars(Tensor)[name])
    _install_operators(pointwise)


def _install_operators(pointwise: Any) -> None:
    T = vars(Tensor)
    F = pointwise.FUNCTIONS
    pairs = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "mod": "remainder",
             "pow": "pow"}
    for py, name in pairs.items():
        w = F[name]
        fast, rfast = T[f"__{py}__"], T[f"__r{py}__"]
        op = _binop(fast, w, False)
        setattr(Tensor, f"__{py}__", op)
        setattr(Tensor, f"__r{py}__", _binop(rfast, w, True))
        for cls, entries in _class_entries(getattr(fast, "table", {})).items():
            setattr(cls, f"__{py}__", _class_binop(cls, entries, op, w))
    for py in ("neg", "abs"):
        raw = T[f"__{py}__"]
        w = F[py]
        setattr(Tensor, f"__{py}__", _unary_operator(raw, w))
    pointwise_nodes.DIRECT_UNARY.update(pointwise._DIRECT_UNARY)
    pointwise_nodes.C_GRADS.update({n: {dt: getattr(dt.tensor, n + "_backwardNew")
                                        for dt in (P.float32, P.float64)}
                                    for n in C_GRADS if n in pointwise_nodes.UNARY and
                                    hasattr(P.float32.tensor, n + "_backwardNew")})
    pointwise_nodes.DIRECT_BINARY.update({n: pointwise._DIRECT[n]
                                          for n in pointwise_nodes.BINARY})
    for name, table in pointwise._DIRECT_UNARY.items():
        setattr(Tensor, name, _unary_method(table, T[name], F[name]))
    reduced = sys.modules["pyth._prims.reductions"].FUNCTIONS
    for name in pointwise_nodes.REDUCTIONS:   # t.sum(), t.mean(): the C reduction, inlined
        table = {dt.tensor_class: _full_reduction_new(dt, name) for dt in (P.float32, P.float64)}
        setattr(Tensor, name, _unary_method(table, T[name], reduced[name]))
    mm = sys.modules["pyth._prims.matmul"].FUNCTIONS["matmul"]
    Tensor.__matmul__ = _matmul_operator(mm)
    Tensor.__rmatmul__ = lambda self, other: (mm(other, self) if isinstance(other, Tensor)
                                              else NotImplemented)


def _matmul_operator(mm: Callable) -> Callable:
    """a @ b: two tensors of one class outside autograd take the C product directly (it sizes
    its result and checks the shapes); a failed call, and every other case, go through the
    recorded matmul mm, which raises the precise error."""
    kinds = frozenset(dt for dt in ALL_DTYPES if dt.name != "bool")

    def matmul(self: Tensor, other: Any) -> Any:
        if type(other) is type(self) and self._ag is None and other._ag is None:
            dt = self.dtype
            if dt in kinds:
                r = wrap(dt, dt.tensor.new())
                if dt.tensor.matmul(r._h, self._h, other._h) == 0:
                    return r
                lib.THError_clear()
        return mm(self, other) if isinstance(other, Tensor) else NotImplemented
    matmul.__name__ = "__matmul__"
    return matmul


def _setitem(recorded: Callable, indexing: Any) -> Callable:
    """t[index] = value. Recorded with a basic index (ints, slices, None, ...) it is a write
    through the view t[index], as PyTorch's: t's grad_fn becomes CopySlices; other indices
    record IndexPutBackward0."""
    def setitem(self: Tensor, index: Any, value: Any) -> None:
        if grad_mode.state.enabled and (self._ag is not None or isinstance(value, Tensor) and
                                        value._ag is not None) and _is_view_index(index):
            view = self[index]
            if not isinstance(value, Tensor):
                value = P.full((), value, dtype=self.dtype) if isinstance(
                    value, (bool, int, float)) else indexing._as_values(self, value)
            if geometry(view) == geometry(self):    # t[:] = v, t[...] = v: t.copy_(v)
                view = self
            view.copy_(value)
            return
        recorded(self, index, value)
    return setitem


def _varargs_method(w: Callable) -> Callable:
    """t.flip(0, 1) as well as t.flip((0, 1)), through the recorded function w."""
    def method(self: Tensor, *args: Any) -> Any:
        return w(self, args[0] if len(args) == 1 else args)
    return method


def _unary_operator(fast: Callable, w: Callable) -> Callable:
    """-t, abs(t): the direct C path, or w when t takes part in autograd."""
    def op(self: Tensor) -> Any:
        return fast(self) if self._ag is None else w(self)
    return op


def _unary_method(table: dict, w: Callable, recorded: Callable) -> Callable:
    """t.exp(), t.sum(): the direct C call inlined for a tensor outside autograd (table: tensor
    class -> C <name>New, or a call of that form, for the classes whose result has their own
    dtype), else the method w (whose recorded function is `recorded`)."""
    new, gc = object.__new__, ffi.gc
    frees = {cls: cls.dtype.tensor.free for cls in table}
    state = grad_mode.state
    lean = getattr(recorded, "lean", None)
    anomaly = sys.modules["pyth.autograd.record"]._anomaly
    handled = pointwise_nodes.NOT_HANDLED

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs:
            if self._ag is None or not state.enabled:
                cls = type(self)
                fn = table.get(cls)
                if fn is not None:
                    h = fn(self._h)
                    if not h:
                        raise_error()
                    r = new(cls)
                    r._h = gc(h, frees[cls])
                    r._ag = r._vb = None
                    return r
            elif lean is not None and not anomaly[0]:   # the recorded function's first step
                r = lean[0](lean[1], lean[2], (self,))
                if r is not handled:
                    return r
        return w(self, *args, **kwargs)
    method.__name__, method.__doc__ = getattr(w, "__name__", "op"), getattr(w, "__doc__", None)
    return method


def _full_reduction_new(dt: Any, name: str) -> Callable:
    """h -> a new handle holding C <name> of h over all its elements (a float sum or mean keeps
    its dtype), or NULL with the C error recorded: a `<name>New` for _unary_method's table."""
    c = dt.tensor
    fn, new, free, null = getattr(c, name), c.new, c.free, ffi.NULL

    def reduce_new(h: Any) -> Any:
        r = new()
        if r and fn(r, h, 0, null, False):
            free(r)
            return null
        return r
    return reduce_new


def _class_entries(table: dict) -> dict[type, dict]:
    """pointwise's direct table regrouped by the left operand's class: {cls: {other's type:
    entry}} for the pairs with a tensor of cls itself or a Python float on the right."""
    out: dict[type, dict] = {}
    for (a, b), entry in table.items():
        if b is a or b is float:
            out.setdefault(a, {})[b] = entry
    return out


def _view_method(raw: Callable, w: Callable, may_copy: bool) -> Callable:
    """t.view(...), t.permute(...), ...: on a tensor outside autograd, called with positional
    arguments (ints, which no graph can reach), the C view directly and its base remembered,
    which is all the recorded function w would do there; anything else goes through w.
    may_copy: the op copies when the strides allow no view (reshape, flatten), told apart by
    the storage."""
    mark, state = mark_view, grad_mode.state

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if self._ag is None and not kwargs:
            r = raw(self, *args)
            if r is not self and (not may_copy or r._h.storage == self._h.storage):
                if state.enabled:   # mark_view(r, self), inlined for its common case
                    vb = getattr(self, "_vb", None)
                    r._vb = self if vb is None else vb
                else:
                    mark(r, self)
            return r
        return w(self, *args, **kwargs)
    method.__name__, method.__doc__ = raw.__name__, raw.__doc__
    method.__wrapped__ = raw
    return method


_I64 = 2**63


def _bare_method(raw: Callable, w: Callable) -> Callable:
    """t.contiguous(), t.clone(): called without arguments on a tensor outside autograd, raw
    directly (the recorded function w would only call it)."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if self._ag is None and not args and not kwargs:
            return raw(self)
        return w(self, *args, **kwargs)
    method.__name__, method.__doc__ = raw.__name__, raw.__doc__
    method.__wrapped__ = raw
    return method


def _getitem_method(getitem_w: Callable, basic: Callable) -> Callable:
    """t[index]: ints and slices on a tensor outside autograd are a view made directly (the
    recorded function's work for them is only remembering the view's base); everything else
    goes through the recorded function."""
    tuple_, int_, slice_, mark = tuple, int, slice, mark_view

    def __getitem__(self: Tensor, index: Any) -> Any:
        if self._ag is None:
            tp = type(index)
            if tp is int_:   # t[i]: the C select (which checks i against the size)
                h = self._h
                if h.nDimension and -_I64 <= index < _I64:   # (else: cffi's OverflowError)
                    dt = self.dtype
                    s = dt.tensor.newSelect(h, 0, index)
                    if s:
                        r = wrap(dt, s)
                        mark(r, self)
                        return r
                    lib.THError_clear()   # out of range: the general path's IndexError
            elif tp is slice_ or tp is tuple_:
                r = basic(self, index if tp is tuple_ else (index,))
                if r is not None:
                    mark(r, self)
                    return r
        return getitem_w(self, index)
    return __getitem__


def _class_binop(cls: type, entries: dict, op: Callable, w: Callable) -> Callable:
    """t + u for t of one tensor class (FloatTensor, ...): a u of the same class or a Python
    float, neither in autograd, is the table's C call with no lookup at all (the 10-element
    add's cost is mostly Python's); the same pairs in autograd go straight to the recorded
    function w's lean record where it has one; every other case is the general operator op."""
    new, gc = object.__new__, ffi.gc
    fn, rcls, free = entries[cls][:3] if cls in entries else (None, None, None)
    sfn, srcls, sfree = entries[float][:3] if float in entries else (None, None, None)
    lean = getattr(w, "lean", None)
    if lean is not None and (lean[0] is not pointwise_nodes.binary or
                             cls.dtype not in (P.float32, P.float64)):
        lean = None
    state = grad_mode.state
    anomaly = sys.modules["pyth.autograd.record"]._anomaly
    same, number = pointwise_nodes.binary_same, pointwise_nodes.binary_number
    handled = pointwise_nodes.NOT_HANDLED

    # self is a cls or a subclass (a Parameter), whose handle is cls's C type: the result is a
    # plain rcls either way, as the general path makes it; `_vb` (a view's base) stays unset
    def method(self: Tensor, other: Any) -> Any:
        if type(other) is cls:
            if fn is not None:
                if self._ag is None and other._ag is None:
                    h = fn(self._h, other._h)
                    if h:
                        r = new(rcls)
                        r._h = gc(h, free)
                        r._ag = None
                        return r
                elif lean is not None and state.enabled and not anomaly[0]:
                    r = same(lean[1], lean[2], self, other)
                    if r is not handled:
                        return r
        elif type(other) is float and sfn is not None:
            if self._ag is None:
                h = sfn(self._h, other)
                if h:
                    r = new(srcls)
                    r._h = gc(h, sfree)
                    r._ag = None
                    return r
            elif lean is not None and state.enabled and not anomaly[0]:
                r = number(lean[1], lean[2], self, other)
                if r is not handled:
                    return r
        return op(self, other)   # and a failed call: the general path raises its error
    method.__name__, method.__doc__ = op.__name__, op.__doc__
    return method


def _binop(fast: Callable, w: Callable, reflected: bool) -> Callable:
    if reflected:
        def op(self: Tensor, other: Any) -> Any:
            if self._ag is None and not (isinstance(other, Tensor) and other._ag is not None):
                return fast(self, other)
            return w(other, self)
    elif hasattr(fast, "table"):   # t + u: the direct C call inlined (one frame in all)
        table, slow, run = fast.table, fast.slow, sys.modules["pyth._prims.pointwise"]._run_direct
        new, gc = object.__new__, ffi.gc

        state = grad_mode.state
        lean = getattr(w, "lean", None)
        anomaly = sys.modules["pyth.autograd.record"]._anomaly
        handled = pointwise_nodes.NOT_HANDLED

        def op(self: Tensor, other: Any) -> Any:
            # outside autograd, or with grad mode off (as in a backward formula), nothing is
            # recorded: the table's direct C call
            entry = table.get((type(self), type(other)))
            if entry is not None:
                if not entry[3]:
                    if self._ag is None or not state.enabled:
                        return run(entry, self, other)     # a Python number
                elif self._ag is None and other._ag is None or not state.enabled:
                    h = entry[0](self._h, other._h)
                    if not h:
                        raise_error()
                    r = new(entry[1])
                    r._h = gc(h, entry[2])
                    r._ag = r._vb = None
                    return r
            elif self._ag is None and not (isinstance(other, Tensor) and other._ag is not None):
                return slow(self, other)
            if lean is not None and state.enabled and not anomaly[0]:   # w's own first step
                r = lean[0](lean[1], lean[2], (self, other))
                if r is not handled:
                    return r
            return w(self, other)
    else:
        def op(self: Tensor, other: Any) -> Any:
            if self._ag is None and not (isinstance(other, Tensor) and other._ag is not None):
                return fast(self, other)
            return w(self, other)
    return op

