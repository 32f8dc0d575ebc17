"""pyth.autograd.functional: derivatives of a whole function, built on pyth.autograd.grad:
vjp and vhp (one backward pass), jvp and hvp (PyTorch's double-backward trick: the gradient of
a vector-Jacobian product with respect to the vector), jacobian and hessian (one backward per
output element). Inputs and results follow PyTorch's: a Tensor or a tuple of Tensors in, the
same form out; results are detached unless create_graph=True; strict=True refuses outputs that
do not depend on an input, with PyTorch's messages."""

from __future__ import annotations

from typing import Any, Callable

from .._prims.creation import zeros, zeros_like
from ..tensor import Tensor
from .derivatives._common import recorded
from .grad_mode import enable_grad
from .gradients import grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


# ---- the inputs and outputs: a Tensor or a tuple of them ----

def _as_tuple(x: Any, what: str, fn: str) -> tuple[bool, tuple]:
    """(whether x was a tuple, x as a tuple), TypeError unless it holds only Tensors."""
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            if is_tuple:
                raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                                f"Tensors but the value at index {i} has type {type(el)}.")
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the given {what} has type {type(el)}.")
    return is_tuple, items


def _unpack(res: tuple, to_unpack: Any) -> Any:
    """res in the caller's form: a Tensor where it gave one (to_unpack False), per level."""
    if isinstance(to_unpack, tuple):
        outputs_tuple, inputs_tuple = to_unpack
        if not inputs_tuple:
            res = tuple(el[0] for el in res)
        return res if outputs_tuple else res[0]
    return res if to_unpack else res[0]


