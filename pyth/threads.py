"""Threads: how many OpenMP threads pyth's kernels may use, and the grain size below which an
op stays on the calling thread (measured in bytes of work; see lib/THGeneral.h)."""

from __future__ import annotations

import operator

from ._errors import check
from ._th import lib


def _positive(fn: str, n: object, bits: int) -> int:
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"{fn}(): expected an int, got {type(n).__name__}") from None
    if not 0 < n < 2 ** (bits - 1):
        raise RuntimeError(f"{fn}(): expected a positive int{bits} number, got {n}")
    return n


def set_num_threads(n: int) -> None:
    """Threads for pyth's parallel kernels (all of them share one OpenMP pool), at most
    lib.TH_MAX_THREADS (256): ValueError above it."""
    n = _positive("set_num_threads", n, 64)
    if n > lib.TH_MAX_THREADS:
        raise ValueError(f"set_num_threads(): {n} threads requested, but at most "
                         f"{lib.TH_MAX_THREADS} are supported")
    check(lib.THSetNumThreads(n))


def get_num_threads() -> int:
    """Threads pyth's parallel kernels use."""
    return lib.THGetNumThreads()


def set_grain_size(nbytes: int) -> None:
    """Work (bytes touched, weighted for costly kernels) from which an op splits between threads:
    below it a thread team costs more than it saves. 1 forces threads for every op of 2+
    elements; the default (1 MiB) comes from benchmarks/bench_grain.py on a 2-core machine."""
    lib.THSetGrainSize(_positive("set_grain_size", nbytes, 64))


def get_grain_size() -> int:
    """The current grain size, in bytes of work."""
    return lib.THGetGrainSize()
