"""The autograd side of Tensor: requires_grad, grad, grad_fn, is_leaf, detach, hooks, backward.

Installed on pyth.Tensor by pyth.autograd (`install()`); the state lives in the tensor's `_ag`
slot (graph.Meta), None for tensors that never took part in autograd.
"""

from __future__ import annotations

import weakref
from typing import Any

from ..tensor import Tensor, wrap
from .graph import Meta, accumulator, reveal, version_of


def edge_of(t: Any):
    """(node, output_nr) where t's gradient goes, or None when t needs none."""
    m = t._ag
    if m is None:
        return None
    if m.base is not None and version_of(t) != m.view_version:
        _regenerate_view_fn(t, m)
    if m.grad_fn is not None:
        return (m.grad_fn, m.output_nr)
    if m.requires_grad:
        return (accumulator(t), 0)
    return None


def _regenerate_view_fn(t: Any, m: Meta) -> None:
    """The base was modified in place after this view was made: the view's values now come
    from the base's new grad_fn, through an as_strided view of it."""
    from .view_nodes import is_multi_view, multi_view_message, view_of_base_node
    if is_multi_view(m.grad_fn):   # PyTorch refuses: the pieces share one node
        raise RuntimeError(multi_view_message(m.output_nr, m.grad_fn, base=True))
    base = m.base
    e = edge_of(base)
    m.view_version = version_of(t)
    if e is None:
        return
    m.grad_fn, m.output_nr = view_of_base_node(base, t, e), 0


def requires_grad_of(t: Any) -> bool:
    m = t._ag
    return m is not None and (m.requires_grad or m.grad_fn is not None)


def _check_float(t: Any) -> None:
    if not t.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point and complex dtype can require "
                           "gradients")


def _set_requires_grad(t: Any, value: bool) -> None:
    m = t._ag
    if m is not None and m.grad_fn is not None:
        raise RuntimeError("you can only change requires_grad flags of leaf variables. If you "
                           "want to use a computed variable in a subgraph that doesn't require "
                           "differentiation use var_no_grad = var.detach().")
    value = bool(value)
    if value:
        _check_float(t)
    if m is None:
        if not value:
            return
        t._ag = Meta(True)
    else:
        m.requires_grad = value


def requires_grad_(self: Any, requires_grad: bool = True) -> Any:
    """Sets requires_grad in place (leaves only) and returns self."""
    _set_requires_grad(self, requires_grad)
    return self


def _get_grad(self: Any) -> Any:
    m = self._ag
    if m is None:
        return None
    if m.grad_fn is not None and not m.retains_grad and m.grad is None:
        import warnings
        warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being "
                      "accessed. Its .grad attribute won't be populated during "
                      "autograd.backward(). If you indeed want the .grad field to be populated "
                      "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.",
                      UserWarning, stacklevel=2)
    return m.grad


def _set_grad(self: Any, value: Any) -> None:
    m = self._ag
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                            f"type {type(value).__name__}")
        if value.dtype is not self.dtype:
            raise RuntimeError("assigned grad has data of a different type")
        if tuple(value.shape) != tuple(self.shape):
            raise RuntimeError("assigned grad has data of a different size")
    if m is None:
        if value is None:
            return
        m = self._ag = Meta(False)
    m.grad = value


def _del_grad(self: Any) -> None:
    _set_grad(self, None)


def _grad_fn(self: Any) -> Any:
    m = self._ag
    if m is None:
        return None
    if m.base is not None and version_of(self) != m.view_version:
        _regenerate_view_fn(self, m)
    return reveal(m.grad_fn)


def _is_leaf(self: Any) -> bool:
    m = self._ag
    return m is None or m.grad_fn is None


def _alias(self: Any) -> Any:
    r = wrap(self.dtype, self.dtype.tensor.newWithTensor(self._h))
    r._ag = None
    return r


def detach(self: Any) -> Any:
    """A tensor sharing self's data, outside the graph (requires_grad False)."""
    return _alias(self)


