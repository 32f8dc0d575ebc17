"""Recording: the wrapper each differentiable op runs through.

`Op` is one row of the derivatives table (pyth/autograd/derivatives): the op's name, which of its
arguments are differentiable, which it saves, and its backward formula. `differentiable(op,
fn)` wraps fn (the existing forward) so that:

* when no argument carries autograd state (`_ag is None`, the common case) it calls fn at
  once: one attribute check per tensor argument is the whole cost;
* otherwise, with grad enabled and some input requiring grad, it runs fn without recording,
  makes a node of the op's class (MulBackward0 ...) whose next_functions are the inputs' edges,
  saves what the formula needs (with versions) and attaches the node to the result.

In-place ops (`t.add_(x)`, `t[i] = v`, copy_ ...) bump the version of what they write, refuse
a leaf that requires grad, and become the new grad_fn of what they modified; on a view of a
tensor in the graph the base's history is rewritten too (CopySlices), as PyTorch does.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from ..overrides import LOOK_INTO as _LOOK_INTO, TYPES as _OVERRIDING, handle_torch_function
from ..tensor import Tensor, wrap
from . import grad_mode, pointwise_nodes
from .pointwise_nodes import sum_to
from .anomaly import _anomaly, remember
from .view_nodes import (_MULTI_VIEW, NoGradView, geometry, is_multi_view,  # noqa: F401
                         multi_view_message, view_base)
from .graph import (_FREED, Info, Meta, Node, Saved, _seq, bump, bump_out, counting,  # noqa: F401
                    out_error, out_requires_grad, shape_of, version_of)
from .variable import edge_of

_state = grad_mode.state


class Op:
    """One row of the derivatives table."""

    __slots__ = (
        "add_into",
        "backward",
        "conditional",
        "diff",
        "diff_set",
        "first",
        "inplace",
        "list_args",
        "name",
        "node_cls",
        "outputs",
        "prepare",
        "save",
        "save_if",
        "saves_result",
        "saves_tensors",
        "view",
    )

    def __init__(self, name: str, diff: str, backward: Callable, save: str = "",
                 view: bool = False, outputs: tuple = (0,), node: str | None = None,
                 first: Callable | None = None) -> None:
        self.name = name
        self.diff = tuple(diff.split())
        self.save = tuple(save.split())
        self.backward = backward
        # first(grad, args) -> the gradients by direct C calls for a plain backward (grad mode
        # off), or None to run the formula; under create_graph the formula always runs, so
        # every order of derivative exists
        self.first = first
        self.view = view
        self.outputs = outputs      # which outputs of a tuple result are differentiable
        cls_name = node or ("".join(p.capitalize() for p in name.strip("_").split("_")) +
                            "Backward0")
        self.node_cls = type(cls_name, (FormulaNode,), {"__slots__": ()})
        self.saves_tensors = bool(self.save)
        self.saves_result = "result" in self.save
        self.diff_set = frozenset(self.diff)
        self.list_args = bool(self.diff_set & {"tensors", "shape_or_tensors"})
        self.conditional = any("@" in n for n in self.save)
        # (name, index in diff of the input whose gradient needs it, or None: always)
        self.save_if = tuple((n.partition("@")[0], self.diff.index(n.partition("@")[2])
                              if n.partition("@")[2] in self.diff else None) for n in self.save)
        if "result" in self.save and self.conditional:
            raise ValueError("a conditional save list cannot hold result")
        self.prepare = None         # prepare(args) -> extra entries the formula needs
        # add_into(buffer, grad, args) -> whether it added grad's contribution into buffer (the
        # input's gradient so far, private to the engine) in place; None: the formula runs
        self.add_into = None


class FormulaNode(Node):
    """A node whose backward is a formula of the table."""

    __slots__ = ("args", "inputs", "n_outputs", "op", "outs", "saved")

    def apply(self, grads: list) -> list:
        args = self.args
        if args is None:
            raise RuntimeError(_FREED)
        a = dict(args)    # (record_node put "needs" there already)
        inputs = self.inputs
        if inputs is not None:
            a["needs"] = tuple(m is not None for m in inputs)
        for k, s in self.saved.items():
            a[k] = [x.unpack(self) if x is not None else None for x in s] if \
                isinstance(s, list) else s.unpack(self)
        if self.n_outputs == 1:
            g = grads[0]
        else:
            g = [x if x is not None else _zeros(shape, dt) if shape is not None else None
                 for x, (shape, dt) in zip(_pad(grads, self.n_outputs), self.outs)]
        op = self.op
        res = op.first(g, a) if op.first is not None and not _state.enabled else None
        if res is None:
            res = op.backward(g, a)
        if inputs is None:   # a lean record (record_node): gradients in their inputs' shapes
            return list(res) if isinstance(res, (tuple, list)) else [res]
        if len(inputs) == 1 and not isinstance(res, (tuple, list)):
            res = (res,)
        elif self.op.list_args and any(isinstance(r, list) for r in res):
            flat = []
            for r in res:
                flat.extend(r) if isinstance(r, list) else flat.append(r)
            res = flat
        return fit_all(self, res, inputs)

    def release(self) -> None:
        if self.saved:
            for s in self.saved.values():
                for x in (s if isinstance(s, list) else (s,)):
                    if x is not None:
                        x.release()
            self.saved = {}
            self.args = None


def _pad(grads: list, n: int) -> list:
    return grads + [None] * (n - len(grads)) if len(grads) < n else grads


def _zeros(shape: tuple, dt: Any) -> Tensor:
    from .._prims.creation import zeros
    return zeros(shape, dtype=dt)


class IncompatibleGradient(RuntimeError):
    """A gradient no summing brings to its tensor's shape (the caller names the node)."""


