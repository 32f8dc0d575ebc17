"""Pointwise math: unary, binary (broadcasting, promoting), comparisons, ternary ops.

Each op is a row in a table saying which C kernel computes it and how its dtype is decided;
one generic function per table builds the function form (pyth.add), the method (t.add), the
in-place method (t.add_) and out=. The kernels are `lib.TH<Real>Tensor_<name>` (generic/
THTensorMath.c); a Python scalar operand goes to the `<name>Scalar` form without becoming a
tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import overrides as _overrides
from .. import dtypes as _dt
from .._ops import (as_method, as_tensor, assign_inplace, inplace, into, is_scalar, new_result,
                    result_of, scalar_value)
from .._errors import check, not_implemented, raise_error
from .._promotion import category, result_type
from .._th import ffi, lib
from ..tensor import Tensor, _empty, wrap

# ---- dtype rules -----------------------------------------------------------------------------

def _same(dt: _dt.dtype) -> _dt.dtype:
    return dt


def _floating(dt: _dt.dtype) -> _dt.dtype:
    """Integer and bool inputs compute in the default float dtype (true division, exp, ...)."""
    return dt if dt.is_floating_point else _dt.get_default_dtype()


_KIND_NAMES = {"b": "Bool", "u": "integer", "i": "integer", "f": "floating"}


# A dtype outside an op's kinds has no kernel: NotImplementedError (a RuntimeError), as in
# PyTorch; except for these ops, which PyTorch refuses for bool outright (RuntimeError).
_REFUSED = {"neg", "sub"}


def _require(op: str, dt: _dt.dtype, kinds: str) -> None:
    if dt.kind not in kinds:
        names = " or ".join(sorted({_KIND_NAMES[k] for k in kinds}))
        e = not_implemented(op, dt, f"expects {names} tensors")
        raise RuntimeError(str(e)) if op in _REFUSED else e


# ---- unary -----------------------------------------------------------------------------------

# name -> (dtype rule, kinds the kernel exists for, what other kinds do: None = error)
# name -> (dtype rule, kinds the kernel exists for, kinds for which the op is the identity)
_UNARY: dict[str, tuple] = {}
for _n in ("exp expm1 log log1p log2 log10 sqrt rsqrt reciprocal sin cos tan asin acos atan "
           "sinh cosh tanh sigmoid erf erfinv lgamma erfc digamma i0").split():
    _UNARY[_n] = (_floating, "f", "")
for _n in ("floor", "ceil", "round", "trunc"):
    _UNARY[_n] = (_same, "f", "ui")          # integers are already whole
_UNARY["frac"] = (_same, "f", "")
_UNARY["abs"] = (_same, "uif", "")
_UNARY["neg"] = (_same, "uif", "")
_UNARY["sign"] = (_same, "uif", "b")         # sign of a bool is itself
_UNARY["bitwise_not"] = (_same, "uib", "")

# ops whose out= must have exactly the result dtype (PyTorch refuses a cast for these)
_STRICT_OUT = {"abs", "neg", "sign", "floor", "ceil", "round", "trunc", "frac", "bitwise_not",
               "where", "clamp"}

# bool-valued: name -> (kinds with a kernel, constant for the others)
_PREDICATES = {"isnan": ("f", False), "isinf": ("f", False), "isfinite": ("f", True),
               "logical_not": ("buif", None)}


def check_writable(op: str, t: Tensor) -> None:
    """RuntimeError for a tensor whose elements share memory (expanded): it cannot be written.
    The core's check (THShape_checkWritable), so a tensor with no elements passes, as in PyTorch."""
    h = t._h
    if lib.THShape_checkWritable(f"{op}()".encode(), h.nDimension, h.size, h.stride):
        raise_error()


def _unary(name: str, a: Tensor, out: Tensor | None = None, *, _inplace: bool = False) -> Tensor:
    if out is None and not _inplace:
        fn = _DIRECT_UNARY[name].get(type(a))
        if fn is not None:
            return wrap(a.dtype, fn(a._h))
    rule, kinds, identity = _UNARY[name]
    if not isinstance(a, Tensor):
        if type(a) in _overrides.TYPES and out is None and not _inplace:   # a Proxy (pyth.fx)
            return _overrides.handle_torch_function(FUNCTIONS[name], (a,), a)
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(a).__name__}")
    dt = rule(a.dtype)
    strict = name in _STRICT_OUT
    if dt.kind not in kinds:
        if dt.kind not in identity:
            _require(name, dt, kinds)
        if _inplace:
            check_writable(name + "_", a)
            return a
        return result_of(name, a.clone(), out, strict=strict)
    src = as_tensor(a, dt)
    fn = getattr(dt.tensor, name)
    run = lambda r: fn(r._h, src._h)  # noqa: E731
    if _inplace:
        return inplace(name, a, dt, a.size(), run)
    return into(name, dt, out, run, strict=strict)


