"""The caching allocator (lib/THCachingAllocator.h): its policy in C-level detail, driven
through private instances from the cffi API, and the process-wide instance behind pyth.memory.

Every policy test ends by checking the instance against an oracle computed from its snapshot
(the blocks of every segment): the blocks tile each segment, no two free blocks are adjacent,
blocks in use are aligned, and every counter equals the sum the snapshot gives.
"""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import pyth
import pyth.memory as memory
from pyth._errors import check
from pyth._th import ffi, lib

KB, MB = 1 << 10, 1 << 20
SMALL, LARGE = lib.TH_CACHING_SMALL, lib.TH_CACHING_LARGE


# ---- a private allocator and an oracle for its state ---------------------------------------


class Cache:
    """A private THCachingAllocator with the blocks a test holds."""

    def __init__(self):
        self.h = lib.THCachingAllocator_new()
        assert self.h != ffi.NULL
        self.live = set()

    def alloc(self, n: int) -> int:
        p = lib.THCachingAllocator_alloc(self.h, n)
        if p == ffi.NULL:
            check(-1)
        addr = int(ffi.cast("uintptr_t", p))
        self.live.add(addr)
        return addr

    def free(self, addr: int) -> None:
        check(lib.THCachingAllocator_release(self.h, ffi.cast("void *", addr)))
        self.live.discard(addr)

    def blocks(self) -> list[dict]:
        n = lib.THCachingAllocator_snapshot(self.h, ffi.NULL, 0)
        buf = ffi.new("THCachingBlockInfo[]", max(n, 1))
        assert lib.THCachingAllocator_snapshot(self.h, buf, n) == n
        keys = ("segment", "segment_size", "offset", "size", "requested", "address", "pool",
                "allocated")
        return [{k: getattr(buf[i], k) for k in keys} for i in range(n)]

    def segments(self) -> list[list[dict]]:
        out: dict[int, list] = {}
        for b in self.blocks():
            out.setdefault(b["segment"], []).append(b)
        return [out[k] for k in sorted(out)]

    def stats(self) -> dict:
        return memory.caching_stats(self.h)

    def block_at(self, addr: int) -> dict:
        (b,) = [b for b in self.blocks() if b["address"] == addr]
        return b

    def close(self) -> None:
        for addr in list(self.live):
            self.free(addr)
        check(lib.THCachingAllocator_free(self.h))


@pytest.fixture
def cache():
    c = Cache()
    yield c
    check_invariants(c)
    c.close()


def expected_stats(segments: list[list[dict]]) -> dict:
    """The counters' current values, computed from a snapshot."""
    want = {}
    for pool_name, pool in (("all", None), ("small_pool", SMALL), ("large_pool", LARGE)):
        segs = [s for s in segments if pool is None or s[0]["pool"] == pool]
        used = [b for s in segs for b in s if b["allocated"]]
        split_free = [b for s in segs if len(s) > 1 for b in s if not b["allocated"]]
        for stat, value in (("allocation", len(used)), ("active", len(used)),
                            ("segment", len(segs)),
                            ("allocated_bytes", sum(b["size"] for b in used)),
                            ("active_bytes", sum(b["size"] for b in used)),
                            ("requested_bytes", sum(b["requested"] for b in used)),
                            ("reserved_bytes", sum(s[0]["segment_size"] for s in segs)),
                            ("inactive_split", len(split_free)),
                            ("inactive_split_bytes", sum(b["size"] for b in split_free))):
            want[f"{stat}.{pool_name}.current"] = value
    return want


def check_invariants(c: Cache) -> None:
    segments = c.segments()
    for seg in segments:
        size = seg[0]["segment_size"]
        offset = 0
        for i, b in enumerate(seg):
            assert b["offset"] == offset, "blocks must tile their segment"
            assert b["size"] >= 512 and b["size"] % 512 == 0
            offset += b["size"]
            if i and not b["allocated"]:
                assert seg[i - 1]["allocated"], "two adjacent free blocks were not coalesced"
            if b["allocated"]:
                align = 2 * MB if b["size"] >= 4 * MB else 64
                assert b["address"] % align == 0
                assert b["requested"] <= b["size"]
            else:
                assert b["requested"] == 0
        assert offset == size
    st = c.stats()
    for k, v in expected_stats(segments).items():
        assert st[k] == v, k
    for k in st:
        if k.endswith(".peak"):
            assert st[k] >= st[k[:-5] + ".current"], k
    assert {b["address"] for s in segments for b in s if b["allocated"]} == c.live


def one_segment(c: Cache) -> list[dict]:
    (seg,) = c.segments()
    return seg


