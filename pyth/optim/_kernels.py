"""The bridge from pyth.optim to the group kernels of generic/THOptim.c.

One call updates every parameter of a group: the parameters, gradients and state buffers go
to C as arrays of tensor handles (lib.THOptim_<Real><Name>), so a step costs a few Python
operations per group however many parameters it holds. Parameters of another dtype than
float32/float64 (half, bfloat16) are updated through float32 copies written back afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from .._errors import check
from .._th import ffi, lib
from ..autograd import graph as _graph
from ..autograd import no_grad
from .._prims.creation import tensor
from ..tensor import Tensor

_REAL = {_dt.float32: "Float", _dt.float64: "Double"}
_FNS: dict = {}


def _kernel(name: str, dt: _dt.dtype) -> tuple:
    """(C function, cffi array type of its tensors) for optimizer name and dtype dt."""
    key = (name, dt)
    hit = _FNS.get(key)
    if hit is None:
        real = _REAL[dt]
        hit = _FNS[key] = (getattr(lib, f"THOptim_{real}{name}"), f"TH{real}Tensor *[]")
    return hit


def new_step() -> Tensor:
    """A step counter: a 0-dim float32 tensor, as PyTorch keeps it (the kernels advance it)."""
    return tensor(0.0, dtype=_dt.float32)


def as_step(value: Any) -> Tensor:
    """value (a number or a tensor, e.g. from a loaded state dict) as a step counter."""
    if isinstance(value, Tensor) and value.dtype is _dt.float32 and value.dim() == 0:
        return value
    return tensor(float(value), dtype=_dt.float32)


STEPS = "THFloatTensor *[]"  # the C type of an array of step counters
FLAGS = "uint8_t[]"  # ... of per-parameter flags


def run(name: str, tensors: Sequence[Sequence[Tensor] | None],
        tail: Sequence[tuple[str, Sequence | None]], *scalars: Any) -> None:
    """Calls THOptim_<Real><name>(tensor arrays..., tail arrays..., n, scalars...).

    tensors[0] are the parameters, tensors[1] their gradients, the rest state buffers, each
    buffer in its parameter's dtype; tail holds the other per-parameter arrays as (C array
    type, items): step counters (STEPS) or flags (FLAGS). None passes NULL. A group of mixed
    dtypes takes one call per dtype.
    """
    params = tensors[0]
    dt = params[0].dtype
    for p in params:
        if p.dtype is not dt:
            return _run_by_dtype(name, tensors, tail, scalars)
    if dt not in _REAL:
        return _run_in_float(name, tensors, tail, scalars)
    fn, ctype = _kernel(name, dt)
    args = [ffi.NULL if ts is None else ffi.new(ctype, [t._h for t in ts]) for ts in tensors]
    for ctype, items in tail:
        if items is None:
            args.append(ffi.NULL)
        else:
            args.append(ffi.new(ctype, [s._h for s in items] if ctype == STEPS else items))
    check(fn(*args, len(params), *scalars))
    if _graph.counting[0]:  # an in-place write: saved copies of these parameters are now stale
        for p in params:
            _graph.bump(p)


def _subset(seq: Sequence | None, idx: list) -> list | None:
    return None if seq is None else [seq[i] for i in idx]


def _run_by_dtype(name: str, tensors: Sequence, tail: Sequence, scalars: tuple) -> None:
    groups: dict = {}
    for i, p in enumerate(tensors[0]):
        groups.setdefault(p.dtype, []).append(i)
    for idx in groups.values():
        run(name, [_subset(ts, idx) for ts in tensors],
            [(ctype, _subset(items, idx)) for ctype, items in tail], *scalars)


def _run_in_float(name: str, tensors: Sequence, tail: Sequence, scalars: tuple) -> None:
    for ts in tensors:
        for t in ts or ():
            if not t.dtype.is_floating_point:
                raise TypeError(f"{name.split('_')[0]}.step(): expected floating point "
                                f"parameters, got {t.dtype}")
    work = [None if ts is None else [t.detach().float() for t in ts] for ts in tensors]
    run(name, work, tail, *scalars)
    with no_grad():
        for k, (ts, ws) in enumerate(zip(tensors, work)):
            if ts is not None and k != 1:
                for t, w in zip(ts, ws):
                    t.copy_(w)