def _predicate(name: str, a: Tensor, out: Tensor | None = None) -> Tensor:
    kinds, constant = _PREDICATES[name]
    if not isinstance(a, Tensor):
        if type(a) in _overrides.TYPES and out is None:   # a Proxy (pyth.fx)
            return _overrides.handle_torch_function(FUNCTIONS[name], (a,), a)
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(a).__name__}")
    if a.dtype.kind not in kinds:
        from .creation import full
        return result_of(name, full(a.size(), constant, dtype=_dt.bool_), out)
    fn = getattr(a.dtype.tensor, name)
    return into(name, _dt.bool_, out, lambda r: fn(r._h, a._h))


# ---- binary ----------------------------------------------------------------------------------

# name -> (dtype rule, kinds the kernel exists for, result is bool)
_BINARY: dict[str, tuple] = {
    "add": (_same, "buif", False), "sub": (_same, "uif", False), "mul": (_same, "buif", False),
    "div": (_floating, "f", False), "atan2": (_floating, "f", False),
    "hypot": (_same, "f", False), "pow": (_same, "uif", False),
    "fmod": (_same, "uif", False), "remainder": (_same, "uif", False),
    "floor_divide": (_same, "uif", False), "trunc_divide": (_same, "uif", False),
    "maximum": (_same, "buif", False),
    "minimum": (_same, "buif", False), "bitwise_and": (_same, "uib", False),
    "bitwise_or": (_same, "uib", False), "bitwise_xor": (_same, "uib", False),
    "bitwise_left_shift": (_same, "ui", False), "bitwise_right_shift": (_same, "ui", False),
    "copysign": (_floating, "f", False), "nextafter": (_same, "f", False),
    "xlogy": (_floating, "f", False), "logaddexp": (_same, "f", False),
    "logaddexp2": (_same, "f", False), "gcd": (_same, "ui", False), "lcm": (_same, "ui", False),
}
for _n in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"):
    _BINARY[_n] = (_same, "buif", True)

_C_NAMES = {"bitwise_left_shift": "lshift", "bitwise_right_shift": "rshift"}

# The ops whose Python-number operand PyTorch keeps in the compute type of a float16/bfloat16
# tensor (float): `bfloat16(0.75) * 257` is 0.75 * 257 rounded once, 193. The others (add,
# sub, comparisons, fmod, ...) round the number to the tensor's type first, as PyTorch does:
# `bfloat16(0.75) + 257` adds 256.
_KEEPS_SCALAR = {"mul", "div", "floor_divide", "trunc_divide"}


class _Kernel:
    """A binary op resolved for one compute dtype: its C functions and result dtype."""

    __slots__ = ("dt", "result_dt", "fn", "scalar_fn", "scalar_c", "error")

    def __init__(self, name: str, dt: _dt.dtype) -> None:
        rule, kinds, to_bool = _BINARY[name]
        self.dt = rule(dt)
        self.result_dt = _dt.bool_ if to_bool else self.dt
        self.error = None
        try:
            _require(name, self.dt, kinds)
            if name == "sub" and self.dt is _dt.bool_:
                raise RuntimeError("sub(): subtracting two bool tensors is not supported; use "
                                   "logical_xor() or bitwise_xor() instead")
        except RuntimeError as e:
            self.error = e
            return
        cname = _C_NAMES.get(name, name)
        self.fn = getattr(self.dt.tensor, cname)
        self.scalar_fn = getattr(self.dt.tensor, cname + "Scalar")
        self.scalar_c = _scalar_operand(self.dt, name)
        if name == "pow" and self.dt in _POW_REWRITTEN:
            self.scalar_fn = _pow_scalar(self.dt)


# PyTorch computes a float32/float64 tensor to a Python-number power of 2, 0.5, -0.5, 3, -1 or
# -2 as x*x, sqrt, rsqrt, x*x*x, 1/x and 1/(x*x), not as C's pow: the results differ in the
# sign of a zero, at -inf (sqrt(-inf) is nan, pow(-inf, 0.5) inf), where x*x overflows, and
# by an ulp where pow is not correctly rounded. A tensor exponent, even a 0-dim one, and the
# other dtypes take pow itself.
_POW_REWRITTEN = (_dt.float32, _dt.float64)
_POW_EXPONENTS = (2, 0.5, -0.5, 3, -1, -2)   # the exponents _pow_rewrite handles


