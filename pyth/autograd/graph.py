"""The graph's pieces: per-tensor autograd state, nodes, saved tensors, version counters.

A tensor that takes part in autograd carries one `Meta` in its `_ag` slot (None for every
other tensor: that None is the one check an op makes before doing autograd work). A node
(`grad_fn`) holds `next_functions`, a tuple of (node, output number) edges, one per input it
differentiates, and what its backward needs. Leaves that require grad get an `AccumulateGrad`
node, created on first use and cached weakly, which adds the gradient into `.grad`.

Versions: in-place ops bump a counter kept per storage. Only storages that some node saved are
counted (a dict keyed by the storage's address, entries released with the nodes), so code that
never records a graph pays one dict-emptiness check per in-place op.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

from .._size import Size
from .._th import ffi
from .grad_mode import state as _grad_state

_seq = itertools.count()

# storage -> [version, number of saved tensors on it]. The key is the cffi pointer to the
# storage (equal and hashed by address, holding nothing alive), cheaper than its integer.
_versions: dict[Any, list] = {}


def shape_of(t: Any) -> tuple:
    """t's shape as a plain tuple (cheaper than t.shape's Size, for bookkeeping)."""
    h = t._h
    return tuple(ffi.unpack(h.size, h.nDimension))


def storage_key(t: Any) -> Any:
    return t._h.storage


def version_of(t: Any) -> int:
    e = _versions.get(t._h.storage)
    return e[0] if e is not None else 0


def bump(t: Any) -> None:
    """An in-place op wrote t's storage."""
    e = _versions.get(t._h.storage)
    if e is not None:
        e[0] += 1


def track(t: Any) -> int:
    """Start (or keep) counting versions of t's storage; returns the current version."""
    k = storage_key(t)
    e = _versions.get(k)
    if e is None:
        e = _versions[k] = [0, 0]
    e[1] += 1
    return e[0]


def untrack(key: Any) -> None:
    e = _versions.get(key)
    if e is not None:
        e[1] -= 1
        if e[1] <= 0:
            del _versions[key]


class Meta:
    """Autograd state of one tensor."""

    __slots__ = (
        "accumulator",
        "base",
        "grad",
        "grad_fn",
        "hooks",
        "output_nr",
        "post_hooks",
        "requires_grad",
        "retains_grad",
        "tracked",
        "view_version",
    )

    def __init__(self, requires_grad: bool = False, grad_fn: Any = None, output_nr: int = 0):
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = grad_fn
        self.output_nr = output_nr
        self.accumulator = None   # weakref to the AccumulateGrad node of a leaf
        self.hooks = None         # a leaf's hooks (a list), run before accumulation
        self.post_hooks = None    # a leaf's hooks (a list), run after accumulation
        self.retains_grad = False
        self.base = None          # for a view of a tensor in the graph: the viewed tensor
        self.view_version = 0
        self.tracked = None       # a view counts its storage's versions while it lives

    def track_view(self, t: Any) -> None:
        if self.tracked is not None:
            untrack(self.tracked)
        self.view_version = track(t)
        self.tracked = storage_key(t)
        self.__class__ = _TrackedMeta   # only these need a finalizer (a Python call per death)


class _TrackedMeta(Meta):
    """The Meta of a view that counts its storage's versions while it lives."""

    __slots__ = ()

    def __del__(self) -> None:
        if self.tracked is not None:
            untrack(self.tracked)


class Info:
    """What a formula may ask of an input it did not save: its shape and dtype."""

    __slots__ = ("_shape", "dtype")

    def __init__(self, t: Any, shape: tuple | None = None) -> None:
        self._shape = shape_of(t) if shape is None else shape
        self.dtype = t.dtype

    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    def size(self, d: int | None = None) -> Any:
        return self.shape if d is None else self._shape[d]


# ---- nodes -------------------------------------------------------------------------------------

_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
          "after they have already been freed). Saved intermediate values of the graph are freed "
          "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
          "backward through the graph a second time or if you need to access saved tensors after "
          "calling backward.")


class Node:
    """A step of the backward pass: gradients of its outputs in, of its inputs out."""

    __slots__ = (
        "__weakref__",
        "_hooks",
        "_pre_hooks",
        "_retained",
        "_seq",
        "_tensor_hooks",
        "_trace",
        "metadata",
        "next_functions",
    )

    n_outputs = 1   # subclasses with several outputs keep theirs in a slot

    def __init__(self, next_functions: tuple = ()) -> None:
        self.next_functions = next_functions
        self._seq = next(_seq)
        self._hooks = self._pre_hooks = self._tensor_hooks = self._retained = None
        self._trace = None
        self.metadata = None

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def __call__(self, *grads: Any) -> Any:
        r = self.apply(list(grads))
        return r[0] if len(r) == 1 else tuple(r)

    def apply(self, grads: list) -> list:
        raise NotImplementedError

    def release(self) -> None:
        """Frees what backward needed (after a backward without retain_graph)."""

    def register_hook(self, fn: Any) -> Any:
        """fn(grad_inputs, grad_outputs) after this node ran; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return _Handle(self._hooks, fn)

    def register_prehook(self, fn: Any) -> Any:
        """fn(grad_outputs) before this node runs; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        return _Handle(self._pre_hooks, fn)

    def _add_tensor_hook(self, nr: int, fn: Any) -> Any:
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        hooks = self._tensor_hooks.setdefault(nr, [])
        hooks.append(fn)
        return _Handle(hooks, fn)


