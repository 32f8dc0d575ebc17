"""Receipts for the "file_system" strategy: when the sender may let go of a storage it sent.

Under file_system a storage travels as a path, /proc/<sender>/fd/<n>, valid only while the sender
keeps that descriptor open, so the sender must hold the storage until the receiver has opened
it. Holding every sent storage for good (as pyth did) leaked one descriptor and its memory per
message: a DataLoader worker ran out of descriptors after about a thousand batches.

Each sending process keeps 64 KiB of one-byte flags in shared memory (its receipt book) and
sends, with each storage, the book's own path and a slot in it. The receiver opens the storage,
then sets that slot; the sender, at its next send, lets go of every storage whose slots were all
set (PyTorch's file_system strategy gets the same effect from a reference count inside the
shared memory, incremented when pickled and decremented when unpickled). A message never
unpickled keeps its storage until the sender exits, as before; so does a send when every slot is
taken.
"""

from __future__ import annotations

import mmap
import os
import threading
from typing import Any

import numpy as np

from .._th import ffi

SLOTS = 1 << 16


def _shared_fd(s: Any) -> int:
    """The descriptor of s's shared memory, moving s there first (in place) if needed."""
    if s.allocator_name() != "shared":
        s.share_memory_()
    ctx = ffi.cast("THMapAllocatorContext *", s._h.allocatorContext)
    if ctx.fd < 0:
        raise RuntimeError("share: this shared storage has no descriptor to pass on")
    return ctx.fd


class Book:
    """This process's receipt book: SLOTS one-byte flags in shared memory, and the storages
    waiting for theirs."""

    def __init__(self) -> None:
        from .._prims.creation import zeros
        from ..dtypes import uint8
        self.pid = os.getpid()
        self.flags_tensor = zeros(SLOTS, dtype=uint8)
        self.path = f"/proc/{self.pid}/fd/{_shared_fd(self.flags_tensor.storage())}"
        self.flags = self.flags_tensor.numpy()      # the same shared memory
        self.free = list(range(SLOTS - 1, -1, -1))
        self.waiting: dict[int, tuple[Any, list]] = {}   # id(storage) -> (storage, its slots)
        self.kept: list = []     # sent while every slot was taken: held until exit
        self.lock = threading.Lock()   # queues pickle in their feeder threads

    def hold(self, storage: Any) -> int:
        """Keep storage until its receiver signs for it: the slot to sign, or -1 (no slot
        free: the storage is kept for good)."""
        with self.lock:
            return self._hold(storage)

    def _hold(self, storage: Any) -> int:
        self._settle()
        if not self.free:
            self.kept.append(storage)
            return -1
        slot = self.free.pop()
        self.flags[slot] = 0
        entry = self.waiting.get(id(storage))
        if entry is None:
            self.waiting[id(storage)] = (storage, [slot])
        else:
            entry[1].append(slot)
        return slot

    def settle(self) -> None:
        """Let go of the storages whose every receiver has signed."""
        with self.lock:
            self._settle()

    def _settle(self) -> None:
        flags = self.flags
        for key, (storage, slots) in list(self.waiting.items()):
            signed = [k for k in slots if flags[k]]
            if not signed:
                continue
            self.free.extend(signed)
            left = [k for k in slots if not flags[k]]
            if left:
                self.waiting[key] = (storage, left)
            else:
                del self.waiting[key]


_book: list = [None]


def book() -> Book:
    """This process's book (a forked child starts its own: the parent's slots are the
    parent's)."""
    b = _book[0]
    if b is None or b.pid != os.getpid():
        b = _book[0] = Book()
    return b


# (sender's pid, device, inode) of a sender's book -> (the pid, its flags): mapped once per
# receiving process (a plain mmap: no descriptor kept), dropped once the sender has exited
# (the pid in the key: a later sender's book may get a freed inode number)
_books_seen: dict[tuple, tuple[int, np.ndarray]] = {}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def sign(path: str, slot: int) -> None:
    """Set slot in the book at path, /proc/<sender>/fd/<n> (the receiver's side)."""
    fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        pid = int(path.split("/")[2])
        key = (pid, st.st_dev, st.st_ino)
        seen = _books_seen.get(key)
        if seen is None:
            for k, (sender, _) in list(_books_seen.items()):   # books of senders gone by
                if not _alive(sender):
                    del _books_seen[k]
            if st.st_size < SLOTS:
                raise RuntimeError(f"receipt book {path} holds {st.st_size} bytes, not {SLOTS}")
            seen = _books_seen[key] = (pid, np.frombuffer(mmap.mmap(fd, SLOTS), dtype=np.uint8))
    finally:
        os.close(fd)
    seen[1][slot] = 1
