"""Matrix products: matmul (and the @ operator), mm, bmm, mv, dot, outer and the add* family.

Every product runs in one C driver (generic/THTensorBlas.c) that hands float and double to
OpenBLAS, integers to a blocked C kernel that wraps around like PyTorch's, and float16 /
bfloat16 to sgemm through float32. Transposed operands reach BLAS without a copy. As in
PyTorch, the operands must share one dtype (no promotion; bool is not supported) and out=
must have exactly that dtype.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import dtypes as _dt
from .._errors import check
from .._ops import into, is_scalar, new_result, scalar_value
from .._promotion import can_cast, promote_types
from ..tensor import Tensor
from . import recorded

# How PyTorch names the element types in its dtype-mismatch messages.
_C_NAMES = {_dt.uint8: "unsigned char", _dt.int8: "signed char", _dt.int16: "short int",
            _dt.int32: "int", _dt.int64: "long int", _dt.float32: "float",
            _dt.float64: "double", _dt.float16: "c10::Half", _dt.bfloat16: "c10::BFloat16",
            _dt.bool_: "bool"}


def _common_dtype(op: str, *tensors: Any) -> _dt.dtype:
    """The operands' shared dtype: TypeError for non-tensors, RuntimeError for a mix or bool."""
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): expected Tensor arguments, got {type(t).__name__}")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not dt:
            raise RuntimeError(f"{op}(): expected m1 and m2 to have the same dtype, but got: "
                               f"{_C_NAMES[dt]} != {_C_NAMES[t.dtype]}")
    if dt is _dt.bool_:
        raise NotImplementedError(f"{op}(): not implemented for 'Bool'")
    return dt


def _result(op: str, dt: _dt.dtype, out: Tensor | None, run: Callable[[Tensor], int],
            inputs: tuple) -> Tensor:
    """run(r) on a tensor r for the C kernel to size and fill: a new one, or out (which must
    have the result dtype exactly, as PyTorch requires for these ops), through a temporary when
    out shares memory with an input (see _ops.conflicts)."""
    if out is None:
        r = new_result(dt)
        check(run(r))
        return r
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): out must be a Tensor, not {type(out).__name__}")
    if out.dtype is not dt:
        raise RuntimeError(f"{op}(): Expected out tensor to have dtype {dt.real.lower()}, but got "
                           f"{out.dtype.real.lower()} instead")
    return into(op, dt, out, run, strict=True, inputs=inputs)


def _shape(t: Tensor) -> str:
    return "x".join(str(s) for s in t.shape)


def _expect_dims(op: str, t: Tensor, ndim: int, what: str) -> None:
    if t.dim() != ndim:
        kind = "matrix" if ndim == 2 else f"{ndim}D tensor"
        raise RuntimeError(f"{op}(): {what} must be a {kind}, got a {t.dim()}-D tensor")


def _mismatch(op: str, a: Tensor, b: Tensor) -> RuntimeError:
    return RuntimeError(f"{op}(): mat1 and mat2 shapes cannot be multiplied "
                        f"({_shape(a)} and {_shape(b)})")


def _scalar(dt: _dt.dtype, v: Any, name: str, op: str):
    if isinstance(v, Tensor):
        v = v.item()
    if not is_scalar(v):
        raise TypeError(f"{op}(): argument '{name}' must be a number, not {type(v).__name__}")
    v = scalar_value(v)
    if op == "addr" and isinstance(v, float) and not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                           "floating point number.")
    return dt.to_c(v)


# ---- products ---------------------------------------------------------------------------------