def _pow_rewrite(c: Any, r: Any, a: Any, y: float) -> int | None:
    """r = a ** y by PyTorch's rewrite for y (the C status), or None when y has none."""
    if y == 2:   # (2 and -1 give pow's values: x*x and 1/x are one vector loop, pow a call each)
        return c.mul(r, a, a)
    if y == -1:
        return c.reciprocal(r, a)
    if y == 0.5:
        return c.sqrt(r, a)
    if y == -0.5:
        return c.rsqrt(r, a)
    if y == 3:
        t = c.mulNew(a, a)
        if not t:
            return -1
        try:
            return c.mul(r, t, a)
        finally:
            c.free(t)
    if y == -2:
        return c.mul(r, a, a) or c.reciprocal(r, r)
    return None


def _operand(x: Any, dt: _dt.dtype) -> Tensor:
    """An operand as a tensor of dt; a Python number (5 - t) converted as an arithmetic
    operand is (integers wrap), not as a stored value."""
    if is_scalar(x):
        r = _empty((), dt)
        check(dt.tensor.fill(r._h, dt.wrap_c(scalar_value(x))))
        return r
    return as_tensor(x, dt)


def _scalar_operand(dt: _dt.dtype, name: str) -> Any:
    """The conversion of a Python-number operand of op name on dt for its <name>Scalar kernel
    (which takes the compute type): op_c, or for float16/bfloat16 ops that round the number
    first (not in _KEEPS_SCALAR), the number rounded to dt."""
    if not dt.is_reduced or name in _KEEPS_SCALAR:
        return dt.op_c
    return lambda v: dt.from_c(dt.wrap_c(v))


def _pow_scalar(dt: _dt.dtype) -> Any:
    """dt's powScalar(r, a, y) with PyTorch's rewrites of a number exponent."""
    c, plain = dt.tensor, dt.tensor.powScalar

    def pow_scalar(r: Any, a: Any, y: float) -> int:
        err = _pow_rewrite(c, r, a, y)
        return plain(r, a, y) if err is None else err
    return pow_scalar


def _pow_scalar_new(dt: _dt.dtype) -> Any:
    """dt's powScalarNew(a, y) with PyTorch's rewrites of a number exponent (NULL on error)."""
    c, plain = dt.tensor, dt.tensor.powScalarNew

    def pow_scalar_new(a: Any, y: float) -> Any:
        if y not in _POW_EXPONENTS:
            return plain(a, y)
        r = c.new()
        if not r:
            return r
        if _pow_rewrite(c, r, a, y):
            c.free(r)
            return ffi.NULL
        return r
    return pow_scalar_new


_KERNELS: dict[tuple, _Kernel] = {}


def _kernel(name: str, dt: _dt.dtype) -> _Kernel:
    key = (name, dt, _dt.get_default_dtype())  # the default float decides true division
    k = _KERNELS.get(key)
    if k is None:
        k = _KERNELS[key] = _Kernel(name, dt)
    if k.error is not None:
        raise (RuntimeError if name in _REFUSED else NotImplementedError)(str(k.error))
    return k


