"""pyth.memory_stats(): the counters the C allocators keep."""

from __future__ import annotations

from ._th import ffi, lib


def _counters(stats) -> dict:
    return {"live_bytes": stats.live_bytes, "peak_bytes": stats.peak_bytes,
            "live_allocations": stats.live_allocs, "total_allocations": stats.total_allocs}


def memory_stats() -> dict:
    """Live bytes, peak bytes and live allocations, in total and per allocator.

    {"live_bytes": ..., "peak_bytes": ..., "live_allocations": ..., "total_allocations": ...,
     "allocators": {"default": {...}, "mapped": {...}, "shared": {...}, "numpy": {...}, ...}}
    """
    out = _counters(lib.THAllocator_totalStats())
    out["allocators"] = {}
    for i in range(lib.THAllocator_count()):
        a = lib.THAllocator_at(i)
        out["allocators"][ffi.string(a.name).decode()] = _counters(a.stats)
    return out