# ---- the policy -------------------------------------------------------------------------------


def test_small_requests_share_a_2mb_segment(cache):
    ptrs = [cache.alloc(1000) for _ in range(10)]
    seg = one_segment(cache)
    assert seg[0]["segment_size"] == 2 * MB and seg[0]["pool"] == SMALL
    assert [p - ptrs[0] for p in ptrs] == [1024 * i for i in range(10)]  # packed, 512-rounded
    st = cache.stats()
    assert st["segment.small_pool.current"] == 1 and st["segment.large_pool.current"] == 0
    assert st["allocated_bytes.small_pool.current"] == 10 * 1024
    assert st["requested_bytes.all.current"] == 10 * 1000
    assert st["reserved_bytes.all.current"] == 2 * MB
    assert st["num_system_allocs"] == 1


@pytest.mark.parametrize("request_, block, pool, segment", [
    (0, 512, SMALL, 2 * MB),
    (1, 512, SMALL, 2 * MB),
    (512, 512, SMALL, 2 * MB),
    (513, 1024, SMALL, 2 * MB),
    (MB, MB, SMALL, 2 * MB),                        # the largest small request
    (MB + 1, MB + 512, LARGE, 20 * MB),             # 1-10 MiB: cut from 20 MiB segments
    (10 * MB - 512, 10 * MB - 512, LARGE, 20 * MB),
    (10 * MB - 1, 10 * MB, LARGE, 10 * MB),         # sizes compare after rounding
    (10 * MB, 10 * MB, LARGE, 10 * MB),             # from 10 MiB: its own segment
    (11 * MB + 1, 12 * MB, LARGE, 12 * MB),         # rounded up to 2 MiB; the 1 MiB - 512
                                                    # left is not worth a block: it stays
    (19 * MB, 20 * MB, LARGE, 20 * MB),             # a remainder of exactly 1 MiB stays too
])
def test_rounding_and_segment_sizes(cache, request_, block, pool, segment):
    p = cache.alloc(request_)
    b = cache.block_at(p)
    assert (b["size"], b["pool"], b["segment_size"], b["requested"]) == (block, pool, segment,
                                                                         request_)


def test_own_segment_remainder_above_1mb_is_split(cache):
    p = cache.alloc(12 * MB + 1)  # segment 14 MiB, remainder 2 MiB - 512 > 1 MiB
    seg = one_segment(cache)
    assert seg[0]["segment_size"] == 14 * MB
    assert [(b["size"], b["allocated"]) for b in seg] == [(12 * MB + 512, 1),
                                                          (2 * MB - 512, 0)]
    assert seg[0]["address"] == p


def test_small_pool_splits_down_to_512_bytes(cache):
    a = cache.alloc(MB)
    b = cache.alloc(MB - 512)
    seg = one_segment(cache)
    assert [(x["size"], x["allocated"]) for x in seg] == [(MB, 1), (MB - 512, 1), (512, 0)]
    c = cache.alloc(100)  # the last 512 bytes, no new segment
    assert c == b + MB - 512
    assert cache.stats()["segment.all.current"] == 1
    d = cache.alloc(100)
    assert cache.stats()["segment.small_pool.current"] == 2
    assert cache.block_at(d)["segment"] == 1
    del a


def test_best_fit_in_the_small_pool(cache):
    sizes = [1 * KB, 4 * KB, 2 * KB, 8 * KB, 3 * KB]
    holes = []
    for s in sizes:  # each hole followed by a block in use, so the holes stay apart
        holes.append(cache.alloc(s))
        cache.alloc(512)
    for h in holes:
        cache.free(h)
    assert cache.alloc(1) == holes[0]         # 1 KiB: the smallest free block (split)
    assert cache.block_at(holes[0])["size"] == 512
    assert cache.alloc(1500) == holes[2]      # 2 KiB is the smallest that fits
    assert cache.alloc(3 * KB) == holes[4]    # exact fit
    assert cache.alloc(3 * KB + 1) == holes[1]


