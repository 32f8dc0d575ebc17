"""pyth.memory: the counters the C allocators keep, and the caching allocator's controls.

Storage memory of the "default" kind comes from aligned malloc or from the caching allocator
(lib/THCachingAllocator.h: PyTorch's CUDA caching policy, for CPU memory). Which one serves new
storages is chosen per process: PYTH_ALLOCATOR=caching|default when pyth is imported, or
set_allocator() later; a storage keeps returning its memory to the allocator that made it.
"""

from __future__ import annotations

import os

from ._th import ffi, lib

ALLOCATORS = ("caching", "default")
DEFAULT_ALLOCATOR = "caching"  # benchmarks/bench_alloc.py; README "The caching allocator"
_POOLS = (("all", lib.TH_CACHING_ALL), ("small_pool", lib.TH_CACHING_SMALL),
          ("large_pool", lib.TH_CACHING_LARGE))
_STATS = ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
          "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes")
_EVENTS = ("num_alloc_retries", "num_ooms", "num_system_allocs", "num_system_frees")


def _counters(allocator=ffi.NULL) -> dict:
    """One allocator's counters (THAllocator *), or every allocator's together."""
    c = ffi.new("THAllocCounts *")
    lib.THAllocator_counts(allocator, c)
    return {"live_bytes": c.live_bytes, "peak_bytes": c.peak_bytes,
            "live_allocations": c.live_allocs, "total_allocations": c.total_allocs}


def caching_stats(handle=None) -> dict:
    """A caching allocator's statistics under PyTorch's flat names, e.g.
    "allocated_bytes.small_pool.peak" (current / peak / allocated / freed per pool: all,
    small_pool, large_pool), plus the retry and OOM counts. handle: a private
    THCachingAllocator * (tests); by default the process-wide one."""
    raw = ffi.new("THCachingStats *")
    lib.THCachingAllocator_getStats(handle or lib.THCachingAllocator_global(), raw)
    out = {}
    for stat in _STATS:
        per_pool = getattr(raw, stat)
        for pool, index in _POOLS:
            s = per_pool[index]
            for field in ("current", "peak", "allocated", "freed"):
                out[f"{stat}.{pool}.{field}"] = getattr(s, field)
    for event in _EVENTS:
        out[event] = getattr(raw, event)
    return out


def memory_stats() -> dict:
    """Live bytes, peak bytes and live allocations, in total and per allocator, and the
    caching allocator's statistics (see caching_stats) as flat keys.

    {"live_bytes": ..., "peak_bytes": ..., "live_allocations": ..., "total_allocations": ...,
     "allocators": {"default": {...}, "mapped": {...}, "shared": {...}, "numpy": {...}, ...},
     "allocated_bytes.all.current": ..., "reserved_bytes.large_pool.peak": ..., ...}
    """
    out = _counters()
    out["allocators"] = {}
    for i in range(lib.THAllocator_count()):
        a = lib.THAllocator_at(i)
        out["allocators"][ffi.string(a.name).decode()] = _counters(a)
    out.update(caching_stats())
    return out


def set_allocator(name: str) -> None:
    """Choose the memory of new default storages: "caching" (the cache) or "default"
    (aligned malloc). Existing storages keep theirs."""
    if name not in ALLOCATORS:
        raise ValueError(f"set_allocator(): unknown allocator {name!r}; expected one of "
                         f"{', '.join(map(repr, ALLOCATORS))}")
    lib.THAllocator_useCaching(int(name == "caching"))


def get_allocator() -> str:
    """Which allocator serves new default storages: "caching" or "default"."""
    return "caching" if lib.THAllocator_usesCaching() else "default"


def empty_cache() -> None:
    """Return every cached segment that no storage uses to the system."""
    lib.THCachingAllocator_emptyCache(lib.THCachingAllocator_global())


def reset_peak_memory_stats() -> None:
    """Set the caching allocator's peaks to the current values."""
    lib.THCachingAllocator_resetPeaks(lib.THCachingAllocator_global())


def memory_allocated() -> int:
    """Bytes of the caching allocator's blocks in use."""
    return caching_stats()["allocated_bytes.all.current"]


def max_memory_allocated() -> int:
    """Peak of memory_allocated()."""
    return caching_stats()["allocated_bytes.all.peak"]


def memory_reserved() -> int:
    """Bytes the caching allocator holds from the system (in use or cached)."""
    return caching_stats()["reserved_bytes.all.current"]


def max_memory_reserved() -> int:
    """Peak of memory_reserved()."""
    return caching_stats()["reserved_bytes.all.peak"]


def _fmt_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return str(n)


_SUMMARY_ROWS = (("Allocated memory", "allocated_bytes", True),
                 ("Active memory", "active_bytes", True),
                 ("Requested memory", "requested_bytes", True),
                 ("Reserved memory", "reserved_bytes", True),
                 ("Non-releasable memory", "inactive_split_bytes", True),
                 ("Allocations", "allocation", False),
                 ("Active allocs", "active", False),
                 ("Reserved segments", "segment", False),
                 ("Non-releasable allocs", "inactive_split", False))


def memory_summary(handle=None) -> str:
    """A readable table of the caching allocator's statistics (current, peak, total allocated
    and freed per pool), as torch.cuda.memory_summary() prints it."""
    st = caching_stats(handle)
    width = 79
    rule, heavy = "|" + "-" * (width - 2) + "|", "|" + "=" * (width - 2) + "|"

    def line(text: str) -> str:
        return "| " + text.ljust(width - 4) + " |"

    cols = ("Cur Usage", "Peak Usage", "Tot Alloc", "Tot Freed")
    head = f" {'Metric':^23} |" + "|".join(f"{c:^12}" for c in cols)
    lines = [heavy, line(f"{'pyth CPU caching allocator: memory summary':^{width - 4}}"), rule,
             line(f"new storages use: {get_allocator()}"),
             line(f"allocation retries: {st['num_alloc_retries']}   OOMs: {st['num_ooms']}   "
                  f"segments reserved / released: {st['num_system_allocs']} / "
                  f"{st['num_system_frees']}"),
             heavy, "|" + head + "|"]
    for title, stat, is_bytes in _SUMMARY_ROWS:
        lines.append(rule)
        for pool, label in (("all", title), ("large_pool", "  from large pool"),
                            ("small_pool", "  from small pool")):
            vals = [st[f"{stat}.{pool}.{f}"] for f in ("current", "peak", "allocated", "freed")]
            cells = [(_fmt_bytes(v) if is_bytes else str(v)) for v in vals]
            lines.append(f"| {label:<23} |" + "|".join(f"{c:>11} " for c in cells) + "|")
    lines.append(heavy)
    return "\n".join(lines) + "\n"


def _select_from_env() -> None:
    name = os.environ.get("PYTH_ALLOCATOR", "").strip() or DEFAULT_ALLOCATOR
    if name not in ALLOCATORS:
        raise ValueError(f"PYTH_ALLOCATOR={name!r} is not an allocator; expected one of "
                         f"{', '.join(map(repr, ALLOCATORS))}")
    set_allocator(name)


_select_from_env()