def expandable(shape: tuple, grad_shape: tuple) -> bool:
    """Whether shape broadcasts to grad_shape, so that a gradient of grad_shape sums back to
    shape (PyTorch's is_expandable_to)."""
    n = len(shape)
    lead = len(grad_shape) - n
    if lead < 0:
        return False
    for i in range(n):
        s = shape[i]
        if s != 1 and s != grad_shape[lead + i]:
            return False
    return True


def cast_grad(g: Tensor, dt: Any) -> Tensor:
    """g in its tensor's dtype dt, as PyTorch's engine casts one (a complex gradient for a
    real tensor, or a non-float one for a complex tensor, is refused)."""
    if not g.dtype.is_floating_point and g.dtype.is_complex != dt.is_complex:
        raise RuntimeError("Expected isFloatingType(grad.scalar_type()) || (input_is_complex "
                           "== grad_is_complex) to be true, but got false.")
    return g.to(dt)


def _fit(r: Any, meta: Any) -> Any:
    """A node's gradient for one input, checked against that input (its shape and dtype, as
    recorded): the same shape passes, a shape the input broadcasts to is summed back to it
    (IncompatibleGradient otherwise), another dtype is cast. A formula may give a number."""
    if r is None or meta is None:
        return None
    shape, dt = meta
    if not isinstance(r, Tensor):
        from .._prims.creation import full
        return full(shape, r, dtype=dt)
    rs = shape_of(r)
    if rs != shape:
        if not expandable(shape, rs):
            raise IncompatibleGradient(rs, shape)
        r = sum_to(r, shape)
    if r.dtype is not dt:
        r = cast_grad(r, dt)
    return r


def fit_all(node: Any, res: Any, metas: list) -> list:
    """_fit over a node's gradients for its inputs; an incompatible one raises PyTorch's
    message, naming the node and the input's index."""
    try:
        return [_fit(r, meta) for r, meta in zip(res, metas)]
    except IncompatibleGradient:
        for i, (r, meta) in enumerate(zip(res, metas)):
            if isinstance(r, Tensor) and meta is not None and \
                    not expandable(meta[0], shape_of(r)):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at "
                                   f"index {i} - got {list(shape_of(r))} but expected shape "
                                   f"compatible with {list(meta[0])}") from None
        raise


# ---- finding autograd state in arguments -------------------------------------------------------

_SEQUENCES = (list, tuple)
_RECORD, _DISPATCH = 1, 2


