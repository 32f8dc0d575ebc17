"""python -m pyth info: what a bug report needs (as numpy.show_config() does for numpy)."""

from __future__ import annotations

import platform
import sys

import numpy

import pyth
from pyth import _openblas
from pyth._th import ffi, lib

from . import plural


def memory_line(stats: dict) -> str:
    """`N live bytes in N allocations, peak N bytes` from memory_stats() or one allocator's."""
    return (f"{plural(stats['live_bytes'], 'live byte')} in "
            f"{plural(stats['live_allocations'], 'allocation')}, "
            f"peak {plural(stats['peak_bytes'], 'byte')}")


def _rows() -> list[tuple[str, str]]:
    stats = pyth.memory_stats()
    rows = [
        ("pyth", f"{pyth.__version__} ({pyth.__file__.rsplit('/', 2)[0]})"),
        ("python", f"{platform.python_version()} ({sys.executable})"),
        ("platform", platform.platform()),
        ("numpy", numpy.__version__),
        ("build", ffi.string(lib.THGeneral_buildInfo()).decode()),
        ("sanitized", "yes (ASan)" if lib.THGeneral_isSanitized() else "no"),
        ("SIMD (libmvec picks)", ffi.string(lib.THGeneral_simdLevel()).decode()),
        ("OpenBLAS", ffi.string(lib.THBlas_config()).decode()),
        ("OpenBLAS core", _openblas.CORE),
        ("OpenBLAS library", _openblas.PATH),
        ("threads", f"OpenMP {pyth.get_num_threads()}, OpenBLAS {lib.THBlas_getNumThreads()}"),
        ("grain", f"{pyth.get_grain_size()} bytes"),
    ]
    allocator = getattr(pyth.memory, "get_allocator", None)
    if allocator is not None:
        rows.append(("allocator (new storages)", str(allocator())))
    rows.append(("memory", memory_line(stats)))
    for name, s in stats["allocators"].items():
        rows.append((f"  allocator {name}", memory_line(s)))
    return rows


def run(args=None) -> int:
    rows = _rows()
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0
