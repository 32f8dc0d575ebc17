"""Kernel nodes: the lean record of a layer whose forward and backward are THNN C calls.

The table path (record.py) binds arguments by name and composes a formula; a Function (function.py)
keeps a ctx dict and checks what a user's backward returns. A layer that owns its kernels knows
its inputs, what to save and the shapes it returns, so it records a KernelNode subclass directly:
one object with slots, its saved tensors by reference (version-checked as everywhere), and an
`apply` that runs one C call per gradient. Under create_graph (grad mode on during backward)
`apply` composes differentiable tensor ops instead, so higher-order gradients stay exact.

    edges = next_edges(x, weight, bias)      # None: nothing to record
    y = <forward kernel>
    if edges is not None:
        node = LinearBackward(edges)
        node.save(x, weight)
        attach(node, y)
"""

from __future__ import annotations

from typing import Any

from . import grad_mode
from .graph import _FREED, Meta, Node, Saved
from .variable import edge_of

_state = grad_mode.state
_NO_EDGE = (None, 0)


def next_edges(*inputs: Any) -> tuple | None:
    """The next_functions of a node over inputs (None entries allowed), or None when grad mode
    is off or no input needs a gradient: then nothing is recorded."""
    if not _state.enabled:
        return None
    found = False
    out = []
    for t in inputs:
        if t is None or t._ag is None:
            out.append(_NO_EDGE)
            continue
        e = edge_of(t)
        if e is None:
            out.append(_NO_EDGE)
        else:
            out.append(e)
            found = True
    return tuple(out) if found else None


def attach(node: Node, out: Any, nr: int = 0) -> Any:
    """out becomes output nr of node (its grad_fn); returns out."""
    out._ag = Meta(False, node, nr)
    return out


class KernelNode(Node):
    """A node whose backward is hand-written over C kernels (see the module docstring)."""

    __slots__ = ("n_outputs", "saved")

    def __init__(self, next_functions: tuple) -> None:
        super().__init__(next_functions)
        self.n_outputs = 1
        self.saved = ()

    def save(self, *tensors: Any) -> None:
        """Keeps tensors (None allowed) for backward; in-place changes to them are caught."""
        if any(t is not None for t in tensors):   # nothing saved: backward can run again
            self.saved = tuple(Saved(t) if t is not None else None for t in tensors)

    def unpack(self) -> tuple:
        saved = self.saved
        if saved is None:
            raise RuntimeError(_FREED)
        return tuple(s.unpack(self) if s is not None else None for s in saved)

    def unpack_one(self, i: int) -> Any:
        """Saved tensor i alone (the others are not version-checked)."""
        saved = self.saved
        if saved is None:
            raise RuntimeError(_FREED)
        s = saved[i]
        return s.unpack(self) if s is not None else None

    def needs(self, i: int) -> bool:
        """Whether input i wants a gradient."""
        return self._next[i][0] is not None

    def release(self) -> None:
        if self.saved:   # a node that saved nothing can run again, as in PyTorch
            self.saved = None   # the Saved objects, and with them the tensors, go