def _look_into(x: Any) -> int:
    """For an argument whose type is in pyth.overrides.LOOK_INTO: _DISPATCH when it (or an
    element of it) is of a type with __torch_function__, _RECORD when an element needs autograd,
    else 0. The ordinary path (no such argument) never calls this."""
    if type(x) in _OVERRIDING:
        return _DISPATCH
    for y in x:
        if isinstance(y, Tensor):
            if y._ag is not None:
                return _RECORD
        elif type(y) in _OVERRIDING:
            return _DISPATCH
        elif type(y) in _SEQUENCES and _has_ag(y, None):
            return _RECORD
    return 0


def _has_ag(args: tuple, kwargs: dict | None) -> bool:
    for x in args:
        if isinstance(x, Tensor):
            if x._ag is not None:
                return True
        elif type(x) in (list, tuple):
            for y in x:
                if isinstance(y, Tensor) and y._ag is not None:
                    return True
    if kwargs:
        for x in kwargs.values():
            if isinstance(x, Tensor) and x._ag is not None:
                return True
    return False


_RENAME = {"self": "input", "t": "input", "t1": "tensor1", "t2": "tensor2"}


def _binder(fn: Callable) -> Callable:
    """(args, kwargs) -> {parameter name: value, defaults included}, with `self` called
    `input` as in the function forms, so that a method and its function share one formula.
    (Built once per op from the signature; a call costs a dict and a zip.)"""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    rename = {p.name: _RENAME[p.name] for p in params
              if p.name in _RENAME and _RENAME[p.name] not in sig.parameters}
    pos = tuple(rename.get(p.name, p.name) for p in params
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    var_pos = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), None)
    defaults = {rename.get(p.name, p.name): p.default for p in params
                if p.default is not p.empty}
    npos = len(pos)

    def bind(args: tuple, kwargs: dict) -> dict:
        if len(args) > npos and var_pos is None:
            sig.bind(*args, **kwargs)      # raises the TypeError
        a = dict(zip(pos, args))          # self (input) first: in-place ops look for it there
        for k, v in defaults.items():
            if k not in a:
                a[k] = v
        if var_pos is not None:
            a[var_pos] = args[npos:]
        if kwargs:
            for k, v in kwargs.items():
                a[rename.get(k, k)] = v
        return a
    return bind


def _inputs(op: Op, a: dict) -> tuple[list, list]:
    """The differentiable inputs (flattened over list arguments) and their edges."""
    xs: list = []
    for name in op.diff:
        v = a.get(name)
        if isinstance(v, (list, tuple)) and name in ("tensors", "shape_or_tensors"):
            xs.extend(v)
        else:
            xs.append(v)
    edges = [edge_of(x) if isinstance(x, Tensor) else None for x in xs]
    return xs, edges


def _to_save(op: Op, xs: list, edges: list) -> tuple:
    """The names op saves for this call: `input@other` saves input only when other needs a
    gradient (mul's input serves only other's gradient)."""
    if not op.conditional:
        return op.save
    if len(xs) != len(op.diff):    # a list argument was flattened: save everything
        return tuple(name for name, _ in op.save_if)
    return tuple(name for name, cond in op.save_if if cond is None or edges[cond] is not None)


def _save(op: Op, a: dict, names: tuple) -> dict:
    saved = {}
    for name in names:
        if name == "result":
            continue
        v = a.get(name)
        if isinstance(v, Tensor):
            saved[name] = Saved(v)
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, Tensor) for x in v):
            saved[name] = [Saved(x) for x in v]
    return saved


def _args_kept(op: Op, a: dict, saved: dict | None = None) -> dict:
    """The non-tensor arguments (dims, scalars ...) as they are, tensors as their Info (not
    those in saved: backward reads the saved tensor under the same name)."""
    kept = {}
    diff = op.diff_set
    for k, v in a.items():
        if k not in diff:      # indices, masks, dims, scalars: kept as they are
            kept[k] = v
        elif saved and k in saved:
            continue
        elif isinstance(v, Tensor):
            kept[k] = Info(v)
        elif isinstance(v, (list, tuple)) and v and isinstance(v[0], Tensor):
            kept[k] = [Info(x) if isinstance(x, Tensor) else x for x in v]
        else:
            kept[k] = v
    return kept


