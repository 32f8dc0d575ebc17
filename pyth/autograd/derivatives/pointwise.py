"""Formulas of the pointwise ops: unary (with their stamped C derivatives, C_GRADS) and binary."""


from __future__ import annotations

import math
from typing import Any, Callable

from .. import pointwise_nodes
from ... import dtypes as _dt
from ..._errors import check
from ..._prims.creation import full
from ...tensor import Tensor, wrap
from ..record import Op
from ._common import TABLE, _zero, defop, recorded


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


_UNARY["lgamma"] = ("input", lambda g, x, r: g * recorded.digamma(x))
_UNARY["digamma"] = ("input", lambda g, x, r: g * x.polygamma(1))
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
    def formula(g: Tensor, a: dict) -> Tensor:
        if f is None:
            raise RuntimeError(f"the derivative of {name} is not available in this build")
        return f(g, a.get("input"), a.get("result"))
    return formula


def _unary_first(name: str) -> Callable | None:
    """The first-order gradient of unary op name by its stamped C derivative (None: it has
    none)."""
    if name not in C_GRADS or not hasattr(_dt.float32.tensor, name + "_backwardNew"):
        return None

    def first(g: Tensor, a: dict) -> list:
        r = a.get("result")
        return [c_grad(name, g, r if r is not None else a["input"])]
    return first


_NODE_NAMES = {"log1p": "Log1PBackward0"}   # PyTorch's spelling where it is not the rule's

for _n, (_save, _f) in _UNARY.items():
    TABLE[_n] = Op(_n, "input", _unary_formula(_n, _f), _save, node=_NODE_NAMES.get(_n),
                   first=_unary_first(_n))


# ---- pointwise: binary ------------------------------------------------------------------------

def _alpha(g: Tensor, alpha: Any) -> Tensor:
    return g if alpha == 1 else g * alpha


defop("add", "input other", "", first=lambda g, a: [g, g] if a.get("alpha", 1) == 1 else None)(
    lambda g, a: (g, _alpha(g, a.get("alpha", 1))))
defop("sub", "input other", "")(lambda g, a: (g, -_alpha(g, a.get("alpha", 1))))
defop("mul", "input other", "input@other other@input")(
    lambda g, a: (g * a["other"] if a["needs"][0] else None,
                  g * a["input"] if a["needs"][1] else None))


def _mul_first(g: Tensor, a: dict) -> list | None:
    """mul's plain backward: g * other and g * input, one C call each (None where the C table
    has no entry for these classes: the formula runs)."""
    cls = type(g)
    table = pointwise_nodes.DIRECT_BINARY["mul"]
    out = [None, None]
    for i, factor in enumerate((a.get("other"), a.get("input"))):
        if not a["needs"][i]:
            continue
        if isinstance(factor, Tensor):
            e = table.get((cls, cls)) if type(factor) is cls and \
                factor.dtype.tensor.isSameSizeAs(factor._h, g._h) else None
            if e is None:
                return None
            out[i] = pointwise_nodes.wrap_new(e[0](g._h, factor._h), e[1], e[2])
        else:     # input * a Python number: the node saved nothing
            e = table.get((cls, type(factor)))
            if e is None or e[1] is not cls:
                return None
            try:
                h = e[0](g._h, factor)
            except OverflowError:
                return None
            out[i] = pointwise_nodes.wrap_new(h, cls, e[2])
    return out


TABLE["mul"].first = _mul_first


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
            gi = recorded.where(e == 0, 0.0, g * e * x.pow(e - 1))
        elif e == 0:
            gi = _zero(g)
        else:
            gi = g * e * x.pow(e - 1)
    if a["needs"][1]:
        if isinstance(x, Tensor):
            ge = recorded.where((x == 0) & (e >= 0), 0.0, g * r * x.log())
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
    gx = g * recorded.log(y) if a["needs"][0] else None  # log(y) at x = 0 too, as PyTorch 2
    gy = g * x / y if a["needs"][1] else None
    return gx, gy