def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix product with numpy / PyTorch rules: 1-D x 1-D is a dot product, a 1-D operand is
    a row (left) or column (right) dropped from the result, leading dims broadcast as batch."""
    dt = _common_dtype("matmul", input, other)
    return _result("matmul", dt, out, lambda r: dt.tensor.matmul(r._h, input._h, other._h),
                   (input, other))


def mm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The product of two matrices (n x k) @ (k x m), no broadcasting."""
    dt = _common_dtype("mm", input, mat2)
    _expect_dims("mm", input, 2, "self")
    _expect_dims("mm", mat2, 2, "mat2")
    if input.shape[1] != mat2.shape[0]:
        raise _mismatch("mm", input, mat2)
    return _result("mm", dt, out, lambda r: dt.tensor.matmul(r._h, input._h, mat2._h),
                   (input, mat2))


def bmm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix by matrix products of two batches (b x n x k) @ (b x k x m), no broadcasting."""
    dt = _common_dtype("bmm", input, mat2)
    _expect_dims("bmm", input, 3, "batch1")
    _expect_dims("bmm", mat2, 3, "batch2")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"bmm(): Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: "
                           f"[{mat2.shape[0]}, {mat2.shape[1]}].")
    return _result("bmm", dt, out, lambda r: dt.tensor.matmul(r._h, input._h, mat2._h),
                   (input, mat2))


def mv(input: Tensor, vec: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Matrix (n x k) times vector (k)."""
    dt = _common_dtype("mv", input, vec)
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"mv(): vector + matrix @ vector expected, got 1, {input.dim()}, "
                           f"{vec.dim()}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"mv(): size mismatch, got input ({input.shape[0]}), mat "
                           f"({_shape(input)}), vec ({vec.shape[0]})")
    return _result("mv", dt, out, lambda r: dt.tensor.matmul(r._h, input._h, vec._h),
                   (input, vec))


def dot(input: Tensor, tensor: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Sum of the elementwise product of two 1-D tensors of one length (a 0-dim tensor)."""
    dt = _common_dtype("dot", input, tensor)
    return _result("dot", dt, out, lambda r: dt.tensor.dot(r._h, input._h, tensor._h),
                   (input, tensor))


def outer(input: Tensor, vec2: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Outer product of two 1-D tensors (promoting, as PyTorch's outer does)."""
    from .pointwise import mul
    for name, v in (("self", input), ("vec2", vec2)):
        if not isinstance(v, Tensor):
            raise TypeError(f"outer(): argument '{name}' must be Tensor, not {type(v).__name__}")
        if v.dim() != 1:
            raise RuntimeError(f"outer(): Expected 1-D argument {name}, but got {v.dim()}-D")
    return mul(input.unsqueeze(1), vec2, out=out)


# ---- beta * input + alpha * product -----------------------------------------------------------

def _add_product(op: str, input: Tensor, a: Tensor, b: Tensor, beta: Any, alpha: Any,
                 out: Tensor | None, inplace: bool = False) -> Tensor:
    """The add* ops: C's THTensor_(op)(r, beta, input, alpha, a, b)."""
    if op == "addr":
        a, b = _addr_vectors(input, a, b, inplace)
        if all(isinstance(t, Tensor) and t.dtype is _dt.bool_ for t in (input, a, b)):
            return _addr_bool(input, a, b, beta, alpha, out, inplace)
        if isinstance(input, Tensor) and isinstance(a, Tensor) and input.dtype is not a.dtype:
            input = input.to(a.dtype)
    dt = _common_dtype(op, input, a, b)
    fn = getattr(dt.tensor, op)
    beta, alpha = _scalar(dt, beta, "beta", op), _scalar(dt, alpha, "alpha", op)

    def run(r: Tensor) -> int:
        return fn(r._h, beta, input._h, alpha, a._h, b._h)
    if inplace:
        check(run(input))
        return input
    return _result(op, dt, out, run, (input, a, b))


def _addr_vectors(input: Any, vec1: Any, vec2: Any, inplace: bool) -> tuple:
    """addr's vectors in the dtype of the result: PyTorch builds addr from outer and add, so
    unlike the other add* ops it promotes mixed operands (addr_ keeps self's dtype)."""
    ts = (input, vec1, vec2)
    if not all(isinstance(t, Tensor) for t in ts) or len({t.dtype for t in ts}) == 1:
        return vec1, vec2
    dt = promote_types(promote_types(input.dtype, vec1.dtype), vec2.dtype)
    if inplace:
        if not can_cast(dt, input.dtype):
            raise RuntimeError(f"addr_(): result type {dt.real} can't be cast to the desired "
                               f"output type {input.dtype.real}")
        dt = input.dtype
    return vec1.to(dt), vec2.to(dt)


def _addr_bool(input: Tensor, vec1: Tensor, vec2: Tensor, beta: Any, alpha: Any,
               out: Tensor | None, inplace: bool) -> Tensor:
    """addr on bool, which PyTorch computes as logic: (beta and input) or (alpha and the outer
    product), input broadcast to the product's shape; the one product op it runs on bool."""
    beta = _scalar(_dt.bool_, beta, "beta", "addr")
    alpha = _scalar(_dt.bool_, alpha, "alpha", "addr")
    prod = outer(vec1, vec2)
    base = input.expand(prod.shape)
    if not alpha:
        prod = prod.logical_and(False)
    if not beta:
        base = base.logical_and(False)
    if inplace:
        if tuple(input.shape) != tuple(prod.shape):
            raise RuntimeError(f"addr(): output with shape {list(input.shape)} doesn't match "
                               f"the broadcast shape {list(prod.shape)}")
        return input.copy_(base | prod)
    return base.bitwise_or(prod, out=out) if out is not None else base | prod


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1,
          out: Tensor | None = None) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2), input broadcast to the product's shape."""
    return _add_product("addmm", input, mat1, mat2, beta, alpha, out)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1,
          out: Tensor | None = None) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    return _add_product("addmv", input, mat, vec, beta, alpha, out)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1,
         out: Tensor | None = None) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    return _add_product("addr", input, vec1, vec2, beta, alpha, out)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1,
            out: Tensor | None = None) -> Tensor:
    """beta * input + alpha * bmm(batch1, batch2)."""
    return _add_product("baddbmm", input, batch1, batch2, beta, alpha, out)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1,
           out: Tensor | None = None) -> Tensor:
    """beta * input + alpha * (the sum over the batch of batch1[i] @ batch2[i])."""
    return _add_product("addbmm", input, batch1, batch2, beta, alpha, out)