def _meta(x: Any) -> Any:
    if isinstance(x, Tensor) and x.dtype.is_floating_point:
        return (shape_of(x), x.dtype)
    return None


def _make_node(op: Op, a: dict, xs: list, edges: list) -> FormulaNode:
    node = op.node_cls(tuple(e if e is not None else (None, 0) for e in edges))
    node.op = op
    node.saved = saved = _save(op, a, _to_save(op, xs, edges))
    node.args = _args_kept(op, a, saved)
    if op.prepare is not None:
        node.args.update(op.prepare(a))
    node.inputs = [_meta(x) if e is not None else None for x, e in zip(xs, edges)]
    return node


def _attach(op: Op, node: FormulaNode, result: Any, a: dict, first: Any) -> None:
    """Makes node the grad_fn of result's differentiable outputs (saving result if asked)."""
    if isinstance(result, Tensor) and not op.view and op.outputs == (0,):
        # one output, not a view: the common case, without the general loop below
        node.n_outputs = 1
        if result.dtype.is_floating_point:
            node.outs = [(shape_of(result), result.dtype)]
            m = result._ag
            if m is None:
                result._ag = Meta(False, node, 0)
            else:
                m.grad_fn, m.output_nr = node, 0
        else:
            node.outs = [(None, None)]
        if op.saves_result:
            node.saved["result"] = Saved(result, (node, 0))
        return
    if isinstance(result, Tensor):
        outs = (result,)
    else:
        outs = tuple(result)
    node.n_outputs = len(outs)
    node.outs = [(shape_of(o), o.dtype) if isinstance(o, Tensor) and i in op.outputs and
                 o.dtype.is_floating_point else (None, None) for i, o in enumerate(outs)]
    for i, o in enumerate(outs):
        if i not in op.outputs or not isinstance(o, Tensor) or not o.dtype.is_floating_point:
            continue
        m = o._ag
        if m is None:
            o._ag = m = Meta(False, node, i)
        else:   # a tensor the op returned that already had state (should not happen)
            m.grad_fn, m.output_nr = node, i
        if (op.view or op.name in _MULTI_VIEW) and isinstance(first, Tensor) and \
                first._ag is not None and o._h.storage == first._h.storage:
            fm = first._ag
            m.base = fm.base if fm.base is not None else first
            m.track_view(o)
    if op.saves_result:
        r = outs[0] if len(outs) == 1 else outs
        if isinstance(r, Tensor):
            node.saved["result"] = Saved(r, (node, 0))
        else:
            node.saved["result"] = [Saved(o, (node, i)) if isinstance(o, Tensor) else None
                                    for i, o in enumerate(outs)]


# ---- the lean record of a kernel-backed op ------------------------------------------------------
#
# A layer that calls its own C kernels (pyth/nn/_*_kernels.py) knows its inputs, what its formula
# needs and the outputs it made, so it records its op's node directly instead of through
# differentiable()'s binding by name: the same FormulaNode, its fields set in one frame.
#
#     edges = next_edges(x, weight, bias)     # None: nothing to record
#     y = <forward kernel>
#     if edges is not None:
#         record_node(LINEAR, edges, y, save={"input": x, "weight": weight})
#
# Its formula's gradients are taken as they are: each must have its input's shape and dtype
# (the general record brings them there; these formulas are written to).

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


