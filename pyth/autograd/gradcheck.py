"""gradcheck / gradgradcheck: analytical Jacobians against central finite differences."""

from __future__ import annotations

from typing import Any, Callable

from ..tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck (raise_exception=True) when the Jacobians differ."""


def _tensors(inputs: Any) -> tuple:
    return (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)


def _outputs(fn: Callable, inputs: tuple) -> tuple:
    out = fn(*inputs)
    return (out,) if isinstance(out, Tensor) else tuple(o for o in out if isinstance(o, Tensor))


def _numerical(fn: Callable, inputs: tuple, eps: float) -> list:
    """J[i][k][o]: d out_o / d in_i[k] (flattened) by central differences. Not under no_grad:
    gradgradcheck's function differentiates inside."""
    jac = []
    for x in inputs:
        if not (isinstance(x, Tensor) and x.requires_grad):
            jac.append(None)
            continue
        cols = []
        for k in range(x.numel()):
            orig = x.detach().reshape(-1)[k].item()
            _poke(x, k, orig + eps)
            plus = [o.detach().reshape(-1).double().clone() for o in _outputs(fn, inputs)]
            _poke(x, k, orig - eps)
            minus = [o.detach().reshape(-1).double().clone() for o in _outputs(fn, inputs)]
            _poke(x, k, orig)
            cols.append([((p - m) / (2 * eps)).tolist() for p, m in zip(plus, minus)])
        jac.append(cols)
    return jac


def _poke(x: Tensor, k: int, value: float) -> None:
    """x's k-th element (row-major) = value, through an alias outside the graph."""
    x.detach()[_unravel(k, tuple(x.shape))] = value


def _unravel(k: int, shape: tuple) -> tuple:
    idx = []
    for s in reversed(shape):
        idx.append(k % s)
        k //= s
    return tuple(reversed(idx))


def _analytical(fn: Callable, inputs: tuple) -> list:
    """The same Jacobian from backward passes, one per output element."""
    from .._prims.creation import zeros_like
    from .gradients import grad as autograd_grad
    outs = _outputs(fn, inputs)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    jac = [[[] for _ in outs] if isinstance(x, Tensor) and x.requires_grad else None
           for x in inputs]
    for oi, o in enumerate(outs):
        for j in range(o.numel()):
            if not o.requires_grad:
                for x, J in zip(inputs, jac):
                    if J is not None:
                        J[oi].append([0.0] * x.numel())
                continue
            go = zeros_like(o)
            go.view(-1)[j] = 1.0 if go.is_contiguous() else None
            gs = autograd_grad([o], diff, [go], retain_graph=True, allow_unused=True)
            gi = iter(gs)
            for x, J in zip(inputs, jac):
                if J is None:
                    continue
                g = next(gi)
                J[oi].append([0.0] * x.numel() if g is None else
                             g.reshape(-1).double().tolist())
    # to [in][k][out][j]
    res = []
    for x, J in zip(inputs, jac):
        if J is None:
            res.append(None)
            continue
        n = x.numel()
        res.append([[[J[oi][j][k] for j in range(len(J[oi]))] for oi in range(len(outs))]
                    for k in range(n)])
    return res


def gradcheck(func: Callable, inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Whether func's gradients match finite differences (inputs should be float64). PyTorch's
    other switches are taken; the dense reverse-mode check is the one pyth runs."""
    inputs = _tensors(inputs)
    for x in inputs:
        if isinstance(x, Tensor) and x.requires_grad and x.dtype.name != "float64":
            import warnings
            warnings.warn(f"Input #{inputs.index(x)} requires gradient and is not a double "
                          f"precision floating point. This check will likely fail if all the "
                          f"inputs are not of double precision floating point. ", stacklevel=2)
    num = _numerical(func, inputs, eps)
    ana = _analytical(func, inputs)
    for i, (N, A) in enumerate(zip(num, ana)):
        if N is None:
            continue
        for k, (ncol, acol) in enumerate(zip(N, A)):
            for oi, (nv, av) in enumerate(zip(ncol, acol)):
                for j, (a, b) in enumerate(zip(nv, av)):
                    if not abs(a - b) <= atol + rtol * abs(a):
                        msg = (f"Jacobian mismatch for output {oi} with respect to input {i},\n"
                               f"numerical:{_matrix(N, oi)}\nanalytical:{_matrix(A, oi)}\n"
                               f"(first mismatch at input element {k}, output element {j}: "
                               f"numerical {a}, analytical {b})\n")
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
    return True


def _matrix(J: list, oi: int) -> str:
    rows = ["[" + ", ".join(f"{v:.4f}" for v in col[oi]) + "]" for col in J]
    return "tensor([" + ",\n        ".join(rows) + "])"


def gradgradcheck(func: Callable, inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """gradcheck of the first derivative (computed with create_graph=True); PyTorch's other
    switches are taken, as gradcheck's."""
    from ..random import randn
    from .gradients import grad as autograd_grad
    inputs = _tensors(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = [randn(*o.shape, dtype=o.dtype).requires_grad_() for o in outs]
    else:
        grad_outputs = list(_tensors(grad_outputs))
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first(*args: Any) -> tuple:
        xs, gos = args[:n_in], args[n_in:]
        o = _outputs(func, xs)
        diff = [xs[i] for i in diff_idx]
        gs = autograd_grad(o, diff, gos, create_graph=True, allow_unused=True)
        from .._prims.creation import zeros_like
        return tuple(g if g is not None else zeros_like(x) for g, x in zip(gs, diff))
    return gradcheck(first, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)