def _prepare(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """The inputs the function is run on: fresh leaves, or (keeping the caller's graph, for
    create_graph) views of the inputs that require grad."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad
                 else t.detach().requires_grad_(need_graph) for t in inputs)


def _finish(res: Any, create_graph: bool) -> Any:
    """Results detached from the graph, unless the caller wants to differentiate them."""
    if isinstance(res, tuple):
        return tuple(_finish(r, create_graph) for r in res)
    return res if create_graph else res.detach()


def _pair(outputs: tuple, outputs_tuple: bool, res: tuple, res_tuple: bool,
          create_graph: bool) -> tuple:
    """(func's outputs, the product) in the caller's forms, detached unless create_graph."""
    return (_unpack(_finish(outputs, create_graph), outputs_tuple),
            _unpack(_finish(res, create_graph), res_tuple))


def _validate_v(v: tuple, other: tuple, other_is_tuple: bool) -> None:
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_o) in enumerate(zip(v, other)):
        if el_v.size() != el_o.size():
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {el_o.size()} but got "
                               f"{el_v.size()}.")


def _vector(v: Any, fn: str, against: tuple, against_tuple: bool, create_graph: bool,
            none_message: str) -> tuple | None:
    """v checked against the tensors it multiplies (None only where those are one element)."""
    if v is None:
        if len(against) != 1 or against[0].numel() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", fn)
    v = _prepare(v, create_graph, need_graph=False)
    _validate_v(v, against, against_tuple)
    return v


# ---- strict mode's checks ----

_NOT_DIFFERENTIABLE = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when running "
               "in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
}
_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
}


def _check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(_INDEPENDENT["back"].format(i=i))
        if not t.requires_grad:
            raise RuntimeError(_NOT_DIFFERENTIABLE[kind].format(i=i))


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool,
                   stage: str) -> tuple:
    """grads with zeros (of refs' shapes) for the inputs an output does not reach."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               f"create_graph=True.")
        out.append(g)
    return tuple(out)


def _grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None,
          create_graph: bool = False, retain_graph: bool | None = None) -> tuple:
    """grad() over the outputs that take part in autograd (None for the inputs none reaches)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad([o for o, _ in kept], inputs, [g for _, g in kept], allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


def _prepared(inputs: Any, fn: str, create_graph: bool) -> tuple[bool, tuple]:
    """(whether inputs was a tuple, the inputs func runs on)."""
    is_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    return is_tuple, _prepare(inputs, create_graph, need_graph=True)


def _outputs(func: Callable, inputs: tuple, fn: str, strict: bool) -> tuple[bool, tuple]:
    """(whether func returned a tuple, its outputs), run on inputs and checked."""
    is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn)
    _check_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def _refuse_vectorize(fn: str, vectorize: bool, strategy: str) -> None:
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, "forward-mode" '
                             'tends to be more performant. Otherwise, prefer to use '
                             '"reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    if vectorize:
        raise NotImplementedError(f"{fn}(vectorize=True) is not in pyth (it batches the "
                                  f"backward passes with vmap, which pyth lacks)")


# ---- the functions ----

def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """(func(inputs), v^T J): the vector-Jacobian product at inputs, one backward pass."""
    with enable_grad():
        is_inputs_tuple, inputs = _prepared(inputs, "vjp", create_graph)
        is_outputs_tuple, outputs = _outputs(func, inputs, "vjp", strict)
        v = _vector(v, "vjp", outputs, is_outputs_tuple, create_graph,
                    "The vector v can only be None if the user-provided function returns a "
                    "single Tensor with a single element.")
        res = _grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "back")
    return _pair(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """(func(inputs), J v): the Jacobian-vector product, as the gradient of u -> u^T J with
    respect to u (two backward passes: pyth has no forward mode)."""
    with enable_grad():
        is_inputs_tuple, inputs = _prepared(inputs, "jvp", create_graph)
        v = _vector(v, "jvp", inputs, is_inputs_tuple, create_graph,
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element.")
        is_outputs_tuple, outputs = _outputs(func, inputs, "jvp", strict)
        us = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, us, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
        res = _grad(grad_inputs, us, v, create_graph=create_graph)
        res = _fill_in_zeros(res, outputs, strict, create_graph, "back_trick")
    return _pair(outputs, is_outputs_tuple, res, is_outputs_tuple, create_graph)


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of func at inputs, of shape output.shape + input.shape per (output, input)
    pair, one backward pass per output element."""
    _refuse_vectorize("jacobian", vectorize, strategy)
    with enable_grad():
        is_inputs_tuple, inputs = _prepared(inputs, "jacobian", create_graph)
        is_outputs_tuple, outputs = _outputs(func, inputs, "jacobian", strict)
        result = []
        for i, out in enumerate(outputs):
            rows: list[list] = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(out.numel()):
                vj = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not allowed "
                                               f"in strict mode.")
                        g = zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError("The jacobian of the user-provided function is "
                                           f"independent of input {k}. This is not allowed in "
                                           "strict mode when create_graph=True.")
                    rows[k].append(g)
            result.append(tuple(_stacked(r, out, inp) for r, inp in zip(rows, inputs)))
    return _unpack(_finish(tuple(result), create_graph), (is_outputs_tuple, is_inputs_tuple))


def _stacked(rows: list, out: Tensor, inp: Tensor) -> Tensor:
    """The rows of one (output, input) block as a tensor of out.shape + inp.shape."""
    shape = tuple(out.shape) + tuple(inp.shape)
    if not rows:
        return zeros(shape, dtype=inp.dtype)
    return recorded.stack(rows, 0).view(shape)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar func at inputs: the Jacobian of its gradient, of shape
    input_i.shape + input_j.shape per pair of inputs."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    _refuse_vectorize("hessian", vectorize, outer_jacobian_strategy)

    def scalar(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        return out.squeeze()

    def gradient(*inp: Tensor) -> tuple:
        jac = jacobian(scalar, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))


def _second_order(fn: str, func: Callable, inputs: Any, v: Any, create_graph: bool,
                  strict: bool) -> tuple:
    """(func(inputs), v^T H) for a scalar func: the gradient's vector-Jacobian product."""
    with enable_grad():
        is_inputs_tuple, inputs = _prepared(inputs, fn, create_graph)
        v = _vector(v, fn, inputs, is_inputs_tuple, create_graph,
                    "The vector v can only be None if the input to the user-provided function "
                    "is a single Tensor with a single element.")
        is_outputs_tuple, outputs = _outputs(func, inputs, fn, strict)
        if is_outputs_tuple:
            raise RuntimeError(f"The function given to {fn} should return a single Tensor")
        if outputs[0].numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn} should "
                               f"contain a single element")
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        res = _grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(res, inputs, strict, create_graph, "double_back")
    return _pair(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """(func(inputs), v^T H): the vector-Hessian product of a scalar function."""
    return _second_order("vhp", func, inputs, v, create_graph, strict)


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple:
    """(func(inputs), H v): the Hessian-vector product of a scalar function, which for a twice
    differentiable function (a symmetric Hessian) is v^T H."""
    return _second_order("hvp", func, inputs, v, create_graph, strict)