FUNCTIONS: dict[str, Any] = {
    "matmul": matmul, "mm": mm, "bmm": bmm, "mv": mv, "dot": dot, "vdot": dot, "outer": outer,
    "ger": outer, "addmm": addmm, "addmv": addmv, "addr": addr, "baddbmm": baddbmm,
    "addbmm": addbmm,
}

_ADD_OPS = ("addmm", "addmv", "addr", "baddbmm", "addbmm")


# ---- methods and operators --------------------------------------------------------------------

def _inplace_add(op: str):
    def method(self: Tensor, a: Tensor, b: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        return _add_product(op, self, a, b, beta, alpha, None, inplace=True)
    method.__name__ = op + "_"
    method.__doc__ = f"In-place {op}: self = beta * self + alpha * product."
    return method


def _imatmul(self: Tensor, other: Any) -> Tensor:
    """self @= other: the product must keep self's shape (as numpy's @= requires)."""
    if not isinstance(other, Tensor):
        return NotImplemented
    r = recorded.matmul(self, other)
    if r.shape != self.shape:
        raise RuntimeError(f"matmul(): in-place @= needs a result of self's shape "
                           f"{list(self.shape)}, got {list(r.shape)}")
    return self.copy_(r)


METHODS: dict[str, Any] = {
    **FUNCTIONS, **{op + "_": _inplace_add(op) for op in _ADD_OPS},
    "__matmul__": lambda self, other: (
        matmul(self, other) if isinstance(other, Tensor) else NotImplemented),
    "__rmatmul__": lambda self, other: (
        matmul(other, self) if isinstance(other, Tensor) else NotImplemented),
    "__imatmul__": _imatmul,
}
