"""What every op shares: turning operands into tensors of the compute dtype, and producing the
result in a fresh tensor, in out=, or in self (in-place), with PyTorch's casting rules."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import dtypes as _dt
from ._errors import check
from ._promotion import can_cast
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
    from .factories import tensor
    return tensor(x, dtype=dt)


def new_result(dt: _dt.dtype) -> Tensor:
    """An empty tensor for a C kernel to size."""
    return wrap(dt, dt.tensor.new())


def into(op: str, result_dtype: _dt.dtype, out: Tensor | None,
         run: Callable[[Tensor], int], strict: bool = False) -> Tensor:
    """Runs run(r) on a suitable result tensor r and returns the op's result.

    out=None: r is new. Otherwise out receives the result: directly when its dtype is the
    result dtype, through a temporary and a copy when the result casts to it without a drop in
    category (as PyTorch allows), and RuntimeError when it does not (or, with strict=True, when
    the dtypes differ at all: some PyTorch ops insist on that).
    """
    if out is None:
        r = new_result(result_dtype)
        check(run(r))
        return r
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): out must be a Tensor, not {type(out).__name__}")
    if out.dtype is result_dtype:
        check(run(out))
        return out
    if strict:
        raise RuntimeError(f"{op}(): found dtype {out.dtype.real} for out= but expected "
                           f"{result_dtype.real}")
    if not can_cast(result_dtype, out.dtype):
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


def result_of(op: str, r: Tensor, out: Tensor | None, strict: bool = False) -> Tensor:
    """An already computed result r, returned or stored into out (resized, cast as into())."""
    if out is None:
        return r

    def store(o: Tensor) -> int:
        o.resize_(r.size()).copy_(r)
        return 0
    return into(op, r.dtype, out, store, strict)


def as_method(fn: Callable) -> Callable:
    """fn(input, ...) as a Tensor method (self is the input), keeping its name and docstring."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method
