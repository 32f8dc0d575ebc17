"""What every op shares: turning operands into tensors of the compute dtype, and producing the
result in a fresh tensor, in out=, or in self (in-place), with PyTorch's casting rules."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import dtypes as _dt
from ._errors import check
from ._promotion import can_cast
from ._th import ffi, lib
from .autograd.grad_mode import state as _grad_state
from .autograd.graph import bump_out, out_error, out_requires_grad
from .tensor import Tensor, _empty, wrap


_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def is_scalar(x: Any) -> bool:
    """Python or numpy numbers (not tensors)."""
    return isinstance(x, _SCALARS)


def scalar_value(x: Any) -> Any:
    """A Python number from a Python or numpy scalar."""
    return x.item() if isinstance(x, np.generic) else x


def as_tensor(x: Any, dt: _dt.dtype) -> Tensor:
    """x as a tensor of dtype dt: the tensor itself when it already is, else a converted copy;
    scalars become 0-dim tensors."""
    if isinstance(x, Tensor):
        return x if x.dtype is dt else x.to(dt)
    if is_scalar(x):
        return _empty((), dt).fill_(scalar_value(x))
    from ._prims.creation import tensor
    return tensor(x, dtype=dt)


# ---- overlap: the one check every out= and setitem path shares ------------------------------
#
# A kernel that reads its inputs while writing its output gives order-dependent garbage when the
# two share memory (cumsum(a[:-1], out=a[1:]) would read what it just wrote). Pointwise kernels
# check this themselves in C; every other path asks `conflicts` before writing out directly and,
# when it says so, computes into a fresh temporary and copies that into out. Memory is compared
# by byte ranges (lib.THShape_overlap), so two storages borrowing one ndarray are caught too.

_NONE, _SAME, _PARTIAL = lib.TH_OVERLAP_NONE, lib.TH_OVERLAP_SAME, lib.TH_OVERLAP_PARTIAL
_ONE = ffi.new("int64_t[1]", [1])
_ZERO = ffi.new("int64_t[1]", [0])


def _first_byte(t: Tensor):
    """A char * to t's first element (NULL for a storage without memory)."""
    h = t._h
    data = h.storage.data
    if data == ffi.NULL:
        return ffi.NULL
    return ffi.cast("char *", data) + h.storageOffset * t.dtype.itemsize


def _extent(t: Tensor) -> int:
    """Bytes from t's first element to one past its furthest (0 when it has no elements)."""
    h = t._h
    far = 0
    for k in range(h.nDimension):
        if h.size[k] == 0:
            return 0
        far += (h.size[k] - 1) * h.stride[k]
    return (far + 1) * t.dtype.itemsize


def _ranges_meet(a, alen: int, b, blen: int) -> bool:
    """Whether byte ranges [a, a + alen) and [b, b + blen) intersect (through THShape_overlap,
    each range seen as one element of its length)."""
    if not alen or not blen:
        return False
    return lib.THShape_overlap(1, _ONE, a, alen, _ZERO, b, blen, _ZERO) != _NONE


def overlap(a: Tensor, b: Tensor) -> int:
    """How a's and b's memory meet as they are: TH_OVERLAP_NONE, TH_OVERLAP_SAME (the same walk:
    one shape, first byte, element size and strides) or TH_OVERLAP_PARTIAL (anything else that
    shares a byte)."""
    ha, hb = a._h, b._h
    n = ha.nDimension
    if n == hb.nDimension and ffi.unpack(ha.size, n) == ffi.unpack(hb.size, n):
        return lib.THShape_overlap(n, ha.size, _first_byte(a), a.dtype.itemsize, ha.stride,
                                   _first_byte(b), b.dtype.itemsize, hb.stride)
    return _PARTIAL if _ranges_meet(_first_byte(a), _extent(a), _first_byte(b),
                                    _extent(b)) else _NONE


def conflicts(out: Tensor, inputs: Any, same_ok: bool = False) -> bool:
    """Whether a kernel writing out may clobber an input it still has to read, so that the
    result must go through a temporary. out may be resized by the kernel, so its reach is taken
    as everything from its first element to the end of its storage's memory; an input walked
    exactly as out is (same_ok, for kernels that read each element just before writing it)
    does not count."""
    start = _first_byte(out)
    if start == ffi.NULL:
        return False
    h = out._h
    reach = (h.storage.size - h.storageOffset) * out.dtype.itemsize
    for t in inputs:
        if t is None or not _ranges_meet(start, reach, _first_byte(t), _extent(t)):
            continue
        if not (same_ok and overlap(out, t) == _SAME):
            return True
    return False


def new_result(dt: _dt.dtype) -> Tensor:
    """An empty tensor for a C kernel to size."""
    return wrap(dt, dt.tensor.new())


