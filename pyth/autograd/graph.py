"""The graph's pieces: per-tensor autograd state, nodes, saved tensors, version counters.

A tensor that takes part in autograd carries one `Meta` in its `_ag` slot (None for every
other tensor: that None is the one check an op makes before doing autograd work). A node
(`grad_fn`) holds `next_functions`, a tuple of (node, output number) edges, one per input it
differentiates, and what its backward needs. Leaves that require grad get an `AccumulateGrad`
node, created on first use and cached weakly, which adds the gradient into `.grad`.

Versions: in-place ops bump a counter kept in the C storage (`THStorage.version`, shared by
every view of it, as PyTorch's version counter is shared by views). A saved tensor remembers the
version it had; unpacking compares. Until the first tensor is saved (or viewed in the graph) no
version can be watched, so in-place ops skip the bump (`counting`): code that never records a
graph pays one list read per in-place op.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

from .._size import Size
from .._th import ffi
from ..tensor import Tensor
from .grad_mode import state as _grad_state

_seq = itertools.count()

# whether any version can be watched yet (set by the first saved tensor or tracked view)
counting = [False]


def shape_of(t: Any) -> tuple:
    """t's shape as a plain tuple (cheaper than t.shape's Size, for bookkeeping)."""
    h = t._h
    return tuple(ffi.unpack(h.size, h.nDimension))


def version_of(t: Any) -> int:
    return t._h.storage.version


def bump(t: Any) -> None:
    """An in-place op wrote t's storage."""
    t._h.storage.version += 1


# ---- out= (read by every op's out= path in pyth/_ops.py) ---------------------------------

def _outs(out: Any) -> tuple:
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def out_requires_grad(out: Any) -> bool:
    """Whether an out= tensor (or one of a tuple of them) requires grad."""
    for o in _outs(out):
        m = getattr(o, "_ag", None)
        if m is not None and (m.requires_grad or m.grad_fn is not None):
            return True
    return False


def bump_out(out: Any) -> None:
    """out= wrote these tensors: their versions move on, as an in-place op's do, so a node
    that saved one of them refuses to use the overwritten values."""
    if counting[0]:
        for o in _outs(out):
            if isinstance(o, Tensor):
                bump(o)


def out_error(name: str) -> RuntimeError:
    return RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad.")


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

    def track_view(self, t: Any) -> None:
        """t, a view in the graph, notices when its base is written (from now on)."""
        counting[0] = True
        self.view_version = t._h.storage.version


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
        "_next",
        "_pre_hooks",
        "_retained",
        "_seq",
        "_tensor_hooks",
        "_trace",
        "metadata",
    )

    n_outputs = 1   # subclasses with several outputs keep theirs in a slot

    def __init__(self, next_functions: tuple = ()) -> None:
        self._next = next_functions
        self._seq = next(_seq)
        self._hooks = self._pre_hooks = self._tensor_hooks = self._retained = None
        self._trace = None
        self.metadata = None

    @property
    def next_functions(self) -> tuple:
        """(node, output number) per input: where its gradient goes (None: nowhere). The
        library itself reads the `_next` slot; this is the public view, whose nodes show their
        op's class (see reveal)."""
        for n, _ in self._next:
            reveal(n)
        return self._next

    @next_functions.setter
    def next_functions(self, edges: tuple) -> None:
        self._next = edges

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"

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


# Node classes whose instances stand for several ops' classes until user code reaches them:
# class -> fn(node), which gives the node its op's class (see pointwise_nodes). The lean
# pointwise nodes of a step are all of one class, so the interpreter's attribute caches, which
# key on the exact class, stay valid across the step's records and backward (about 6 % of the
# tiny graph's step); Tensor.grad_fn and next_functions show MulBackward0, ExpBackward0, ...
_REVEAL: dict[type, Any] = {}


def reveal(node: Any) -> Any:
    """node, shown as its op's class (a no-op for every node but an unrevealed lean one)."""
    f = _REVEAL.get(type(node))
    if f is not None:
        f(node)
    return node


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
    if node is None:   # a new one in every training step: AccumulateGrad(t) without two frames
        node = object.__new__(AccumulateGrad)
        Node.__init__(node)
        node.variable = t
        m.accumulator = weakref.ref(node)
    return node


# ---- saved tensors -----------------------------------------------------------------------------

class Saved:
    """A tensor a node keeps for its backward, with the version it had when saved.

    An output of the node itself is kept by its C handle and output number alone (holding the
    Python tensor would make a cycle tensor -> node -> tensor); the node unpacks it naming
    itself, which wraps the handle in a new Python tensor, given the node back as grad_fn under
    create_graph. Every change to that header (a `_` method, out=, `.data =`) bumps its
    storage's version or replaces the storage, both caught.
    """

    __slots__ = ("cls", "key", "owner", "requires_grad", "t", "version")

    def __init__(self, t: Any, owner: Any = None) -> None:
        h = t._h
        key = self.key = h.storage
        self.version = key.version
        counting[0] = True
        self.cls = type(t)
        if owner is not None:   # an output of the node: (node, output_nr)
            self.t = h
            self.owner = owner[1]   # the number alone: the node unpacks, naming itself
            m = t._ag   # (read by unpack for an output alone)
            self.requires_grad = m is not None and (m.requires_grad or m.grad_fn is not None)
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
        v = t._h.storage.version
        if v != self.version:
            raise RuntimeError(_modified_message(t, self, v, node))
        if self.owner is not None and self.requires_grad and _grad_state.enabled:
            # under create_graph the alias is given its node back, so the formula using it
            # is differentiable again; a plain backward reads it as data
            t._ag = Meta(False, node, self.owner) if node is not None else None
        return t

    def handle(self, node: Any = None) -> Any:
        """The saved tensor's C handle, version-checked as unpack does, without a new wrapper
        (for a first-order C derivative, which reads the handle alone)."""
        t = self.t
        if self.owner is None or t is None:
            return self.unpack(node)._h
        st = t.storage
        if st != self.key or st.version != self.version:
            return self.unpack(node)._h   # raises the message
        return t

    def release(self) -> None:
        """Lets the tensor go (a node's release drops its Saved objects, which does the same)."""
        self.t = None


def _op_name(node: Any) -> str:
    """A node's op as PyTorch's version error names it: ExpBackward0 -> Exp."""
    name = node.name()
    base = name.rstrip("0123456789")
    return base[:-len("Backward")] if base.endswith("Backward") and base != "Backward" else name


def _modified_message(t: Any, s: Saved, v: int, node: Any) -> str:
    shape = "[" + ", ".join(str(n) for n in t.shape) + "]"
    what = f"[pyth.{type(t).__name__} {shape}]"
    m = t._ag
    if s.owner is not None:
        name = _op_name(node) if node is not None else "its node"
        what += f", which is output {s.owner} of {name},"
    elif m is not None and m.grad_fn is not None:
        what += f", which is output {m.output_nr} of {_op_name(m.grad_fn)},"
    return ("one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {what} is at version {v}; expected version {s.version} "
            "instead. Hint: enable anomaly detection to find the operation that failed to "
            "compute its gradient, with pyth.autograd.set_detect_anomaly(True, "
            "check_nan=False).")