def _binary(name: str, a: Any, b: Any, out: Tensor | None = None, *,
            _inplace: bool = False) -> Tensor:
    """The one path of every binary op: resolve the dtype, then run the C kernel into a new
    tensor, out= or self. Same-dtype tensors and tensor-scalar pairs take a short path."""
    if out is None and not _inplace:
        direct = _DIRECT.get(name)
        entry = direct.get((type(a), type(b))) if direct is not None else None
        if entry is not None:
            return _run_direct(entry, a, b)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        if (type(a) in _overrides.TYPES or type(b) in _overrides.TYPES) and out is None and \
                not _inplace:   # a Proxy (pyth.fx)
            return _overrides.handle_torch_function(FUNCTIONS[name], (a, b), a, b)
        raise TypeError(f"{name}(): expected at least one Tensor argument")
    if type(a) is type(b) or not isinstance(b, Tensor) and is_scalar(b) and \
            isinstance(a, Tensor) and _scalar_keeps(a.dtype, b):
        k = _kernel(name, a.dtype)
    else:
        try:
            k = _kernel(name, result_type(a, b))
        except TypeError:   # an operand of no dtype: a Proxy (pyth.fx) may take the call
            if (type(a) in _overrides.TYPES or type(b) in _overrides.TYPES) and out is None \
                    and not _inplace:
                return _overrides.handle_torch_function(FUNCTIONS[name], (a, b), a, b)
            raise
    if name == "sub" and (_is_bool(a) or _is_bool(b)):
        raise RuntimeError("sub(): subtraction, the `-` operator, with a bool tensor is not "
                           "supported; to invert a mask use the `~` or logical_not() operator")
    dt = k.dt
    ta = a if type(a) is dt.tensor_class else _operand(a, dt)
    if is_scalar(b):
        fn, value = k.scalar_fn, k.scalar_c(scalar_value(b))
        run = lambda r: fn(r._h, ta._h, value)  # noqa: E731
    else:
        tb, fn = (b if type(b) is dt.tensor_class else as_tensor(b, dt)), k.fn
        run = lambda r: fn(r._h, ta._h, tb._h)  # noqa: E731
    if _inplace:
        return inplace(name, a, k.result_dt, _broadcast_shape(a, b), run)
    if out is None:
        rdt = k.result_dt
        r = wrap(rdt, rdt.tensor.new())
        if run(r):
            raise_error()
        return r
    return into(name, k.result_dt, out, run)


# ---- the short path of small ops ---------------------------------------------------------------

# For one op: (type of a, type of b) -> (C <name>New or <name>ScalarNew, result class, its C
# free, b is a tensor). It holds the pairs that need nothing from Python but the call: two
# tensors of one class whose compute dtype is their own, and float32/float64 tensors with a
# Python float or int. Everything else (promotion, conversion, out=, errors) takes the general
# path.
_DIRECT: dict[str, dict[tuple, tuple]] = {}


def _direct_table(name: str) -> dict[tuple, tuple]:
    table: dict[tuple, tuple] = {}
    cname = _C_NAMES.get(name, name)
    for dt in _dt.ALL_DTYPES:
        k = _Kernel(name, dt)
        if k.error is not None or k.dt is not dt:
            continue
        out = (k.result_dt.tensor_class, k.result_dt.tensor.free)
        table[dt.tensor_class, dt.tensor_class] = (getattr(dt.tensor, cname + "New"), *out, True)
        if dt in (_dt.float32, _dt.float64):
            for scalar in (float, int):
                new = (_pow_scalar_new(dt) if name == "pow" else
                       getattr(dt.tensor, cname + "ScalarNew"))
                table[dt.tensor_class, scalar] = (new, *out, False)
    return table


def _run_direct(entry: tuple, a: Any, b: Any) -> Tensor:
    """One _DIRECT entry's C call, its result wrapped (or its recorded error raised)."""
    fn, cls, free, tensor = entry
    if tensor:
        h = fn(a._h, b._h)
    else:
        if type(b) is int and not _INT_MIN <= b <= _INT_MAX:
            _dt.scalar_number(b, a.dtype.name)   # raises: no scalar argument is that large
        h = fn(a._h, b)
    if not h:
        raise_error()
    r = object.__new__(cls)
    r._h = ffi.gc(h, free)
    r._ag = None
    r._vb = None
    return r


_INT_MIN, _INT_MAX = _dt.SCALAR_INT_MIN, _dt.SCALAR_INT_MAX
_F32_MAX = 3.4028234663852886e38


def _direct_op(name: str, slow: Any) -> Any:
    """f(a, b) = slow(a, b), taking the table's one C call for the pairs _DIRECT lists."""
    table = _DIRECT[name]

    def op(a: Any, b: Any) -> Tensor:
        entry = table.get((type(a), type(b)))
        return slow(a, b) if entry is None else _run_direct(entry, a, b)
    op.table, op.slow, op.run = table, slow, _run_direct   # for autograd's operators, which
    # inline the lookup
    return op


# unary ops whose result dtype is the input's: name -> {tensor class: C <name>New}
_DIRECT_UNARY: dict[str, dict[type, Any]] = {
    name: {dt.tensor_class: getattr(dt.tensor, name + "New") for dt in _dt.ALL_DTYPES
           if rule(dt) is dt and dt.kind in kinds}
    for name, (rule, kinds, _) in _UNARY.items()}


def _is_bool(x: Any) -> bool:
    return x.dtype is _dt.bool_ if isinstance(x, Tensor) else isinstance(x, (bool, np.bool_))


