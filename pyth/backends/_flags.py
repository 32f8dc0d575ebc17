"""The backends' flag properties: PyTorch's bool check on setting a flag, and the module class
that lets `cudnn.benchmark = True` be checked and read back."""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Any, Iterator


def expect_bool(setter: str, value: Any) -> None:
    """RuntimeError unless value is a bool, named as PyTorch's setter names it."""
    if not isinstance(value, bool):
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")


def flag_module(module: str, flags: dict[str, tuple[Any, str | None]]) -> None:
    """Give module (a backend's) properties for its flags: name -> (default, the setter's
    name in PyTorch's bool check, or None for a flag that takes any value)."""
    values = {name: default for name, (default, _) in flags.items()}

    def prop(name: str, setter: str | None) -> property:
        def get(self: Any) -> Any:
            return values[name]

        def put(self: Any, value: Any) -> None:
            if setter is not None:
                expect_bool(setter, value)
            values[name] = value
        return property(get, put)

    cls = type(f"{module.rsplit('.', 1)[1].capitalize()}Module", (types.ModuleType,),
                {name: prop(name, setter) for name, (_, setter) in flags.items()})
    sys.modules[module].__class__ = cls


@contextlib.contextmanager
def set_flags_within(module: Any, **flags: Any) -> Iterator[None]:
    """Set a backend's flags for the duration of a with block, then restore them."""
    saved = {name: getattr(module, name) for name in flags}
    try:
        for name, value in flags.items():
            setattr(module, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
