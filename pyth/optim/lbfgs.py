"""L-BFGS: a quasi-Newton method over all parameters as one flat vector, with an optional
strong-Wolfe line search (the algorithm of minFunc, as PyTorch implements it).

Not a kernel: each iteration is a few dot products and vector updates on the flat views,
composed from tensor ops. Scalars that PyTorch keeps as 0-dim tensors (dot products, the
step t, H_diag) are 0-dim tensors here too, so float32 runs round where PyTorch's do."""

from __future__ import annotations

from typing import Any, Callable

from .._prims.creation import zeros
from ..autograd.recorded import cat
from ..autograd import enable_grad, no_grad
from ._validate import at_least_zero
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _cubic_minimum(x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any,
                   bounds: tuple | None = None) -> Any:
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, kept in
    bounds (default: between x1 and x2); their midpoint when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if not disc >= 0:
        return (lo + hi) / 2.0
    d2 = disc.sqrt()
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


class _Point:
    """A trial step of the line search: t, the loss there, its gradient and slope along d."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t: Any, f: Any, g: Any, gtd: Any) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate: Callable, t: Any, d: Any, f: float, g: Any, gtd: Any,
                  c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                  max_ls: int = 25) -> tuple:
    """A step t along d meeting the strong Wolfe conditions (sufficient decrease c1, slope
    c2): grow t until a bracket holds a point that meets them, then shrink the bracket by
    safeguarded cubic steps. Returns (loss, gradient, t, evaluations)."""
    d_norm = d.abs().max()
    start = _Point(0, f, g.clone(), gtd)

    def trial(t: Any) -> _Point:
        """The point t along d (one closure call)."""
        f_new, g_new = evaluate(t)
        return _Point(t, f_new, g_new, g_new.dot(d))

    def decreases(p: _Point) -> bool:
        """The sufficient-decrease (Armijo) condition at p."""
        return not p.f > f + c1 * p.t * gtd

    def flat(p: _Point) -> bool:
        """The strong curvature condition at p."""
        return abs(p.gtd) <= -c2 * gtd

    prev, new = start, trial(t)
    evals, it = 1, 0
    bracket: list = []
    done = False
    while it < max_ls:  # phase 1: find a bracket
        if not decreases(new) or (it > 1 and new.f >= prev.f):
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        if flat(new):
            bracket, done = [new], True
            break
        if new.gtd >= 0:
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        grown = _cubic_minimum(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd,
                               bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10))
        prev = _Point(new.t, new.f, new.g.clone(), new.gtd)
        new = trial(grown)
        evals += 1
        it += 1
    if it == max_ls:
        bracket = [_Point(0, f, start.g, None), _Point(new.t, new.f, new.g, None)]
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    stalled = False
    while not done and it < max_ls:  # phase 2: zoom into the bracket
        a, b = bracket
        if abs(b.t - a.t) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        top, bottom = max(a.t, b.t), min(a.t, b.t)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:  # too close to an end: move inside
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        new = trial(t)
        evals += 1
        it += 1
        if not decreases(new) or new.f >= bracket[low].f:
            bracket[high] = _Point(new.t, new.f, new.g.clone(), new.gtd)
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if flat(new):
                done = True
            elif new.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = _Point(new.t, new.f, new.g.clone(), new.gtd)
    best = bracket[low]
    return best.f, best.g, best.t, evals


class LBFGS(Optimizer):
    """L-BFGS over one parameter group: step(closure) runs up to max_iter iterations (and
    max_eval closure calls), each a two-loop-recursion direction from the last history_size
    curvature pairs and a step of lr (or a strong-Wolfe line search), stopping early on
    tolerance_grad (gradient) or tolerance_change (step, loss)."""

    def __init__(self, params: Any, lr: float = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        at_least_zero(lr, "learning rate")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ---- the parameters as one flat vector ----
    def _flat_grad(self) -> Any:
        """Every parameter's gradient (zeros where there is none) as one flat vector."""
        views = []
        for p in self._params:
            g = p.grad
            views.append(zeros(p.numel(), dtype=p.dtype) if g is None else g.reshape(-1))
        return cat(views, 0)

    def _add_to_params(self, t: Any, direction: Any) -> None:
        """p += t * direction, the flat direction cut into the parameters' shapes."""
        offset = 0
        alpha = float(t)
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset:offset + n].view_as(p), alpha=alpha)
            offset += n

    def _evaluate_at(self, closure: Callable, x: list, t: Any, direction: Any) -> tuple:
        """Loss and flat gradient at x + t * direction; the parameters return to x."""
        self._add_to_params(t, direction)
        loss = float(closure())
        grad = self._flat_grad()
        for p, saved in zip(self._params, x):
            p.copy_(saved)
        return loss, grad

    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Runs up to max_iter L-BFGS iterations; closure re-evaluates the model, clears and
        recomputes the gradients and returns the loss (step returns the first one)."""
        with no_grad():
            return self._iterate(enable_grad()(closure))

    def _iterate(self, closure: Callable) -> Any:
        """step()'s work under no_grad: the iterations, their stops and the state kept
        between steps."""
        group = self.param_groups[0]
        lr = float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        line_search, history = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = closure()
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if grad.abs().max() <= tol_grad:
            return first_loss

        d, t = state.get("d"), state.get("t")
        dirs, steps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_grad = state.get("H_diag"), state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n = 0
        while n < max_iter:
            n += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, dirs, steps, ro, h_diag = grad.neg(), [], [], [], 1
            else:
                y = grad.sub(prev_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:  # a curvature pair worth keeping
                    if len(dirs) == history:
                        del dirs[0], steps[0], ro[0]
                    dirs.append(y)
                    steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                d = self._direction(state, grad, dirs, steps, ro, h_diag, history)
            if prev_grad is None:
                prev_grad = grad.clone()
            else:
                prev_grad.copy_(grad)
            prev_loss = loss
            t = min(1.0, 1.0 / grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = grad.dot(d)
            if gtd > -tol_change:  # not a descent direction
                break

            used = 0
            if line_search is not None:
                if line_search != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x = [p.clone() for p in self._params]
                loss, grad, t, used = _strong_wolfe(
                    lambda step: self._evaluate_at(closure, x, step, d), t, d, loss, grad, gtd,
                    max_ls=max_eval - evals)
                self._add_to_params(t, d)
                converged = grad.abs().max() <= tol_grad
            else:
                self._add_to_params(t, d)
                converged = False
                if n != max_iter:
                    loss = float(closure())
                    grad = self._flat_grad()
                    converged = grad.abs().max() <= tol_grad
                    used = 1
            evals += used
            state["func_evals"] += used
            if (n == max_iter or evals >= max_eval or converged
                    or d.mul(t).abs().max() <= tol_change or abs(loss - prev_loss) < tol_change):
                break

        state.update({"d": d, "t": t, "old_dirs": dirs, "old_stps": steps, "ro": ro,
                      "H_diag": h_diag, "prev_flat_grad": prev_grad, "prev_loss": prev_loss})
        return first_loss

    @staticmethod
    def _direction(state: dict, grad: Any, dirs: list, steps: list, ro: list, h_diag: Any,
                   history: int) -> Any:
        """The two-loop recursion: -H grad, H the L-BFGS inverse-Hessian estimate from the
        pairs (steps[i], dirs[i]) scaled by h_diag (the coefficients kept in state["al"])."""
        if "al" not in state:
            state["al"] = [None] * history
        al = state["al"]
        q = grad.neg()
        for i in range(len(dirs) - 1, -1, -1):
            al[i] = steps[i].dot(q) * ro[i]
            q.add_(dirs[i], alpha=float(-al[i]))
        r = q.mul(h_diag)
        for i in range(len(dirs)):
            beta = dirs[i].dot(r) * ro[i]
            r.add_(steps[i], alpha=float(al[i] - beta))
        return r

