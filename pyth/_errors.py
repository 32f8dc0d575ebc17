"""Turns the C core's thread-local error (kind + message) into a Python exception."""

from __future__ import annotations

from ._th import ffi, lib

_EXCEPTIONS = {
    lib.TH_ERR_INDEX: IndexError,
    lib.TH_ERR_RUNTIME: RuntimeError,
    lib.TH_ERR_TYPE: TypeError,
    lib.TH_ERR_VALUE: ValueError,
    lib.TH_ERR_MEMORY: MemoryError,
}


def not_implemented(op: str, dtype, detail: str = "") -> NotImplementedError:
    """The error for an op that has no kernel for dtype, to `raise`: NotImplementedError, as
    PyTorch raises there (a subclass of RuntimeError, so `except RuntimeError` still works)."""
    return NotImplementedError(f"{op}(): not implemented for '{dtype.real}'"
                               + (f" ({detail})" if detail else ""))


def raise_error() -> None:
    """Raise the error the last failing C call recorded on this thread, and clear it."""
    kind = lib.THError_kind()
    message = ffi.string(lib.THError_message()).decode("utf-8", "replace")
    lib.THError_clear()
    raise _EXCEPTIONS.get(kind, RuntimeError)(message or "pyth: unknown error in the C core")


def check(status: int) -> None:
    """Raise if a C call returned a failure status (non-zero)."""
    if status:
        raise_error()


def check_ptr(ptr):
    """Return ptr, or raise if a C constructor returned NULL."""
    if ptr == ffi.NULL:
        raise_error()
    return ptr