def test_best_fit_in_the_large_pool(cache):
    # one 20 MiB segment: a=3, sep, b=2, sep, c=3.5, sep (MiB), then a 7 MiB tail
    a = cache.alloc(3 * MB)
    cache.alloc(MB + MB // 2)
    b = cache.alloc(2 * MB)
    cache.alloc(MB + MB // 2)
    c = cache.alloc(3 * MB + MB // 2)
    cache.alloc(MB + MB // 2)
    assert cache.stats()["segment.all.current"] == 1
    for p in (a, b, c):
        cache.free(p)
    free = sorted(x["size"] for x in one_segment(cache) if not x["allocated"])
    assert free == [2 * MB, 3 * MB, 3 * MB + MB // 2, 7 * MB]
    assert cache.alloc(2 * MB + MB // 2) == a             # 3 MiB: smallest that fits
    assert cache.block_at(a)["size"] == 3 * MB              # 0.5 MiB left is not split
    assert cache.alloc(2 * MB) == b                         # exact
    assert cache.alloc(3 * MB + MB // 5) == c               # 3.5 MiB
    assert cache.stats()["segment.all.current"] == 1


def test_large_requests_from_4mb_start_on_2mb(cache):
    first = cache.alloc(MB + 1)  # 1 MiB + 512 at the segment's start
    big = cache.alloc(5 * MB)    # same 20 MiB segment, at the next 2 MiB boundary
    assert big % (2 * MB) == 0
    seg = one_segment(cache)
    assert [(x["offset"], x["size"], x["allocated"]) for x in seg] == [
        (0, MB + 512, 1), (MB + 512, MB - 512, 0), (2 * MB, 5 * MB, 1), (7 * MB, 13 * MB, 0)]
    cache.free(first)
    assert [(x["size"], x["allocated"]) for x in one_segment(cache)][:2] == [(2 * MB, 0),
                                                                             (5 * MB, 1)]


def test_coalescing_with_both_neighbours(cache):
    a, b, c = (cache.alloc(4 * KB) for _ in range(3))
    d = cache.alloc(4 * KB)  # keeps the tail apart
    cache.free(a)
    cache.free(b)  # a + b: one block
    seg = one_segment(cache)
    assert [(x["address"], x["size"], x["allocated"]) for x in seg[:3]] == [
        (a, 8 * KB, 0), (c, 4 * KB, 1), (d, 4 * KB, 1)]
    st = cache.stats()
    assert st["inactive_split.all.current"] == 2  # a+b and the tail
    cache.free(c)  # merges with a+b on its left
    assert [(x["size"], x["allocated"]) for x in one_segment(cache)][:2] == [(12 * KB, 0),
                                                                             (4 * KB, 1)]
    cache.free(d)  # merges with both neighbours: the whole segment is one free block again
    assert [(x["size"], x["allocated"]) for x in one_segment(cache)] == [(2 * MB, 0)]
    st = cache.stats()
    assert st["inactive_split.all.current"] == 0 and st["inactive_split_bytes.all.current"] == 0
    assert st["reserved_bytes.all.current"] == 2 * MB  # cached, not released


def test_freeing_the_middle_block_last_merges_three(cache):
    a, b, c = (cache.alloc(MB + MB // 2) for _ in range(3))
    cache.free(a)
    cache.free(c)  # merges with the free tail
    cache.free(b)
    assert [(x["size"], x["allocated"]) for x in one_segment(cache)] == [(20 * MB, 0)]


def test_a_freed_block_is_reused_without_a_system_call(cache):
    for _ in range(100):
        cache.free(cache.alloc(3000))
        cache.free(cache.alloc(3 * MB))
    st = cache.stats()
    assert st["num_system_allocs"] == 2 and st["num_system_frees"] == 0
    assert st["allocation.all.allocated"] == 200 and st["allocation.all.freed"] == 200
    assert st["allocated_bytes.all.peak"] == 3 * MB


def test_retry_releases_unsplit_cached_blocks(cache):
    whole_small = cache.alloc(1000)
    cache.free(whole_small)                 # a cached whole 2 MiB segment
    keep = cache.alloc(MB + 1)              # a 20 MiB segment, partly used: split
    gone = cache.alloc(MB + 1)
    cache.free(gone)
    whole_large = cache.alloc(25 * MB)      # its own 26 MiB segment, cached whole
    cache.free(whole_large)
    assert cache.stats()["segment.all.current"] == 3
    lib.THCachingAllocator_failNext(cache.h, 1)
    p = cache.alloc(30 * MB)                # the system refuses once: release, retry
    st = cache.stats()
    assert st["num_alloc_retries"] == 1 and st["num_ooms"] == 0
    sizes = sorted(s[0]["segment_size"] for s in cache.segments())
    assert sizes == [20 * MB, 30 * MB]      # the split segment stays, the whole ones went
    assert st["num_system_frees"] == 2
    assert cache.block_at(keep)["allocated"] and cache.block_at(p)["allocated"]


def test_failed_retry_is_a_memory_error_and_the_cache_still_works(cache):
    cache.free(cache.alloc(100))
    lib.THCachingAllocator_failNext(cache.h, 2)
    with pytest.raises(MemoryError, match="after releasing its cache"):
        cache.alloc(5 * MB)
    st = cache.stats()
    assert st["num_ooms"] == 1 and st["num_alloc_retries"] == 1
    assert st["reserved_bytes.all.current"] == 0  # the cached segment was released
    p = cache.alloc(5 * MB)
    assert cache.block_at(p)["allocated"]


def test_retry_under_a_reservation_limit(cache):
    lib.THCachingAllocator_setLimit(cache.h, 22 * MB)
    cache.free(cache.alloc(5 * MB))   # 20 MiB segment, cached
    cache.free(cache.alloc(100))      # 2 MiB segment, cached: 22 MiB reserved
    p = cache.alloc(21 * MB)          # a 22 MiB segment: over the limit until both go
    st = cache.stats()
    assert st["num_alloc_retries"] == 1 and st["reserved_bytes.all.current"] == 22 * MB
    with pytest.raises(MemoryError):
        cache.alloc(12 * MB)          # 34 MiB: over the limit even with nothing cached
    cache.free(p)
    lib.THCachingAllocator_setLimit(cache.h, 0)


def test_impossible_sizes(cache):
    for n in (-1, 2**63 - 1, 2**62):
        with pytest.raises(MemoryError):
            cache.alloc(n)
    assert cache.stats()["allocation.all.current"] == 0


def test_release_of_a_foreign_or_freed_pointer_is_a_value_error(cache):
    p = cache.alloc(100)
    with pytest.raises(ValueError, match="not a block in use"):
        check(lib.THCachingAllocator_release(cache.h, ffi.cast("void *", p + 512)))
    cache.free(p)
    with pytest.raises(ValueError, match="not a block in use"):
        check(lib.THCachingAllocator_release(cache.h, ffi.cast("void *", p)))
    assert lib.THCachingAllocator_release(cache.h, ffi.NULL) == 0


def test_free_refuses_while_blocks_are_in_use():
    c = Cache()
    c.alloc(100)
    with pytest.raises(RuntimeError, match="still in use"):
        check(lib.THCachingAllocator_free(c.h))
    c.close()
    with pytest.raises(RuntimeError, match="process-wide"):
        check(lib.THCachingAllocator_free(lib.THCachingAllocator_global()))


def test_fragmentation_statistics(cache):
    ptrs = [cache.alloc(4 * KB) for _ in range(100)]
    for p in ptrs[::2]:
        cache.free(p)
    st = cache.stats()
    assert st["inactive_split.small_pool.current"] == 51  # 50 holes and the tail
    assert st["inactive_split_bytes.small_pool.current"] == 50 * 4 * KB + 2 * MB - 400 * KB
    assert st["allocated_bytes.small_pool.current"] == 50 * 4 * KB
    assert st["allocated_bytes.small_pool.peak"] == 100 * 4 * KB
    check_invariants(cache)
    for p in ptrs[1::2]:
        cache.free(p)
    st = cache.stats()
    assert st["inactive_split.all.current"] == 0
    assert st["inactive_split.all.peak"] == 51


def test_empty_cache_releases_unused_segments_only(cache):
    idle_small = cache.alloc(100)
    used_small = cache.alloc(MB)         # beside it: this segment stays partly used
    cache.alloc(MB)                      # does not fit the rest: a second small segment
    cache.free(idle_small)
    idle_large = cache.alloc(11 * MB)    # its own 12 MiB segment
    used_large = cache.alloc(3 * MB)     # a 20 MiB segment
    cache.free(idle_large)
    data = ffi.cast("unsigned char *", used_large)
    ffi.memmove(data, b"keep me", 7)
    assert len(cache.segments()) == 4
    released = lib.THCachingAllocator_emptyCache(cache.h)
    assert released == 12 * MB
    sizes = sorted(s[0]["segment_size"] for s in cache.segments())
    assert sizes == [2 * MB, 2 * MB, 20 * MB]
    assert ffi.buffer(data, 7)[:] == b"keep me"
    assert cache.block_at(used_small)["allocated"]
    cache.free(used_small)
    for p in list(cache.live):
        cache.free(p)
    assert lib.THCachingAllocator_emptyCache(cache.h) == 24 * MB
    assert cache.segments() == []
    st = cache.stats()
    assert st["reserved_bytes.all.current"] == 0 and st["reserved_bytes.all.peak"] >= 36 * MB


def test_reset_peaks(cache):
    cache.free(cache.alloc(3 * MB))
    lib.THCachingAllocator_resetPeaks(cache.h)
    st = cache.stats()
    assert st["allocated_bytes.all.peak"] == 0
    assert st["reserved_bytes.all.peak"] == 20 * MB


def test_random_workload_keeps_every_invariant(cache):
    rng = random.Random(7)
    live = []
    for step in range(3000):
        if live and (rng.random() < 0.45 or len(live) > 60):
            cache.free(live.pop(rng.randrange(len(live))))
        else:
            n = rng.choice([rng.randrange(1, 4 * KB), rng.randrange(1, MB),
                            rng.randrange(MB, 6 * MB), rng.randrange(10 * MB, 13 * MB)])
            live.append(cache.alloc(n))
        if step % 500 == 0:
            check_invariants(cache)
    check_invariants(cache)


def test_threads_share_one_allocator_consistently(cache):
    """Threads (cffi drops the GIL) allocate, fill, verify and free blocks at once."""
    per_thread, n_threads = 1500, 6
    errors = []

    def fill(p: int, n: int, tag: bytes) -> None:  # both ends of the block
        k = min(n, 4096)
        ffi.memmove(ffi.cast("char *", p), tag * k, k)
        ffi.memmove(ffi.cast("char *", p) + n - k, tag * k, k)

    def intact(p: int, n: int, tag: bytes) -> bool:
        k = min(n, 4096)
        return (ffi.buffer(ffi.cast("char *", p), k)[:] == tag * k
                and ffi.buffer(ffi.cast("char *", p) + n - k, k)[:] == tag * k)

    def work(seed: int) -> None:
        rng = random.Random(seed)
        mine = []
        try:
            for _ in range(per_thread):
                if mine and rng.random() < 0.5:
                    p, n, tag = mine.pop(rng.randrange(len(mine)))
                    if not intact(p, n, tag):
                        errors.append("a block was overwritten by another thread")
                    check(lib.THCachingAllocator_release(cache.h, ffi.cast("void *", p)))
                else:
                    n = rng.choice([rng.randrange(1, 2 * KB), rng.randrange(1, 200 * KB),
                                    rng.randrange(MB, 3 * MB)])
                    p = lib.THCachingAllocator_alloc(cache.h, n)
                    if p == ffi.NULL:
                        check(-1)
                    p = int(ffi.cast("uintptr_t", p))
                    tag = bytes([rng.randrange(256)])
                    fill(p, n, tag)
                    mine.append((p, n, tag))
            for p, _, _ in mine:
                check(lib.THCachingAllocator_release(cache.h, ffi.cast("void *", p)))
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    st = cache.stats()
    assert st["allocation.all.current"] == 0 and st["allocated_bytes.all.current"] == 0
    assert st["requested_bytes.all.current"] == 0
    assert st["allocation.all.allocated"] == st["allocation.all.freed"]
    assert st["allocation.all.allocated"] > n_threads * per_thread // 3
    check_invariants(cache)
    lib.THCachingAllocator_emptyCache(cache.h)
    assert cache.stats()["reserved_bytes.all.current"] == 0


# ---- the process-wide cache behind pyth's storages ------------------------------------------


@pytest.fixture
def caching():
    before = memory.get_allocator()
    memory.set_allocator("caching")
    yield
    memory.set_allocator(before)


def global_blocks() -> list:
    g = lib.THCachingAllocator_global()
    n = lib.THCachingAllocator_snapshot(g, ffi.NULL, 0)
    buf = ffi.new("THCachingBlockInfo[]", max(n, 1))
    n = lib.THCachingAllocator_snapshot(g, buf, n)
    return [buf[i] for i in range(n)]


def test_storages_remember_their_allocator(caching):
    s = pyth.FloatStorage(1000)
    assert s._h.allocatorContext == lib.THCachingAllocator_global()
    assert s.allocator_name() == "default"  # the kind of memory: private heap memory
    addr = s.data_ptr()
    assert any(b.address == addr and b.allocated for b in global_blocks())
    memory.set_allocator("default")
    t = pyth.FloatStorage(1000)
    assert t._h.allocatorContext == ffi.NULL
    before = memory.caching_stats()["allocation.all.current"]
    del s
    gc.collect()
    assert memory.caching_stats()["allocation.all.current"] == before - 1  # back to the cache
    assert not any(b.address == addr and b.allocated for b in global_blocks())
    del t


def test_counters_under_caching(caching):
    gc.collect()
    before = pyth.memory_stats()
    t = pyth.zeros(100, 30)
    mid = pyth.memory_stats()
    assert mid["allocators"]["default"]["live_bytes"] - before["allocators"]["default"][
        "live_bytes"] == 12000
    assert mid["allocated_bytes.small_pool.current"] - before[
        "allocated_bytes.small_pool.current"] == 12288
    assert mid["requested_bytes.all.current"] - before["requested_bytes.all.current"] == 12000
    del t
    gc.collect()
    end = pyth.memory_stats()
    assert end["allocators"]["default"]["live_bytes"] == before["allocators"]["default"][
        "live_bytes"]
    assert end["allocated_bytes.all.current"] == before["allocated_bytes.all.current"]


def test_resize_stays_in_the_cache_and_keeps_data(caching):
    s = pyth.DoubleStorage([1, 2, 3])
    s.resize_(5 * MB // 8)
    assert s._h.allocatorContext == lib.THCachingAllocator_global()
    assert s.data_ptr() % (2 * MB) == 0
    assert s.tolist()[:3] == [1.0, 2.0, 3.0]
    s.resize_(2)
    assert s.tolist() == [1.0, 2.0]
    s.resize_(0)
    s.resize_(4)
    assert s._h.allocatorContext == lib.THCachingAllocator_global()


@pytest.mark.parametrize("nbytes, align", [(4, 64), ((4 << 20) - 1, 64), (4 << 20, 2 << 20),
                                           (64 << 20, 2 << 20)])
def test_alignment_under_caching(caching, nbytes, align):
    s = pyth.ByteStorage(nbytes)
    assert s.data_ptr() % align == 0
    r = pyth.empty(nbytes // 4, dtype=pyth.float32) + 1
    assert r.data_ptr() % (align if nbytes // 4 * 4 >= 4 << 20 else 64) == 0


def test_results_and_exports_under_caching(caching):
    a = np.random.default_rng(0).standard_normal((64, 128)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((128, 32)).astype(np.float32)
    x, y = pyth.tensor(a), pyth.tensor(b)
    for _ in range(20):  # results reuse freed blocks: every one must be exact
        r = (x @ y + 1).numpy()
        np.testing.assert_allclose(r, a @ b + 1, rtol=1e-5, atol=1e-5)
    t = pyth.arange(10.0)
    arr = t.numpy()
    del t
    gc.collect()
    junk = [pyth.full((10,), 7.0) for _ in range(50)]  # would reuse the block if freed
    assert arr.tolist() == list(range(10))  # the export keeps the block in use
    del junk


def test_empty_cache_keeps_blocks_in_use(caching):
    keep = pyth.ones(300_000)
    tmp = [pyth.ones(n) for n in (10, 1000, 400_000, 3_000_000)]
    del tmp
    gc.collect()
    memory.empty_cache()
    segs = {}
    for b in global_blocks():
        segs.setdefault(b.segment, []).append(b.allocated)
    assert all(any(v) for v in segs.values()), "a segment without blocks in use survived"
    assert keep.sum().item() == 300_000


def test_memory_error_under_caching(caching):
    before = memory.caching_stats()
    with pytest.raises(MemoryError):
        pyth.empty(2**60, dtype=pyth.uint8)
    after = memory.caching_stats()
    assert after["num_ooms"] == before["num_ooms"] + 1
    assert after["num_alloc_retries"] == before["num_alloc_retries"] + 1
    assert pyth.zeros(3).tolist() == [0.0, 0.0, 0.0]


def test_memory_summary_and_accessors(caching):
    t = pyth.empty(3 * MB // 4)
    text = memory.memory_summary()
    for row in ("Allocated memory", "Reserved memory", "Non-releasable memory", "from small pool",
                "from large pool", "Reserved segments", "new storages use: caching",
                "allocation retries: "):
        assert row in text, row
    st = memory.caching_stats()
    assert memory.memory_allocated() == st["allocated_bytes.all.current"] >= 3 * MB
    assert memory.memory_reserved() == st["reserved_bytes.all.current"] >= 3 * MB
    assert memory.max_memory_allocated() >= memory.memory_allocated()
    assert memory.max_memory_reserved() >= memory.memory_reserved()
    memory.reset_peak_memory_stats()
    assert memory.max_memory_allocated() == memory.memory_allocated()
    widths = {len(line) for line in text.splitlines()}
    assert widths == {79}, widths
    del t


def test_set_allocator_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown allocator 'bogus'"):
        memory.set_allocator("bogus")
    assert memory.get_allocator() in ("caching", "default")


def test_env_variable_selects_the_allocator():
    """PYTH_ALLOCATOR at import: caching, default, unset (the default), or a ValueError."""
    code = ("import pyth, pyth.memory as m; s = pyth.FloatStorage(10); "
            "print(m.get_allocator(), int(s._h.allocatorContext != pyth._th.ffi.NULL))")
    cases = {"caching": "caching", "default": "default", "": memory.DEFAULT_ALLOCATOR,
             "bogus": None}
    procs = {value: subprocess.Popen([sys.executable, "-P", "-c", code],  # all at once: imports are slow
                                     env=dict(os.environ, PYTH_ALLOCATOR=value), text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for value in cases}
    for value, want in cases.items():
        out, err = procs[value].communicate(timeout=180)
        if want is None:
            assert procs[value].returncode != 0
            assert "PYTH_ALLOCATOR='bogus' is not an allocator" in err
        else:
            assert procs[value].returncode == 0, err
            assert out.split() == [want, str(int(want == "caching"))]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_while_other_threads_allocate(caching):
    """A child forked while threads allocate starts with the cache's lock free."""
    stop = threading.Event()

    def churn():
        while not stop.is_set():
            for _ in range(50):
                pyth.empty(1000)
                pyth.empty(300_000)

    workers = [threading.Thread(target=churn) for _ in range(2)]
    for w in workers:
        w.start()
    try:
        for _ in range(5):
            pid = os.fork()
            if pid == 0:  # child: allocate through the cache, then leave at once
                code = 1
                try:
                    # (below the grain: libgomp cannot run a team in a child forked after
                    # the parent ran one, whatever the allocator)
                    xs = [pyth.ones(n) for n in (10, 1000, 100_000)]
                    big = [pyth.empty(300_000) for _ in range(3)]  # large-pool blocks
                    del big
                    code = 0 if sum(x.sum().item() for x in xs) == 101_010 else 2
                finally:
                    os._exit(code)
            deadline = time.monotonic() + 30
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
                    pytest.fail("the forked child hung (allocator lock held across fork)")
                time.sleep(0.01)
            assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    finally:
        stop.set()
        for w in workers:
            w.join()


# ---- the thread cache of the process-wide instance -------------------------------------------
# Each thread keeps up to TH_TCACHE_BLOCKS 512-byte blocks it gave back (releaseSized) and hands
# one out again for a request of exactly the same size; a resting block counts as in use until
# its thread flushes (reading the statistics, a snapshot, empty_cache, reset_peaks, its exit).

G = lib.THCachingAllocator_global()
TCACHE = lib.TH_TCACHE_BLOCKS


def g_alloc(n: int) -> int:
    p = lib.THCachingAllocator_alloc(G, n)
    if p == ffi.NULL:
        check(-1)
    return int(ffi.cast("uintptr_t", p))


def g_release(p: int, n: int) -> None:
    check(lib.THCachingAllocator_releaseSized(G, ffi.cast("void *", p), n))


def in_other_thread(fn):
    """fn() run on a fresh thread (whose reads flush only that thread's own cache)."""
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def settled(key: str, want: int, timeout: float = 5.0) -> int:
    """The statistic once it equals want (a thread's exit flushes its cache just after join()
    returns), or its value at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        v = memory.caching_stats()[key]
        if v == want or time.monotonic() > deadline:
            return v
        time.sleep(0.01)


@pytest.fixture
def quiet():
    """No garbage collection (which could free storages) between a test's steps."""
    gc.collect()
    gc.disable()
    memory.caching_stats()  # flushes this thread's cache
    yield
    gc.enable()


def test_thread_cache_reuses_only_for_the_same_size(quiet):
    p = g_alloc(40)
    g_release(p, 40)
    q = g_alloc(41)    # another size misses: p rests in the cache, so the pool gives another
    r = g_alloc(40)    # the resting block
    assert q != p and r == p
    g_release(q, 41)
    g_release(r, 40)
    old = lib.THCachingAllocator_setThreadCache(0)
    try:                # off: a released block is free in the pool, and the pool reuses it
        p = g_alloc(40)
        g_release(p, 40)
        assert g_alloc(41) == p
        g_release(p, 41)
    finally:
        assert lib.THCachingAllocator_setThreadCache(old) == 0


def test_resting_blocks_count_as_in_use_until_their_thread_flushes(quiet):
    def read():
        return memory.caching_stats(), [b.address for b in global_blocks() if b.allocated]

    before, _ = in_other_thread(read)
    p = g_alloc(100)
    g_release(p, 100)
    mid, in_use = in_other_thread(read)   # another thread's reads leave this one's cache alone
    assert p in in_use
    assert mid["allocation.all.current"] - before["allocation.all.current"] == 1
    assert mid["requested_bytes.small_pool.current"] - before[
        "requested_bytes.small_pool.current"] == 100
    own = memory.caching_stats()          # this thread's read flushes its own cache
    assert own["allocation.all.current"] == before["allocation.all.current"]
    assert own["requested_bytes.all.current"] == before["requested_bytes.all.current"]
    assert p not in [b.address for b in global_blocks() if b.allocated]


def test_reuse_counts_as_a_release_and_an_allocation(quiet):
    before = memory.caching_stats()
    for _ in range(100):
        g_release(g_alloc(40), 40)
    after = memory.caching_stats()
    for stat, size in (("allocation", 1), ("active", 1), ("allocated_bytes", 512),
                       ("active_bytes", 512), ("requested_bytes", 40)):
        for pool in ("all", "small_pool"):
            for field in ("allocated", "freed"):
                key = f"{stat}.{pool}.{field}"
                assert after[key] - before[key] == 100 * size, key
            key = f"{stat}.{pool}.current"
            assert after[key] == before[key], key
    assert after["allocation.large_pool.allocated"] == before["allocation.large_pool.allocated"]


def test_peaks_do_not_count_a_reuse(quiet):
    p = g_alloc(64)
    g_release(p, 64)
    lib.THCachingAllocator_resetPeaks(G)   # flushes: p is free again
    base = memory.caching_stats()["allocated_bytes.all.current"]
    for _ in range(10):
        g_release(g_alloc(64), 64)
    st = memory.caching_stats()
    assert st["allocated_bytes.all.peak"] == base + 512
    assert st["allocated_bytes.all.current"] == base


def test_a_thread_keeps_at_most_the_limit_and_returns_them_when_it_exits(quiet):
    base = memory.caching_stats()["allocation.all.current"]
    kept, go = threading.Event(), threading.Event()

    def work():
        ps = [g_alloc(200) for _ in range(TCACHE + 3)]
        for p in ps:
            g_release(p, 200)
        kept.set()
        go.wait(10)

    t = threading.Thread(target=work)
    t.start()
    assert kept.wait(10)
    assert memory.caching_stats()["allocation.all.current"] - base == TCACHE
    go.set()
    t.join()
    assert settled("allocation.all.current", base) == base


def test_set_thread_cache_checks_its_argument():
    for bad in (-1, TCACHE + 1):
        with pytest.raises(ValueError, match=r"thread cache: .* outside \[0, 8\]"):
            check(lib.THCachingAllocator_setThreadCache(bad))
    old = lib.THCachingAllocator_setThreadCache(3)
    assert old == TCACHE
    assert lib.THCachingAllocator_setThreadCache(old) == 3


def test_release_sized_takes_the_locked_path_for_other_blocks(cache):
    p = cache.alloc(40)   # a private instance: no thread cache
    check(lib.THCachingAllocator_releaseSized(cache.h, ffi.cast("void *", p), 40))
    cache.live.discard(p)
    assert not cache.block_at(p)["allocated"]
    q = g_alloc(2000)     # the process-wide one, above 512 bytes
    g_release(q, 2000)
    assert q not in [b.address for b in in_other_thread(global_blocks) if b.allocated]
    assert lib.THCachingAllocator_releaseSized(G, ffi.NULL, 8) == 0


def test_threads_share_the_thread_caches_consistently():
    """Threads allocate, fill, check and release small blocks of a few sizes (most requests
    hit their thread's cache) while the main thread reads the statistics."""
    gc.collect()
    memory.caching_stats()
    base = memory.caching_stats()
    stop, errors = threading.Event(), []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        mine = []
        try:
            for _ in range(3000):
                if mine and rng.random() < 0.5:
                    p, n, tag = mine.pop(rng.randrange(len(mine)))
                    if ffi.buffer(ffi.cast("char *", p), n)[:] != tag * n:
                        errors.append("a block was overwritten by another thread")
                    g_release(p, n)
                else:
                    n = rng.choice([4, 40, 400, 512, 513])
                    p = g_alloc(n)
                    tag = bytes([rng.randrange(256)])
                    ffi.memmove(ffi.cast("char *", p), tag * n, n)
                    mine.append((p, n, tag))
            for p, n, _ in mine:
                g_release(p, n)
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(repr(e))

    def reader() -> None:
        while not stop.is_set():
            st = memory.caching_stats()
            if st["allocation.all.current"] < 0 or st["allocated_bytes.all.peak"] < st[
                    "allocated_bytes.all.current"]:
                errors.append(f"inconsistent statistics {st['allocation.all.current']}")

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    r = threading.Thread(target=reader)
    r.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    r.join()
    assert not errors, errors[:3]
    assert settled("allocation.all.current", base["allocation.all.current"]) == base[
        "allocation.all.current"]
    st = memory.caching_stats()
    assert st["requested_bytes.all.current"] == base["requested_bytes.all.current"]
    assert (st["allocation.all.allocated"] - base["allocation.all.allocated"]
            == st["allocation.all.freed"] - base["allocation.all.freed"])
