"""Custom differentiable functions: subclass Function, write forward and backward.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y

    Exp.apply(x)

The ctx is the node itself (as in PyTorch): `<Name>Backward` in the graph.
"""

from __future__ import annotations

import functools
from typing import Any

from ..tensor import Tensor
from . import grad_mode
from .graph import _FREED, Meta, Node, Saved, bump, shape_of
from .record import Op, _meta, fit_all, next_edges, record_node
from .variable import edge_of


class FunctionCtx:
    """What forward may tell backward (mixed into the node a Function records)."""

    def save_for_backward(self, *tensors: Any) -> None:
        self._to_save = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        saved = self.__dict__.get("_saved")
        if saved is None:
            if self.__dict__.get("_released"):
                raise RuntimeError(_FREED)
            return tuple(self.__dict__.get("_to_save", ()))
        return tuple(s.unpack(self) if isinstance(s, Saved) else s for s in saved)

    saved_variables = saved_tensors


class BackwardCFunction(Node, FunctionCtx):
    """The node of one Function.apply call; also its ctx."""

    def apply(self, grads: list) -> list:
        d = self.__dict__
        if d.get("_released"):
            raise RuntimeError(_FREED)
        if d.get("_materialize", True):
            grads = [g if g is not None or shape is None else zeros(shape, dtype=dt)
                     for g, (shape, dt) in zip(grads + [None] * (len(d["_outs"]) - len(grads)),
                                               d["_outs"])]
        res = self._cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(d["_inputs"])
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                                   f"gradients (expected {n}, got {len(res)})")
        is_tensor = d["_tensor_args"]
        for i, r in enumerate(res):   # PyTorch's checks, in its order, then the engine's
            if r is None:
                continue
            if not is_tensor[i]:
                raise RuntimeError(f"function {self.name()} returned a gradient different "
                                   f"than None at position {i + 1}, but the corresponding "
                                   "forward input was not a Variable")
            if not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
        return fit_all(self, res, d["_inputs"])

    def release(self) -> None:
        d = self.__dict__
        saved = d.get("_saved")
        if saved:
            for s in saved:
                if isinstance(s, Saved):
                    s.release()
            d["_saved"] = None
            d["_released"] = True


class _FunctionMeta(type):
    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_cls": cls})


class Function(metaclass=_FunctionMeta):
    """Base class of custom ops: static forward(ctx, *args) and backward(ctx, *grads)."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        return NotImplemented

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """forward(ctx, *args) with grad mode off, its outputs given the ctx as grad_fn when an
        input needs a gradient; the bookkeeping of mark_dirty, mark_non_differentiable and
        save_for_backward only when forward used them."""
        state = grad_mode.state
        enabled = state.enabled
        edges = []
        record = False
        for a in args:
            if isinstance(a, Tensor) and a._ag is not None:
                e = edge_of(a)
                if e is not None:
                    record = True
                    edges.append(e)
                    continue
            edges.append(None)
        record = record and enabled
        node = cls._backward_cls(tuple(e if e is not None else _NO_EDGE for e in edges))
        node.needs_input_grad = tuple(e is not None for e in edges)
        state.enabled = False
        try:
            if cls.setup_context is not _DEFAULT_SETUP:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, out)
            else:
                out = cls.forward(node, *args, **kwargs)
        finally:
            state.enabled = enabled
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        d = node.__dict__
        dirty = d.get("_dirty", ())
        if not record:
            for t in dirty:
                bump(t)
            if "_to_save" in d:
                _save(node, outs, record=False)
            return out
        non_diff = d.get("_non_diff", ())
        d["_inputs"] = [_meta(a) if e is not None else None for a, e in zip(args, edges)]
        d["_tensor_args"] = tuple(isinstance(a, Tensor) for a in args)
        new_outs = []
        metas = []
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                new_outs.append(o)
                metas.append((None, None))
                continue
            if dirty and _among(o, dirty):
                bump(o)
                m = o._ag
                if m is not None and m.grad_fn is None and m.requires_grad:
                    raise RuntimeError("a leaf Variable that requires grad is being used in an "
                                       "in-place operation.")
            elif _among(o, args):   # an input returned as is: an alias in the graph
                o = alias(o)
            metas.append((shape_of(o), o.dtype))
            new_outs.append(o)
            if non_diff and _among(o, non_diff) or not o.dtype.is_floating_point:
                continue
            m = o._ag
            if m is None:
                o._ag = Meta(False, node, i)
            else:
                m.grad_fn, m.output_nr = node, i
        d["_outs"] = metas
        node.n_outputs = len(new_outs)
        if "_to_save" in d:
            _save(node, new_outs, record=True)
        if anomaly.enabled():
            anomaly.remember(node)
        return new_outs[0] if single else tuple(new_outs)


_NO_EDGE = (None, 0)
_DEFAULT_SETUP = Function.setup_context


def _among(t: Any, seq: Any) -> bool:
    """Whether t is (by identity) one of seq."""
    for x in seq:
        if x is t:
            return True
    return False


def _save(node: Any, outs: Any, record: bool) -> None:
    d = node.__dict__
    to_save = d.pop("_to_save", None)
    if to_save is None:
        return
    saved = []
    for t in to_save:
        if not isinstance(t, Tensor):
            saved.append(t)
            continue
        pos = next((i for i, o in enumerate(outs) if o is t), None)
        if pos is not None and record:
            saved.append(Saved(t, (node, pos)))
        else:
            saved.append(Saved(t))
    d["_saved"] = saved


def _differentiated_twice(g: Tensor, a: dict) -> list:
    raise RuntimeError("trying to differentiate twice a function that was marked with "
                       "@once_differentiable")


# the node of a gradient computed without recording: its own backward refuses (PyTorch's
# DelayedError)
_ONCE = Op("error", "input", _differentiated_twice, node="Error")


def refuse_second_order(result: Any, *inputs: Any) -> Any:
    """result, computed from inputs without recording: when grad mode is on and an input
    requires grad (a backward under create_graph), each tensor in it becomes one whose own
    backward raises PyTorch's once_differentiable error."""
    edges = next_edges(*(x if isinstance(x, Tensor) else None for x in inputs))
    if edges is None:
        return result

    def refused(r: Any) -> Any:
        if not isinstance(r, Tensor) or not r.dtype.is_floating_point:
            return r
        r = r.detach()
        record_node(_ONCE, edges, r)
        return r
    return tuple(refused(r) for r in result) if isinstance(result, tuple) else refused(result)


def once_differentiable(fn: Any) -> Any:
    """A backward that is not itself differentiable: it runs without recording, and under
    create_graph its gradients refuse a second differentiation (as PyTorch's)."""
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with grad_mode.no_grad():
            out = fn(ctx, *args)
        return refuse_second_order(out, *args)
    return wrapper


# ---- names the functions above use, imported last so that import cycles resolve -------------
from . import anomaly  # noqa: E402
from .._prims.creation import zeros  # noqa: E402
from .record import alias  # noqa: E402