def detach_(self: Any) -> Any:
    """Takes self out of the graph, in place."""
    m = self._ag
    if m is not None and m.base is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    if m is not None:
        m.grad_fn, m.requires_grad, m.output_nr = None, False, 0
    return self


def _get_data(self: Any) -> Any:
    return _alias(self)


def _set_data(self: Any, value: Any) -> None:
    if value.dtype is not self.dtype:
        raise RuntimeError("data set to a tensor that requires gradients must match the "
                           "original type")
    from .grad_mode import no_grad
    with no_grad():  # not an op of the graph: leaves that require grad take new data too
        self.set_(value)


def retain_grad(self: Any) -> None:
    """Keep the gradient of this non-leaf in .grad after backward."""
    m = self._ag
    if not requires_grad_of(self):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if m.grad_fn is None or m.retains_grad:
        return
    e = edge_of(self)
    node = e[0]
    if node._retained is None:
        node._retained = {}
    node._retained[e[1]] = weakref.ref(self)
    m.retains_grad = True


def _retains_grad(self: Any) -> bool:
    m = self._ag
    return m is not None and m.retains_grad


def register_hook(self: Any, hook: Any) -> Any:
    """hook(grad) runs when the gradient for this tensor is computed; a return value replaces
    the gradient. Returns a handle with .remove()."""
    if not requires_grad_of(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    m = self._ag
    if m.grad_fn is None:
        from .graph import _Handle
        if m.hooks is None:
            m.hooks = []
        m.hooks.append(hook)
        return _Handle(m.hooks, hook)
    node, nr = edge_of(self)
    return node._add_tensor_hook(nr, hook)


def register_post_accumulate_grad_hook(self: Any, hook: Any) -> Any:
    """hook(tensor) runs after a backward accumulated into this leaf's .grad (its return value
    is ignored). Returns a handle with .remove()."""
    if not requires_grad_of(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    m = self._ag
    if m.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    from .graph import _Handle
    if m.post_hooks is None:
        m.post_hooks = []
    m.post_hooks.append(hook)
    return _Handle(m.post_hooks, hook)






def _version(self: Any) -> int:
    return version_of(self)


def _output_nr(self: Any) -> int:
    m = self._ag
    return 0 if m is None else m.output_nr


def _base(self: Any) -> Any:
    m = self._ag
    if m is not None and m.base is not None:
        return m.base
    from .view_nodes import view_base
    return view_base(self)


def _rebuild(rebuild: Any, args: tuple, requires_grad: bool, grad: Any) -> Any:
    t = rebuild(*args)
    if requires_grad:
        t.requires_grad_(True)
    if grad is not None:
        _set_grad(t, grad)
    return t


def _reduce_with_grad(raw: Any) -> Any:
    """pickle / copy keep a leaf's requires_grad and grad; non-leaves requiring grad refuse."""
    def __reduce_ex__(self: Any, protocol: int) -> Any:
        m = self._ag
        r = raw(self, protocol)
        if m is None or (not m.requires_grad and m.grad is None and m.grad_fn is None):
            return r
        if m.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment. If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        return (_rebuild, (r[0], r[1], m.requires_grad, m.grad))
    return __reduce_ex__


# Tensor's autograd state and hooks (pyth/_bind.py binds them)
METHODS: dict[str, Any] = {
    "__reduce_ex__": _reduce_with_grad(Tensor.__reduce_ex__),
    "requires_grad": property(requires_grad_of, _set_requires_grad),
    "requires_grad_": requires_grad_,
    "grad": property(_get_grad, _set_grad, _del_grad),
    "grad_fn": property(_grad_fn),
    "is_leaf": property(_is_leaf),
    "detach": detach,
    "detach_": detach_,
    "data": property(_get_data, _set_data),
    "retain_grad": retain_grad,
    "retains_grad": property(_retains_grad),
    "register_hook": register_hook,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "_version": property(_version),
    "output_nr": property(_output_nr),
    "_base": property(_base),
}

# the old import path of Variable (torch.autograd.variable.Variable)
from .legacy_variable import Variable  # noqa: E402,F401
