"""Lean records for the commonest pointwise ops: unary ops with a C derivative (exp, tanh, ...)
and add / sub / mul of two tensors of one float dtype (broadcast or not) or a tensor and a
Python number, and full sums and means.

The table's general record (record.py) binds every argument by name, keeps each input's shape
and dtype for broadcasting the gradient back, and flattens list arguments. These calls need
none of that: the output has the inputs' dtype, so the node keeps its saved tensors, the one
constant the formula reads and, for two tensors of different shapes, the two shapes its
gradients sum back to; its backward is the table's own formula (one C call in a plain
backward, recorded ops under create_graph). The node is the table's class (`ExpBackward0`,
`MulBackward0`, ...); anything else (out=, keywords, other dtypes, anomaly mode) takes the
general record.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import dtypes as _dt
from .._errors import raise_error
from .._th import ffi
from ..tensor import Tensor
from . import grad_mode
from .graph import _FREED, _REVEAL, Info, Meta, Node, Saved, _seq
from .variable import edge_of

_state = grad_mode.state
_new, _gc = object.__new__, ffi.gc
_NO_EDGE = (None, 0)
_FLOATS = (_dt.float32, _dt.float64)
_NUMBERS = (float, int)
NOT_HANDLED = object()   # the general record takes the call

UNARY = ("exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
         "sinh", "cosh", "tanh", "sigmoid", "erf", "abs")
BINARY = ("add", "sub", "mul")


class PointwiseNode(Node):
    """A node of one of the ops above: the table's row (its first-order C calls or its
    formula) over the saved tensors.

    Every such node is made as this one class, and given its op's class (`MulBackward0`,
    `ExpBackward0`, ...: a subclass with no fields of its own) only when user code reaches it
    through `grad_fn` or `next_functions` (graph.reveal). The interpreter caches attribute
    access per exact class, so a step whose nodes are all of one class keeps those caches warm
    in its records, its backward and the engine (about 6 % of the tiny graph's step).
    """

    # c_grads: for unary ops with a C derivative {dtype: C <name>_backwardNew}, else None (the
    # row's own first, called on the saved handle without a wrapper); names: the formula's
    # names of the saved tensors; consts: the other values it reads
    # shapes: the two inputs' shapes when they differ (the gradients are summed back), else None
    __slots__ = ("c_grads", "consts", "n_outputs", "names", "op", "saved", "shapes")

    def name(self) -> str:
        return self.op.node_cls.__name__

    def apply(self, grads: list) -> list:
        saved = self.saved
        if saved is None:
            raise RuntimeError(_FREED)
        plain = not _state.enabled
        if plain:   # a plain backward: the C derivative in one call, where there is one
            c = self.c_grads
            if c is not None:
                g = grads[0]
                s = saved[0]
                fn = c.get(g.dtype) if s.cls is type(g) else None
                if fn is not None:   # s: the op's result (unary ops with a C derivative)
                    return [wrap_new(fn(g._h, s.handle(self)), type(g), g.dtype.tensor.free)]
        nexts = self._next
        if len(nexts) == 1:
            a = {"needs": (True,)}
        else:
            a = {"needs": (nexts[0][0] is not None, nexts[1][0] is not None)}
        if self.consts:
            a.update(self.consts)
        for name, s in zip(self.names, saved):
            a[name] = s.unpack(self)
        op = self.op
        res = None
        if plain and op.first is not None:
            res = op.first(grads[0], a)
        if res is None:
            res = op.backward(grads[0], a)
            if len(nexts) == 1:
                return [res]
        res = list(res)
        if self.shapes is not None:
            for i, shape in enumerate(self.shapes):
                if isinstance(res[i], Tensor):
                    res[i] = sum_to(res[i], shape)
        return res

    def release(self) -> None:
        if self.saved:   # a node that saved nothing can run again, as in PyTorch
            self.saved = None   # the Saved objects, and with them the tensors, go


# op name -> its node class (MulBackward0, ...), which reveal gives a node
_CLASSES: dict[str, type] = {}


def _reveal(node: PointwiseNode) -> None:
    name = node.op.name
    cls = _CLASSES.get(name)
    if cls is None:
        cls = _CLASSES[name] = type(node.op.node_cls.__name__, (PointwiseNode,),
                                    {"__slots__": ()})
    node.__class__ = cls


_REVEAL[PointwiseNode] = _reveal


# op name -> the c_grads of its nodes
_SPECS: dict[str, Any] = {}


def _node(op: Any, edges: tuple) -> PointwiseNode:
    """A node of op over edges: Node's and PointwiseNode's fields set in one
    frame (once per op: no constructor's frames)."""
    name = op.name
    if name not in _SPECS:
        _SPECS[name] = C_GRADS.get(name)
    node = _new(PointwiseNode)
    node.c_grads = _SPECS[name]
    node._next = edges
    node._seq = next(_seq)
    node._hooks = node._pre_hooks = node._tensor_hooks = node._retained = None
    node._trace = node.metadata = None
    node.n_outputs = 1
    node.saved = node.names = ()
    node.op = op
    node.consts = node.shapes = None
    return node


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """g summed over the dims that broadcasting added or expanded, back to shape."""
    gs = tuple(g.shape)
    if gs == shape:
        return g
    lead = len(gs) - len(shape)
    dims = list(range(lead)) + [lead + i for i, n in enumerate(shape) if n == 1 and gs[lead + i] != 1]
    if dims:
        g = g.sum(dims, keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g


def wrap_new(h: Any, cls: type, free: Any) -> Any:
    """A C call's new tensor h as a tensor of class cls outside autograd (or its error)."""
    if not h:
        raise_error()
    r = _new(cls)
    r._h = _gc(h, free)
    r._ag = r._vb = None
    return r


def _run(fn: Callable, *args: Any) -> Any:
    _state.enabled = False
    try:
        return fn(*args)
    finally:
        _state.enabled = True


# op name -> {tensor class: C <name>New} for the classes whose result keeps their dtype (filled
# by derivatives.install from pointwise's table)
DIRECT_UNARY: dict[str, dict[type, Any]] = {}
# op name -> pointwise's (tensor class, other's type) -> (C <name>New or <name>ScalarNew, result
# class, its C free, other is a tensor)
DIRECT_BINARY: dict[str, dict[tuple, tuple]] = {}
# unary op name -> {dtype: C <name>_backwardNew(grad, saved)}: the table's first-order formula
# for the ops whose derivative is a stamped C kernel (derivatives.C_GRADS)
C_GRADS: dict[str, dict] = {}

def _one_float(args: tuple) -> Any:
    """The call's one argument when it is a float32/float64 tensor, else None."""
    if len(args) != 1:
        return None
    x = args[0]
    return x if isinstance(x, Tensor) and x.dtype in _FLOATS else None


def unary(op: Any, fn: Callable, args: tuple) -> Any:
    """fn(x) recorded as op's node, or NOT_HANDLED."""
    if len(args) != 1:
        return NOT_HANDLED
    x = args[0]
    if not isinstance(x, Tensor) or x.dtype not in _FLOATS:
        return NOT_HANDLED
    e = edge_of(x)
    if e is None:
        return fn(x)
    c = DIRECT_UNARY[op.name].get(type(x)) if op.name in DIRECT_UNARY else None
    if c is not None:    # fn's own C call, without its frames
        r = wrap_new(c(x._h), type(x), x.dtype.tensor.free)
    else:
        r = _run(fn, x)
    node = _node(op, (e,))
    r._ag = Meta(False, node, 0)   # before saving r: its Saved records that it needs grad
    if op.saves_result:
        node.names, node.saved = ("result",), (Saved(r, (node, 0)),)
    elif op.save:
        node.names, node.saved = ("input",), (Saved(x),)
    return r


def binary(op: Any, fn: Callable, args: tuple) -> Any:
    """fn(x, y) for same-shape tensors of one float dtype, or a float tensor and a Python
    number, recorded as op's node; otherwise NOT_HANDLED."""
    if len(args) != 2:
        return NOT_HANDLED
    x, y = args
    if not isinstance(x, Tensor) or x.dtype not in _FLOATS:
        return NOT_HANDLED
    if isinstance(y, Tensor):
        return binary_same(op, fn, x, y) if y.dtype is x.dtype else NOT_HANDLED
    if type(y) in _NUMBERS:
        return binary_number(op, fn, x, y)
    return NOT_HANDLED


def binary_same(op: Any, fn: Callable, x: Any, y: Any) -> Any:
    """binary() for float tensors x and y of one dtype (the class operators call it directly
    for two tensors of their class), of one shape or broadcast."""
    ex = edge_of(x) if x._ag is not None else None
    ey = edge_of(y) if y._ag is not None else None
    if ex is None and ey is None:
        return fn(x, y)
    if x.dtype.tensor.isSameSizeAs(x._h, y._h):
        return _record_binary(op, fn, x, y, ex, ey)
    r = _record_binary(op, fn, x, y, ex, ey, False)
    r._ag.grad_fn.shapes = (tuple(x.shape), tuple(y.shape))
    return r


def binary_number(op: Any, fn: Callable, x: Any, y: Any) -> Any:
    """binary() for a float tensor x and a Python number y (the class operators call it
    directly for a Python float)."""
    ex = edge_of(x)
    if ex is None:
        return fn(x, y)
    return _record_binary(op, fn, x, y, ex, None)


def _record_binary(op: Any, fn: Callable, x: Any, y: Any, ex: Any, ey: Any,
                   direct: bool = True) -> Any:
    """fn(x, y) and its node; direct: by fn's own C call for one shape (else fn itself)."""
    c = DIRECT_BINARY[op.name].get((type(x), type(y))) if direct else None
    h = None
    if c is not None and (c[3] or type(y) is not int or
                          _dt.SCALAR_INT_MIN <= y <= _dt.SCALAR_INT_MAX):
        h = c[0](x._h, y._h if c[3] else y)   # fn's own C call, without its frames
    # (an int beyond any scalar argument is left to fn, which raises the proper error)
    if h:
        r = _new(c[1])
        r._h = _gc(h, c[2])
        r._vb = None
    else:
        r = _run(fn, x, y)
    node = _node(op, (ex or _NO_EDGE, ey or _NO_EDGE))
    tensor = isinstance(y, Tensor)
    key = (op, ex is None, ey is None, tensor)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = _save_plan(op, (ex, ey), tensor)
    names, of_x = plan
    node.names = names
    if len(of_x) == 2:
        node.saved = (Saved(x if of_x[0] else y), Saved(x if of_x[1] else y))
    elif of_x:
        node.saved = (Saved(x if of_x[0] else y),)
    node.consts = None if tensor else {"other": y}   # the number, as passed
    r._ag = Meta(False, node, 0)
    return r


# (op, x wants no gradient, y wants none, y is a tensor) -> what _record_binary saves
_PLANS: dict[tuple, tuple] = {}


def _save_plan(op: Any, edges: tuple, tensor: bool) -> tuple:
    """(names, of_x): the inputs op's formula reads, in its order, and for each whether it is
    x ("input") or y ("other"). An input kept only for the other operand's gradient is left out
    when that gradient is not wanted; a number y is a constant, not a saved tensor."""
    names, of_x = [], []
    for name, cond in op.save_if:
        if cond is not None and edges[cond] is None:
            continue
        if name == "input" or tensor:
            names.append(name)
            of_x.append(name == "input")
    return tuple(names), tuple(of_x)


def full_reduction(op: Any, fn: Callable, args: tuple) -> Any:
    """fn(x) of a float tensor over all its elements (x.sum(), x.mean()) recorded as op's
    node, which keeps x's shape alone; otherwise (dims, dtype=, ...) NOT_HANDLED. The C
    reduction is called directly (a float sum or mean keeps its dtype); the node is a unary
    op's (one input, nothing saved) whose formula also reads the input's shape."""
    x = _one_float(args)
    if x is None:
        return NOT_HANDLED
    e = edge_of(x)
    if e is None:
        return fn(x)
    c = x.dtype.tensor
    r = wrap_new(c.new(), type(x), c.free)
    if getattr(c, op.name)(r._h, x._h, 0, ffi.NULL, False):
        raise_error()
    node = _node(op, (e,))
    node.consts = {"input": Info(x), "dim": None, "keepdim": False}
    r._ag = Meta(False, node, 0)
    return r


REDUCTIONS = ("sum", "mean")


def fast_record(name: str) -> Callable | None:
    """The lean record for op name, or None."""
    if name in UNARY:
        return unary
    if name in BINARY:
        return binary
    if name in REDUCTIONS:
        return full_reduction
    return None