class _Handle:
    """What register_hook returns: .remove() takes the hook out."""

    __slots__ = ("fn", "hooks")

    def __init__(self, hooks: list, fn: Any) -> None:
        self.hooks, self.fn = hooks, fn

    def remove(self) -> None:
        try:
            self.hooks.remove(self.fn)
        except ValueError:
            pass

    def __enter__(self) -> _Handle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class AccumulateGrad(Node):
    """The end of the graph at a leaf: adds the gradient into leaf.grad."""

    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        super().__init__(())
        self.variable = variable

    def apply(self, grads: list) -> list:
        return []


def accumulator(t: Any) -> AccumulateGrad:
    m = t._ag
    node = m.accumulator() if m.accumulator is not None else None
    if node is None:
        node = AccumulateGrad(t)
        m.accumulator = weakref.ref(node)
    return node


# ---- saved tensors -----------------------------------------------------------------------------

class Saved:
    """A tensor a node keeps for its backward, with the version it had when saved.

    An output of the node itself is kept by its C handle alone (holding the Python tensor would
    make a cycle tensor -> node -> tensor); unpacking wraps the handle in a new Python tensor,
    given the node back as grad_fn under create_graph. Every change to that header (a `_`
    method, out=, `.data =`) bumps its storage's version or replaces the storage, both caught.
    """

    __slots__ = ("cls", "key", "owner", "requires_grad", "t", "version")

    def __init__(self, t: Any, owner: Any = None) -> None:
        h = t._h
        key = self.key = h.storage     # track(t), inlined: every saved tensor passes here
        e = _versions.get(key)
        if e is None:
            e = _versions[key] = [0, 0]
        e[1] += 1
        self.version = e[0]
        m = t._ag
        self.requires_grad = m is not None and (m.requires_grad or m.grad_fn is not None)
        if owner is not None:   # an output of the node: (node, output_nr)
            self.t, self.cls = h, type(t)
            self.owner = (weakref.ref(owner[0]), owner[1])  # no node<->saved cycle
        else:
            self.t, self.owner = t, None

    def unpack(self, node: Any = None) -> Any:
        t = self.t
        if self.owner is not None and t is not None:   # a new wrapper on the output's handle
            a = object.__new__(self.cls)
            a._h, a._ag, a._vb = t, None, None
            t = a
            if t._h.storage != self.key:    # set_ gave it another storage
                raise RuntimeError(_modified_message(t, self, self.version + 1, node))
        e = _versions.get(t._h.storage)      # version_of(t), inlined
        v = e[0] if e is not None else 0
        if v != self.version:
            raise RuntimeError(_modified_message(t, self, v, node))
        if self.owner is not None and self.requires_grad and _grad_state.enabled:
            # under create_graph the alias is given its node back, so the formula using it
            # is differentiable again; a plain backward reads it as data
            node = self.owner[0]()
            t._ag = Meta(False, node, self.owner[1]) if node is not None else None
        return t

    def release(self) -> None:
        if self.t is not None:
            e = _versions.get(self.key)   # untrack(self.key), inlined: the engine's hot path
            if e is not None:
                e[1] -= 1
                if e[1] <= 0:
                    del _versions[self.key]
            self.t = None

    def __del__(self) -> None:   # a graph dropped without a backward
        if self.t is not None:
            untrack(self.key)


def _modified_message(t: Any, s: Saved, v: int, node: Any) -> str:
    shape = "[" + ", ".join(str(n) for n in t.shape) + "]"
    what = f"[pyth.{type(t).__name__} {shape}]"
    m = t._ag
    if s.owner is not None:
        owner = s.owner[0]()
        name = owner.name() if owner is not None else "a freed node"
        what += f", which is output {s.owner[1]} of {name},"
    elif m is not None and m.grad_fn is not None:
        what += f", which is output {m.output_nr} of {m.grad_fn.name()},"
    used = f" (needed by {node.name()})" if node is not None else ""
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {what} is at version {v}; expected version {s.version} "
            f"instead{used}. Hint: enable anomaly detection to find the operation that failed "
            "to compute its gradient, with pyth.autograd.set_detect_anomaly(True).")