def _broadcast_shape(a: Any, b: Any) -> tuple | None:
    """The shape a and b broadcast to (None when they do not: the kernel reports that)."""
    if isinstance(b, Tensor) and isinstance(a, Tensor) and a.dtype is b.dtype and \
            a.dtype.tensor.isSameSizeAs(a._h, b._h):   # the common case, without numpy
        return tuple(a.size())
    try:
        return np.broadcast_shapes(*(tuple(x.size()) for x in (a, b) if isinstance(x, Tensor)))
    except ValueError:
        return None


def _scalar_keeps(dt: _dt.dtype, x: Any) -> bool:
    """Whether tensor dtype dt absorbs scalar x without promotion (the common case)."""
    kind = _SCALAR_KIND.get(type(x))
    return kind is not None and (kind <= category(dt)) and dt.kind != "b"


_SCALAR_KIND = {bool: 0, int: 1, float: 2}


# ---- public functions --------------------------------------------------------------------------

def _scaled(op: str, input: Any, other: Any, alpha: Any) -> Any:
    """alpha * other in the op's result dtype, with PyTorch's checks on alpha."""
    if alpha == 1 and not isinstance(alpha, bool):
        return other
    if type(other) is type(input) and -_F32_MAX <= alpha <= _F32_MAX:
        # t.add_(u, alpha=-lr): float tensors, one C call (an alpha float32 cannot hold, inf
        # or nan takes the checks below)
        entry = _DIRECT["mul"].get((type(other), type(alpha)))
        if entry is not None:
            return _run_direct(entry, other, alpha)
    dt = result_type(input, other)
    if isinstance(alpha, (bool, np.bool_)) and dt is not _dt.bool_:
        raise RuntimeError(f"{op}(): boolean alpha only supported for boolean results")
    if not dt.is_floating_point and isinstance(alpha, (float, np.floating)):
        raise RuntimeError(f"{op}(): for integral input tensors, argument alpha must not be a "
                           f"floating point number")
    alpha = _dt.checked(scalar_value(alpha), dt)   # alpha must fit the result type, as PyTorch
    if is_scalar(other):
        # each number is checked on its own, and their product wraps as the kernel's would
        product = _dt.scalar_number(scalar_value(other), dt.name) * alpha
        if dt.is_floating_point:
            return float(product)
        return bool(product) if dt is _dt.bool_ else _dt.wrap_int(product, dt)
    return _binary("mul", as_tensor(other, dt), alpha).to(dt)


