"""python -m pyth tour: a short tour of storages, strides and views for a newcomer."""

from __future__ import annotations

import pyth

from .info import memory_line


def _show(name: str, t: pyth.Tensor) -> None:
    print(f"{name:<22} size {tuple(t.size())!s:<10} stride {t.stride()!s:<10} "
          f"offset {t.storage_offset():<3} contiguous {t.is_contiguous()}")


def run(args=None) -> int:
    print("pyth: a tensor is a view (sizes, strides, offset) on a flat, refcounted storage.\n")
    a = pyth.arange(12, dtype=pyth.float32).view(3, 4)
    print("a = pyth.arange(12.).view(3, 4)")
    print(a)
    _show("a", a)
    _show("a.t()", a.t())
    _show("a[1]", a[1])
    _show("a[:, 1::2]", a[:, 1::2])
    _show("a.narrow(1, 1, 2)", a.narrow(1, 1, 2))
    _show("a[0].expand(2, 4)", a[0].expand(2, 4))
    print("\nEvery view shares a's storage: writing a.t()[1, 2] = 100 changes a[2, 1].")
    a.t()[1, 2] = 100
    print(f"a[2, 1] = {a[2, 1].item()}; same storage: "
          f"{a.t().storage().data_ptr() == a.storage().data_ptr()}")
    print("\nexplain() draws how a view reaches the storage cells:\n")
    print(a[:, 1::2].explain())
    print("\nThe C core is callable directly through cffi:")
    from pyth._th import lib
    s = lib.THFloatStorage_newWithSize(10)
    print(f"  lib.THFloatStorage_newWithSize(10) -> {lib.THFloatStorage_size(s)} elements")
    lib.THFloatStorage_free(s)
    stats = pyth.memory_stats()
    print(f"\nmemory_stats(): {memory_line(stats)}")
    return 0