@defop("logaddexp", "input other", "input other")
def _logaddexp(g: Tensor, a: dict) -> tuple:
    x, y = a["input"], a["other"]
    return ((g * recorded.sigmoid(x - y)) if a["needs"][0] else None,
            (g * recorded.sigmoid(y - x)) if a["needs"][1] else None)


@defop("logaddexp2", "input other", "input other")
def _logaddexp2(g: Tensor, a: dict) -> tuple:
    x, y = a["input"], a["other"]
    return ((g * recorded.sigmoid((x - y) * _LN2)) if a["needs"][0] else None,
            (g * recorded.sigmoid((y - x) * _LN2)) if a["needs"][1] else None)


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
        return full((), v, dtype=like.dtype)
    return like


def c_grad2(name: str, which: str, g: Tensor, x: Any, y: Any) -> Tensor:
    """One operand's gradient of binary op name, in one C call (THMathOps.h's column)."""
    dt = g.dtype
    r = wrap(dt, dt.tensor.new())
    xt, yt = _operand(x, g), _operand(y, g)
    check(getattr(dt.tensor, f"{name}_backward_{which}")(r._h, g._h, xt._h, yt._h))
    return r


def _binary_first(name: str, second: str) -> Callable | None:
    """The first-order gradients of binary op name by its stamped C kernels (THMathOps.h's
    column), for float gradients (None: the formula runs)."""
    if not hasattr(_dt.float32.tensor, name + "_backward_input"):
        return None

    def first(g: Tensor, a: dict) -> tuple | None:
        if a.get("rounding_mode") is not None or not g.dtype.is_floating_point:
            return None
        x, y, needs = a["input"], a[second], a["needs"]
        return (c_grad2(name, "input", g, x, y) if needs[0] else None,
                c_grad2(name, "other", g, x, y) if needs[1] else None)
    return first


def _max_min(sign: int) -> Callable:
    def f(g: Tensor, a: dict) -> tuple:
        x, y = a["input"], a["other"]
        half = recorded.where(x == y, g / 2, g)
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
    TABLE[_n].first = _binary_first(_n, _second)


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
    gi = recorded.where(keep, g, 0.0)
    glo = ghi = None
    if isinstance(lo, Tensor):
        below = x < lo
        if hi is not None:
            below = below & (lo <= hi)
        glo = recorded.where(below, g, 0.0)
    if isinstance(hi, Tensor):
        above = x > hi
        if lo is not None:
            above = above | (lo > hi)
        ghi = recorded.where(above, g, 0.0)
    return gi, glo, ghi


defop("clamp_min", "input min", "input min")(
    lambda g, a: (recorded.where(a["input"] >= a["min"], g, 0.0),
                  recorded.where(a["input"] < a["min"], g, 0.0)
                  if isinstance(a["min"], Tensor) else None))
defop("clamp_max", "input max", "input max")(
    lambda g, a: (recorded.where(a["input"] <= a["max"], g, 0.0),
                  recorded.where(a["input"] > a["max"], g, 0.0)
                  if isinstance(a["max"], Tensor) else None))
defop("where", "input other", "condition")(
    lambda g, a: (recorded.where(a["condition"], g, 0.0), recorded.where(a["condition"], 0.0, g)))


@defop("lerp", "input end weight", "input end weight")
def _lerp(g: Tensor, a: dict) -> tuple:
    x, e, w = a["input"], a["end"], a["weight"]
    return g * (1 - w), g * w, (g * (e - x) if isinstance(w, Tensor) else None)


defop("addcmul", "input tensor1 tensor2", "tensor1 tensor2")(
    lambda g, a: (g, g * a["tensor2"] * a["value"], g * a["tensor1"] * a["value"]))
defop("addcdiv", "input tensor1 tensor2", "tensor1 tensor2")(
    lambda g, a: (g, g * a["value"] / a["tensor2"],
                  -g * a["value"] * a["tensor1"] / (a["tensor2"] * a["tensor2"])))