def add(input: Any, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """input + alpha * other, broadcast and promoted."""
    return _binary("add", input, _scaled("add", input, other, alpha), out)


def sub(input: Any, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """input - alpha * other, broadcast and promoted."""
    return _binary("sub", input, _scaled("sub", input, other, alpha), out)


def mul(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """input * other, broadcast and promoted; a Python number on either side takes the scalar
    kernel (so float16/bfloat16 see it unrounded, as in PyTorch)."""
    if is_scalar(input) and isinstance(other, Tensor):
        input, other = other, input
    return _binary("mul", input, other, out)


def div(input: Any, other: Any, *, rounding_mode: str | None = None,
        out: Tensor | None = None) -> Tensor:
    """True division (integers give floats); rounding_mode 'floor' or 'trunc' rounds."""
    return _binary(_rounding(rounding_mode), input, other, out)


def _rounding(mode: str | None) -> str:
    try:
        return _ROUNDING[mode]
    except (KeyError, TypeError):
        raise RuntimeError(f"div(): expected rounding_mode to be one of None, 'trunc', or "
                           f"'floor' but found {mode!r}") from None


def pow(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor:
    """input ** exponent. Integer tensors refuse negative scalar exponents (as PyTorch); a bool
    tensor to a bool scalar power computes as integers and gives bool."""
    if isinstance(input, Tensor) and is_scalar(exponent) and not isinstance(exponent, bool):
        if not input.dtype.is_floating_point and isinstance(exponent, (int, np.integer)) and \
                exponent < 0:
            raise RuntimeError("pow(): integers to negative integer powers are not allowed")
        _dt.checked(scalar_value(exponent), result_type(input, exponent))  # fits, as PyTorch
    if is_scalar(exponent) and result_type(input, exponent) is _dt.bool_:
        r = _binary("pow", as_tensor(input, _dt.uint8), as_tensor(exponent, _dt.uint8)).bool()
        return result_of("pow", r, out)
    return _binary("pow", input, exponent, out)


true_divide = divide = div
multiply, subtract = mul, sub


def _make_binary(name: str):
    def fn(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
        return _binary(name, input, other, out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}(input, other), broadcast and promoted as PyTorch."
    return fn


def _make_unary(name: str):
    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        return _unary(name, input, out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}(input)."
    return fn


def _make_predicate(name: str):
    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        return _predicate(name, input, out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}(input), a BoolTensor."
    return fn


_ROUNDING = {None: "div", "floor": "floor_divide", "trunc": "trunc_divide"}

FUNCTIONS: dict[str, Any] = {"add": add, "sub": sub, "mul": mul, "div": div, "pow": pow}
for _n in _BINARY:
    FUNCTIONS.setdefault(_n, _make_binary(_n))
for _n in _UNARY:
    FUNCTIONS[_n] = _make_unary(_n)
for _n in _PREDICATES:
    FUNCTIONS[_n] = _make_predicate(_n)
FUNCTIONS.update(true_divide=div, divide=div, multiply=mul, subtract=sub,
                 greater=FUNCTIONS["gt"], greater_equal=FUNCTIONS["ge"], less=FUNCTIONS["lt"],
                 less_equal=FUNCTIONS["le"], not_equal=FUNCTIONS["ne"], negative=FUNCTIONS["neg"],
                 absolute=FUNCTIONS["abs"], fix=FUNCTIONS["trunc"], arctan2=FUNCTIONS["atan2"])


# ---- ternary and friends ---------------------------------------------------------------------

def where(condition: Tensor, input: Any = None, other: Any = None, *,
          out: Tensor | None = None) -> Tensor:
    """condition ? input : other elementwise, all broadcast together."""
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor) or condition.dtype not in (_dt.bool_, _dt.uint8):
        got = condition.dtype.real if isinstance(condition, Tensor) else type(condition).__name__
        raise RuntimeError(f"where(): expected condition to be a bool tensor, got {got}")
    cond = condition.bool()  # uint8 conditions are accepted, as PyTorch still does
    dt = result_type(input, other)
    ta, tb = as_tensor(input, dt), as_tensor(other, dt)
    return into("where", dt, out, lambda r: dt.tensor.where(r._h, cond._h, ta._h, tb._h),
                strict=True)


def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Tensor | None = None,
          _inplace: bool = False) -> Tensor:
    """Values limited to [min, max] (either may be None; tensors broadcast); NaN stays NaN."""
    if min is None and max is None:
        raise RuntimeError("clamp(): at least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        dt = result_type(input, min, max)
        if min is not None and max is not None:
            _require("clamp", dt, "uif")  # PyTorch allows a single bool bound, not both
        r = as_tensor(input, dt)
        if min is not None:
            r = maximum(r, as_tensor(min, dt))
        if max is not None:
            r = minimum(r, as_tensor(max, dt))
        if _inplace:
            return assign_inplace("clamp", input, r)
        return result_of("clamp", r, out, strict=True)
    dt = result_type(input, min, max)
    _require("clamp", dt, "uif")
    src = as_tensor(input, dt)
    # the bounds must fit dt (an unsigned dt takes a negative int bound wrapped), as PyTorch
    lo, hi = (dt.wrap_c(_dt.checked(scalar_value(v), dt)) if v is not None else dt.to_c(0)
              for v in (min, max))
    run = lambda r: dt.tensor.clamp(r._h, src._h, min is not None, lo, max is not None, hi)  # noqa: E731
    if _inplace:
        return inplace("clamp", input, dt, None, run)
    return into("clamp", dt, out, run, strict=True)


def clamp_min(input: Tensor, min: Any) -> Tensor:
    return clamp(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    return clamp(input, max=max)


def lerp(input: Tensor, end: Any, weight: Any, *, out: Tensor | None = None,
         _inplace: bool = False) -> Tensor:
    """input + weight * (end - input), floating types."""
    for name, x in (("end", end), ("weight", weight)):
        # a 0-dim weight converts like a scalar, as in PyTorch
        if isinstance(x, Tensor) and x.dtype is not input.dtype and \
                (name == "end" or x.dim() > 0):
            raise RuntimeError(f"lerp(): expected dtype {input.dtype.name} for `{name}` but got "
                               f"dtype {x.dtype.name}")
    zero_dim = isinstance(weight, Tensor) and weight.dim() == 0   # promotes, as in PyTorch
    dt = result_type(input, end, weight) if zero_dim else result_type(input, end)
    _require("lerp", dt, "f")
    a, b = as_tensor(input, dt), as_tensor(end, dt)
    if is_scalar(weight):   # the number in the compute type: unrounded for float16/bfloat16
        v = dt.op_c(scalar_value(weight))
        run = lambda r: dt.tensor.lerpScalar(r._h, a._h, b._h, v)  # noqa: E731
    else:
        w = as_tensor(weight, dt)
        run = lambda r: dt.tensor.lerp(r._h, a._h, b._h, w._h)  # noqa: E731
    if _inplace:
        return inplace("lerp", input, dt, None, run)
    return into("lerp", dt, out, run)


def _addc(name: str, input: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any,
          out: Tensor | None, _inplace: bool) -> Tensor:
    dt = result_type(input, tensor1, tensor2)
    if name == "addcdiv" and not (_floating_operand(tensor1) or _floating_operand(tensor2)):
        raise RuntimeError("addcdiv(): integer division with addcdiv is not supported; "
                           "use floating-point tensors")
    _require(name, dt, "uif")
    a, x, y = as_tensor(input, dt), as_tensor(tensor1, dt), as_tensor(tensor2, dt)
    # value must fit the compute type (float for float16/bfloat16), as PyTorch; kept unrounded
    v = dt.op_c(_dt.checked(scalar_value(value), _dt.float32 if dt.is_reduced else dt))
    fn = getattr(dt.tensor, name)
    run = lambda r: fn(r._h, a._h, x._h, y._h, v)  # noqa: E731
    if _inplace:
        return inplace(name, input, dt, None, run)
    return into(name, dt, out, run)


def _floating_operand(x: Any) -> bool:
    return x.dtype.is_floating_point if isinstance(x, Tensor) else isinstance(x, float)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1,
            out: Tensor | None = None) -> Tensor:
    """input + value * tensor1 * tensor2, in one pass."""
    return _addc("addcmul", input, tensor1, tensor2, value, out, False)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1,
            out: Tensor | None = None) -> Tensor:
    """input + value * tensor1 / tensor2, in one pass."""
    return _addc("addcdiv", input, tensor1, tensor2, value, out, False)


# dtype -> THNN's ReLU forward kernel (float and double): one C call, no clamp dispatch
_RELU = {dt: getattr(lib, f"THNN_{name}ReLU_updateOutput")
         for dt, name in ((_dt.float32, "Float"), (_dt.float64, "Double"))}


def relu(input: Tensor) -> Tensor:
    """max(input, 0) elementwise (-0 and NaN pass, as PyTorch's)."""
    kernel = _RELU.get(getattr(input, "dtype", None))
    if kernel is not None:
        r = new_result(input.dtype)
        check(kernel(r._h, input._h, 0.0, 0.0))
        return r
    if not isinstance(input, Tensor):
        raise TypeError(f"relu(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.dtype is _dt.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return clamp(input, min=0)


maximum, minimum = FUNCTIONS["maximum"], FUNCTIONS["minimum"]
FUNCTIONS.update(where=where, clamp=clamp, clip=clamp, clamp_min=clamp_min,
                 clamp_max=clamp_max, lerp=lerp, addcmul=addcmul, addcdiv=addcdiv, relu=relu)


# ---- methods, in-place methods and operators ---------------------------------------------------

# For one in-place op: (type of self, type of other) -> (C <name> or <name>Scalar, other is a
# tensor): self and other of one class whose op keeps that dtype, or a float32/float64 tensor and
# a Python float or int. The C op writes its first argument, checking shape and overlap itself.
_INPLACE_DIRECT: dict[str, dict[tuple, tuple]] = {}


def _inplace_table(name: str) -> dict[tuple, tuple]:
    table: dict[tuple, tuple] = {}
    for (ta, tb), (_, cls, _, tensor) in _DIRECT[name].items():
        if cls is ta:
            k = _Kernel(name, cls.dtype)
            table[ta, tb] = (k.fn if tensor else k.scalar_fn, tensor)
    return table


def _inplace_binary(name: str):
    def method(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
        if not (type(alpha) is int and alpha == 1) and name in ("add", "sub"):
            other = _scaled(name, self, other, alpha)
        entry = _INPLACE_DIRECT[name].get((type(self), type(other)))
        if entry is not None:
            if entry[1]:
                err = entry[0](self._h, self._h, other._h)
            else:
                if type(other) is int and not _INT_MIN <= other <= _INT_MAX:
                    _dt.scalar_number(other, self.dtype.name)   # raises
                err = entry[0](self._h, self._h, other)
            if err:
                raise_error()
            return self
        if name == "pow" and is_scalar(other):
            return assign_inplace("pow_", self, pow(self, other))
        return _binary(name, self, other, _inplace=True)
    method.__name__ = name + "_"
    return method


def _inplace_unary(name: str):
    def method(self: Tensor) -> Tensor:
        return _unary(name, self, _inplace=True)
    method.__name__ = name + "_"
    return method


# methods pyth/_refs/pointwise.py composes itself (round(decimals=), nextafter for the 16-bit
# floats), so this table leaves them out
_COMPOSED_METHODS = ("round", "nextafter")
_COMPOSED_INPLACE = ("round_", "nextafter_")


def _methods() -> dict[str, Any]:
    """The in-place forms and Python operators (the plain methods are DEFAULT_METHODS)."""
    m: dict[str, Any] = {}
    for name in _BINARY:
        if name + "_" not in _COMPOSED_INPLACE:
            m[name + "_"] = _inplace_binary(name)
    for name in _UNARY:
        if name + "_" not in _COMPOSED_INPLACE:
            m[name + "_"] = _inplace_unary(name)
    m["div_"] = lambda self, other, *, rounding_mode=None: _binary(
        _rounding(rounding_mode), self, other, _inplace=True)
    m["where"] = lambda self, condition, other: where(condition, self, other)
    m["logical_not_"] = lambda self: _set_from(self, _predicate("logical_not", self),
                                               "logical_not_")
    m["clamp_"] = m["clip_"] = lambda self, min=None, max=None: clamp(self, min, max,
                                                                      _inplace=True)
    m["lerp_"] = lambda self, end, weight: lerp(self, end, weight, _inplace=True)
    m["relu_"] = lambda self: assign_inplace("relu_", self, relu(self))
    m["addcmul_"] = lambda self, t1, t2, *, value=1: _addc(
        "addcmul", self, t1, t2, value, None, True)
    m["addcdiv_"] = lambda self, t1, t2, *, value=1: _addc(
        "addcdiv", self, t1, t2, value, None, True)
    operators = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div",
                 "floordiv": "floor_divide", "mod": "remainder", "pow": "pow",
                 "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
                 "lshift": "bitwise_left_shift", "rshift": "bitwise_right_shift"}
    for py, name in operators.items():
        fn = FUNCTIONS[name]
        m[f"__{py}__"] = _direct_op(name, fn)
        m[f"__r{py}__"] = lambda self, other, _f=fn: _f(other, self)
        m[f"__i{py}__"] = _inplace_binary(name)
    for py in ("add", "mul"):  # commutative: a Python number on the left is the same call
        m[f"__r{py}__"] = _direct_op(py, m[f"__r{py}__"])
    for py in ("eq", "ne", "lt", "le", "gt", "ge"):
        m[f"__{py}__"] = _direct_op(py, lambda self, other, _n=py: _binary(
            _n, self, other) if isinstance(other, Tensor) or is_scalar(other) else
            _overrides.operand(_n, self, other))
    m["__hash__"] = object.__hash__
    m["__neg__"] = lambda self: _unary("neg", self) if self.dtype is not _dt.bool_ else \
        _raise(RuntimeError("negation, the `-` operator, on a bool tensor is not supported; "
                            "use logical_not() or ~ instead"))
    m["__pos__"] = lambda self: self if self.dtype is not _dt.bool_ else _raise(RuntimeError(
        "the `+` operator, on a bool tensor is not supported"))
    m["__abs__"] = lambda self: _unary("abs", self)
    m["__invert__"] = lambda self: _unary("bitwise_not", self)
    return m


def _set_from(self: Tensor, r: Tensor, op: str) -> Tensor:
    check_writable(op, self)
    return self.copy_(r)


def _raise(e: Exception):
    raise e


for _name in _BINARY:
    _DIRECT[_name] = _direct_table(_name)
    _INPLACE_DIRECT[_name] = _inplace_table(_name)
del _name

# Tensor methods (pyth/_bind.py binds them): the functions as methods where Tensor has no method
# of that name yet, then the in-place forms and the operators.
METHODS: dict[str, Any] = _methods()
DEFAULT_METHODS: dict[str, Any] = {name: as_method(fn) for name, fn in FUNCTIONS.items()
                                   if name not in _COMPOSED_METHODS and name not in METHODS}
