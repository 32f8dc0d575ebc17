"""backward() and grad(): the entry points of the backward pass (the engine runs it), and
Tensor.backward."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import engine


def _as_list(x: Any) -> list:
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _grads_for(tensors: list, grad_tensors: Any) -> list:
    """One gradient (or None) per tensor, as PyTorch pairs them: a tensor or an iterable
    (a number is not one: TypeError), extra gradients left over."""
    gs = _as_list(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    if len(gs) < len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(gs)} gradients")
    return gs[:len(tensors)]


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, grad_variables: Any = None,
             inputs: Any = None) -> None:
    """Accumulates the gradients of tensors (weighted by grad_tensors) into the leaves' .grad
    (or only into inputs' .grad when given)."""
    ts = _as_list(tensors)
    if grad_variables is not None:
        grad_tensors = grad_variables
    gs = _grads_for(ts, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    ins = _as_list(inputs) if inputs is not None else None
    if ins is not None and not ins:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    engine.run_backward(ts, gs, retain_graph, create_graph, ins, accumulate=True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None, retain_graph: bool | None = None,
         create_graph: bool = False, only_inputs: bool = True, allow_unused: bool | None = None,
         is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """The gradients of outputs with respect to inputs, returned (not accumulated)."""
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    gs = _grads_for(outs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if materialize_grads:
        allow_unused = True
    r = engine.run_backward(outs, gs, retain_graph, create_graph, ins, accumulate=False,
                            allow_unused=bool(allow_unused))
    if materialize_grads:
        from .._prims.creation import zeros_like
        r = [g if g is not None else zeros_like(x) for g, x in zip(r, ins)]
    return tuple(r)


def tensor_backward(self: Any, gradient: Any = None, retain_graph: bool | None = None,
                    create_graph: bool = False, inputs: Any = None) -> None:
    """Gradients of self with respect to the graph's leaves, accumulated into their .grad."""
    if gradient is None and retain_graph is None and not create_graph and inputs is None:
        engine.backward_plain(self)   # loss.backward()
        return
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


tensor_backward.__name__ = "backward"
METHODS: dict[str, Any] = {"backward": tensor_backward}   # pyth/_bind.py binds it