def into(op: str, result_dtype: _dt.dtype, out: Tensor | None,
         run: Callable[[Tensor], int], strict: bool = False, inputs: Any = ()) -> Tensor:
    """Runs run(r) on a suitable result tensor r and returns the op's result.

    out=None: r is new. Otherwise out receives the result: directly when its dtype is the
    result dtype and it shares no memory with the inputs the kernel reads (`conflicts`), else
    through a temporary and a copy, when the result casts to it without a drop in category (as
    PyTorch allows); RuntimeError when it does not (or, with strict=True, when the dtypes
    differ at all: some PyTorch ops insist on that). Pointwise kernels check overlap in C and
    pass no inputs.
    """
    if out is None:
        r = new_result(result_dtype)
        check(run(r))
        return r
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): out must be a Tensor, not {type(out).__name__}")
    if out._ag is not None:
        out_checked(op, out)
    if out.dtype is result_dtype:
        if not (inputs and conflicts(out, inputs)):
            check(run(out))
            written(out)
            return out
    elif strict:
        raise RuntimeError(f"{op}(): found dtype {out.dtype.real} for out= but expected "
                           f"{result_dtype.real}")
    elif not can_cast(result_dtype, out.dtype):
        raise RuntimeError(f"{op}(): result type {result_dtype.real} can't be cast to the "
                           f"desired output type {out.dtype.real}")
    r = new_result(result_dtype)
    check(run(r))
    if tuple(out.size()) != tuple(r.size()):
        out.resize_(r.size())
    return out.copy_(r)


def inplace(op: str, self: Tensor, result_dtype: _dt.dtype, shape: Any,
            run: Callable[[Tensor], int]) -> Tensor:
    """self <- result: the result dtype must cast to self's, and the broadcast shape must be
    self's own (an in-place op cannot grow self)."""
    if not can_cast(result_dtype, self.dtype):
        raise RuntimeError(f"{op}(): result type {result_dtype.real} can't be cast to the "
                           f"desired output type {self.dtype.real}")
    if shape is not None and tuple(shape) != tuple(self.size()):
        # checked before running: a kernel writing into self would resize it (self is not
        # one of its inputs when it was converted to the compute dtype)
        raise RuntimeError(f"{op}(): output with shape {list(self.size())} doesn't match the "
                           f"broadcast shape {list(shape)}")
    if result_dtype is self.dtype:
        check(run(self))
        return self
    r = new_result(result_dtype)
    check(run(r))
    if tuple(r.size()) != tuple(self.size()):
        raise RuntimeError(f"{op}(): output with shape {list(self.size())} doesn't match the "
                           f"broadcast shape {list(r.size())}")
    return self.copy_(r)


def assign_inplace(op: str, self: Tensor, r: Tensor) -> Tensor:
    """self <- an already computed result r, under the same rules as inplace()."""
    if not can_cast(r.dtype, self.dtype):
        raise RuntimeError(f"{op}(): result type {r.dtype.real} can't be cast to the "
                           f"desired output type {self.dtype.real}")
    if tuple(r.size()) != tuple(self.size()):
        raise RuntimeError(f"{op}(): output with shape {list(self.size())} doesn't match "
                           f"the broadcast shape {list(r.size())}")
    return self.copy_(r)


def out_checked(op: str, out: Any, *results: Any) -> None:
    """out= under autograd, as PyTorch: with grad mode on, neither out nor the result written
    into it (computed from inputs) may require grad (RuntimeError naming op)."""
    if not _grad_state.enabled:
        return
    if out_requires_grad(out) or out_requires_grad(
            tuple(t for t in results if isinstance(t, Tensor))):
        raise out_error(op)


def written(out: Any) -> None:
    """out was written directly (not through copy_, which counts itself): its version moves on."""
    bump_out(out)


def result_of(op: str, r: Tensor, out: Tensor | None, strict: bool = False) -> Tensor:
    """An already computed result r, returned or stored into out (resized, cast as into())."""
    if out is None:
        return r
    out_checked(op, out, r)
    if isinstance(out, Tensor) and conflicts(out, (r,)):
        r = r.clone()  # r reads memory that resizing or writing out would change

    def store(o: Tensor) -> int:
        o.resize_(r.size()).copy_(r)
        return 0
    return into(op, r.dtype, out, store, strict)


def store_pair(op: str, out: Any, inputs: Any, run: Callable[[Tensor, Tensor], int],
               dtypes: tuple) -> tuple:
    """Runs run(values, indices) for an op with out=(values, indices), already checked: into
    the outs directly, or through two temporaries when an out shares memory with an input or
    with the other out."""
    values, indices = out
    out_checked(op, out, *inputs)
    if not (conflicts(values, (*inputs, indices)) or conflicts(indices, (*inputs, values))):
        check(run(values, indices))
        written(out)
        return values, indices
    v, i = new_result(dtypes[0]), new_result(dtypes[1])
    check(run(v, i))
    values.resize_(v.size()).copy_(v)
    indices.resize_(i.size()).copy_(i)
    return values, indices


def as_method(fn: Callable) -> Callable:
    """fn(input, ...) as a Tensor method (self is the input), keeping its name and docstring."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method