def record_node(op: Op, edges: tuple, result: Any, save: dict | None = None,
                args: dict | None = None) -> FormulaNode:
    """Makes op's node over the inputs whose edges next_edges gave (op.diff's order) the
    grad_fn of result (a tensor, or a tuple whose op.outputs are
    differentiable). save: name -> tensor (None allowed) for the formula, version-checked;
    "result" saves the output(s); args: a new dict of the other values the formula reads by
    name, which takes "needs" (one flag per edge) here."""
    node = _new(op.node_cls)
    node._next = edges
    node._seq = next(_seq)
    node._hooks = node._pre_hooks = node._tensor_hooks = node._retained = None
    node._trace = node.metadata = None
    node.op = op
    if args is None:
        args = {}
    args["needs"] = tuple([e[0] is not None for e in edges])
    node.args = args
    node.inputs = None   # the formula, ours, gives each gradient its input's shape and dtype
    saved = {}
    keep_result = False
    if save:
        for name, t in save.items():
            if name == "result":
                keep_result = True
            elif t is not None:
                saved[name] = Saved(t)
    node.saved = saved
    if isinstance(result, Tensor):
        node.n_outputs = 1
        node.outs = None   # (read for several outputs only)
        result._ag = Meta(False, node, 0)
        if keep_result:
            saved["result"] = Saved(result, (node, 0))
    else:
        outs = tuple(result)
        node.n_outputs = len(outs)
        node.outs = []
        for i, o in enumerate(outs):
            if i in op.outputs and isinstance(o, Tensor) and o.dtype.is_floating_point:
                node.outs.append((shape_of(o), o.dtype))
                o._ag = Meta(False, node, i)
            else:
                node.outs.append((None, None))
        if keep_result:
            saved["result"] = [Saved(o, (node, i)) if isinstance(o, Tensor) and
                               i in op.outputs else None for i, o in enumerate(outs)]
    if _anomaly[0]:
        remember(node)
    return node


def _no_tensor(args: tuple, start: int) -> bool:
    """Whether args[start:] hold no tensor (nor a list or tuple with one)."""
    for x in args[start:]:
        if isinstance(x, Tensor):
            return False
        if type(x) in _SEQUENCES:
            for y in x:
                if isinstance(y, Tensor):
                    return False
    return True


def _record_view(op: Op, fn: Callable, bind: Callable, args: tuple) -> Any:
    """record() for a view op of one tensor (the first argument) and positional non-tensor
    arguments, the usual call (x.view(-1), x.t(), x[0]): the node _make_node and _attach would
    make, built in one frame (the general path costs about three times as much)."""
    x = args[0]
    e = edge_of(x) if isinstance(x, Tensor) else None
    if e is None:
        return fn(*args)
    _state.enabled = False
    try:
        r = fn(*args)
    finally:
        _state.enabled = True
    if r is x or not isinstance(r, Tensor):
        return r
    a = bind(args, {})
    shape, dt = shape_of(x), x.dtype
    node = _new(op.node_cls)
    node._next = (e,)
    node._seq = next(_seq)
    node._hooks = node._pre_hooks = node._tensor_hooks = node._retained = None
    node._trace = node.metadata = None
    node.op = op
    node.saved = {}
    a["input"] = Info(x, shape)
    node.args = a
    node.inputs = [(shape, dt)]
    node.n_outputs = 1
    node.outs = [(shape_of(r), r.dtype)]
    m = r._ag
    if m is None:
        r._ag = m = Meta(False, node, 0)
    else:   # (as _attach: a result that already had state takes the node)
        m.grad_fn, m.output_nr = node, 0
    if r._h.storage == x._h.storage:   # a view (reshape may copy): it tracks its base
        fm = x._ag
        m.base = fm.base if fm.base is not None else x
        m.track_view(r)
    return r


_new = object.__new__


def _out_error(op: Op) -> RuntimeError:
    return out_error(op.name)


def differentiable(op: Op, fn: Callable, sig: Callable | None = None) -> Callable:
    """fn, recording op's node when an input requires grad and grad mode is on (its arguments
    named as sig's parameters: fn's own by default)."""
    bind = _binder(sig or fn)

    lean_view = op.view and not op.saves_tensors and op.outputs == (0,) and op.diff == ("input",)

    def record(args: tuple, kwargs: dict) -> Any:
        if not _state.enabled:
            return _written(fn(*args, **kwargs), kwargs)
        if lean_view and not kwargs and not _anomaly[0] and op.prepare is None and \
                _no_tensor(args, 1):
            return _record_view(op, fn, bind, args)
        a = bind(args, kwargs)
        xs, edges = _inputs(op, a)
        out = a.get("out")
        if out is not None:
            if any(e is not None for e in edges) or out_requires_grad(out):
                raise _out_error(op)
            r = fn(*args, **kwargs)
            bump_out(out)
            return r
        if not any(e is not None for e in edges):
            return fn(*args, **kwargs)
        _state.enabled = False
        try:
            result = fn(*args, **kwargs)
        finally:
            _state.enabled = True
        for x in xs:   # an op that returned an input unchanged (contiguous, to) records nothing
            if result is x:
                return result
        node = _make_node(op, a, xs, edges)
        _attach(op, node, result, a, xs[0] if xs else None)
        if _anomaly[0]:
            remember(node)
        return result

    fast = None if op.view else pointwise_nodes.fast_record(op.name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for x in args:     # the one check of the common path: any autograd state at all?
            if isinstance(x, Tensor):
                if x._ag is not None:
                    if fast is not None and not kwargs and _state.enabled and \
                            not _anomaly[0]:
                        r = fast(op, fn, args)
                        if r is not pointwise_nodes.NOT_HANDLED:
                            return r
                    return record(args, kwargs)
            elif type(x) in _LOOK_INTO:   # a list or tuple, or an overriding type
                found = _look_into(x)
                if found == _RECORD:
                    return record(args, kwargs)
                if found == _DISPATCH:
                    return handle_torch_function(wrapper, args, *args, **kwargs)
        if kwargs:
            if _has_ag((), kwargs):
                return record(args, kwargs)
            return _written(fn(*args, **kwargs), kwargs)
        return fn(*args, **kwargs)
    if op.view:
        wrapper = _view_wrapper(fn, record, op.name in _MAY_COPY)
    else:   # for operators that call the lean record themselves (derivatives._binop)
        wrapper.lean = None if fast is None else (fast, op, fn)
    wrapper.__name__ = getattr(fn, "__name__", op.name)
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    wrapper.__wrapped__ = fn
    return wrapper


# ---- out= ------------------------------------------------------------------------------------

def _written(r: Any, kwargs: dict) -> Any:
    out = kwargs.get("out")
    if out is not None:
        bump_out(out)
    return r


# ---- views remember their base -----------------------------------------------------------------


_MAY_COPY = frozenset(("reshape", "reshape_as", "flatten", "getitem"))


def _view_wrapper(fn: Callable, record: Callable, may_copy: bool) -> Callable:
    """differentiable()'s wrapper for a view op: besides recording, the result remembers its
    input's root base (`_vb`, PyTorch's `_base`), so that an in-place op on the view can rewrite
    the base's history even when the base was not in the graph (CopySlices). may_copy: the op
    returns a copy for some inputs (reshape, advanced indexing), told apart by the storage."""
    def view(*args: Any, **kwargs: Any) -> Any:
        for x in args:
            if isinstance(x, Tensor):
                if x._ag is not None:
                    r = record(args, kwargs)
                    break
            elif type(x) in _LOOK_INTO:
                found = _look_into(x)
                if found == _DISPATCH:
                    return handle_torch_function(view, args, *args, **kwargs)
                if found == _RECORD:
                    r = record(args, kwargs)
                    break
        else:
            r = record(args, kwargs) if kwargs and _has_ag((), kwargs) else fn(*args, **kwargs)
        if args:
            first = args[0]
            if r is not first and (not may_copy or r._h.storage == first._h.storage):
                mark_view(r, first)
        return r
    return view


def mark_view(r: Tensor, first: Any) -> None:
    """r, a view of first, remembers first's root base (`_vb`); with grad mode off, wrapped as
    a NoGradView."""
    vb = getattr(first, "_vb", None)
    if not _state.enabled:
        if type(vb) is not NoGradView:   # a view of a no_grad view shares its mark
            vb = NoGradView(first if vb is None else vb)
    elif vb is None:
        vb = first
    r._vb = vb


# ---- in-place ops --------------------------------------------------------------------------------

_LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
_LEAF_VIEW = "a view of a leaf Variable that requires grad is being used in an in-place operation."
_NO_GRAD_VIEW = ("A view was created in no_grad mode and is being modified inplace with grad mode "
                 "enabled. Given that this use case is ambiguous and error-prone, it is "
                 "forbidden. You can clarify your code by moving both the view and the inplace "
                 "either both inside the no_grad block (if you don't want the inplace to be "
                 "tracked) or both outside (if you want the inplace to be tracked).")


def in_place(op: Op | None, fn: Callable) -> Callable:
    """fn(self, ...) writing self: versions bumped; recorded as op when in the graph (op None:
    not differentiable, the result is cut from the graph)."""
    bind = _binder(fn)

    def record(args: tuple, kwargs: dict) -> Any:
        self = args[0]
        if not _state.enabled:
            r = fn(*args, **kwargs)
            bump(self)
            return r
        m = self._ag
        if m is not None:
            if m.grad_fn is None and m.requires_grad:
                raise RuntimeError(_LEAF)
            if m.base is not None:
                bm = m.base._ag
                if bm is not None and bm.grad_fn is None and bm.requires_grad:
                    raise RuntimeError(_LEAF_VIEW)
        if op is None:
            r = fn(*args, **kwargs)
            bump(self)
            if m is not None and m.grad_fn is not None:
                m.grad_fn = None   # no longer depends on anything differentiable
            return r
        a = bind(args, kwargs)
        xs, edges = _inputs(op, a)
        if not any(e is not None for e in edges):
            r = fn(*args, **kwargs)
            bump(self)
            if m is not None and m.grad_fn is not None and m.base is None:
                m.grad_fn = None
            return r
        base = m.base if m is not None else None
        if base is not None and is_multi_view(m.grad_fn):
            raise RuntimeError(multi_view_message(m.output_nr, m.grad_fn))
        if base is None:     # a view of a tensor outside the graph: the base joins it
            vb = getattr(self, "_vb", None)
            if type(vb) is NoGradView:
                node = m.grad_fn if m is not None else None
                if node is not None and (node.n_outputs > 1 or is_multi_view(node)):
                    raise RuntimeError(multi_view_message(m.output_nr, node))
                raise RuntimeError(_NO_GRAD_VIEW)
            base = vb
        old = None
        names = _to_save(op, xs, edges)
        if next(iter(a)) in names or any(x is not self and isinstance(x, Tensor) and
                                     x._h.storage == self._h.storage for x in xs[1:]):
            old = self.clone()   # recorded: double backward reaches self's old history
        node = op.node_cls(tuple(e if e is not None else (None, 0) for e in edges))
        node.op = op
        node.args = _args_kept(op, a)
        if op.prepare is not None:
            node.args.update(op.prepare(a))
        sa = dict(a)
        if old is not None:
            for k, v in a.items():
                if isinstance(v, Tensor) and v._h.storage == self._h.storage:
                    sa[k] = old
        node.saved = _save(op, sa, names)
        node.inputs = [_meta(x) if e is not None else None for x, e in zip(xs, edges)]
        view_geom = None
        if base is not None:
            view_geom = geometry(self)
            base_edge = edge_of(base)
        _state.enabled = False
        try:
            r = fn(*args, **kwargs)
        finally:
            _state.enabled = True
        bump(self)
        if m is None:
            self._ag = m = Meta(False)
        if view_geom is not None:
            from .view_nodes import CopySlices, view_of_base_node
            cs = CopySlices(base, view_geom, node, base_edge)
            bmeta = base._ag
            if bmeta is None:
                base._ag = bmeta = Meta(False)
            bmeta.grad_fn, bmeta.output_nr = cs, 0
            m.grad_fn, m.output_nr = view_of_base_node(base, self, (cs, 0)), 0
            if m.base is None:
                m.base = base
                m.track_view(self)
            m.view_version = version_of(self)
        else:
            m.grad_fn, m.output_nr = node, 0
        node.n_outputs = 1
        node.outs = [(tuple(self.shape), self.dtype)]
        if "result" in op.save:
            node.saved["result"] = Saved(self, (node, 0))
        if _anomaly[0]:
            remember(node)
        return r

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _has_ag(args, kwargs):
            return record(args, kwargs)
        r = fn(*args, **kwargs)
        if counting[0]:
            bump(args[0])
        return r
    wrapper.__name__ = getattr(fn, "__name__", "inplace")
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    wrapper.__wrapped__ = fn
    return wrapper


def alias(t: Tensor) -> Tensor:
    r = wrap(t.dtype, t.dtype.tensor.newWithTensor(t._h))
    r._ag = None
    return r
