"""Pointwise ops: contiguous, transcendental, transposed, broadcast, contiguous() of a
transpose, and the per-call cost of a 10-element op."""

from __future__ import annotations

import numpy as np

import pyth
from harness import Case, torch


def _trio(shape, dtype="float32", seed=0):
    a = np.random.default_rng(seed).random(shape, dtype=np.float64).astype(dtype) + 0.5
    p = pyth.from_numpy(a.copy())
    t = torch.from_numpy(a.copy()) if torch is not None else None
    return a, p, t


def _case(name, group, np_fn, pyth_fn, torch_fn, a, p, t):
    fns = {"pyth": lambda: pyth_fn(p), "numpy": lambda: np_fn(a)}
    if t is not None and torch_fn is not None:
        fns["torch"] = lambda: torch_fn(t)
    return Case(name, fns, group)


def cases(quick: bool = False) -> list[Case]:
    n = 1024 if quick else 4096
    big = (n, n)
    out: list[Case] = []
    for dt in ("float32", "float64"):
        a, p, t = _trio(big, dt)
        b, q, u = _trio(big, dt, 1)
        out.append(Case(f"add {dt} {n}^2", {"pyth": lambda p=p, q=q: p + q,
                                            "numpy": lambda a=a, b=b: a + b,
                                            **({"torch": lambda t=t, u=u: t + u} if t is not None else {})},
                        "pointwise"))
        out.append(Case(f"mul {dt} {n}^2", {"pyth": lambda p=p, q=q: p * q,
                                            "numpy": lambda a=a, b=b: a * b,
                                            **({"torch": lambda t=t, u=u: t * u} if t is not None else {})},
                        "pointwise"))
        out.append(Case(f"addcmul {dt} {n}^2", {
            "pyth": lambda p=p, q=q: pyth.addcmul(p, q, q, value=0.5),
            "numpy": lambda a=a, b=b: a + 0.5 * b * b,
            **({"torch": lambda t=t, u=u: torch.addcmul(t, u, u, value=0.5)} if t is not None else {})},
            "pointwise"))
    a, p, t = _trio(big)
    for fn in ("exp", "log", "tanh", "sigmoid"):
        np_fn = (lambda x: 1 / (1 + np.exp(-x))) if fn == "sigmoid" else getattr(np, fn)
        out.append(_case(f"{fn} float32 {n}^2", "transcendental", np_fn, getattr(pyth, fn),
                         getattr(torch, fn) if torch is not None else None, a, p, t))
    out.append(_case(f"A + A.T float32 {n}^2", "transposed", lambda x: x + x.T,
                     lambda x: x + x.t(), lambda x: x + x.t(), a, p, t))
    row, rp, rt = _trio((n,))
    col, cp, ct = _trio((n, 1))
    out.append(Case(f"matrix + row {n}^2", {"pyth": lambda: p + rp, "numpy": lambda: a + row,
                                           **({"torch": lambda: t + rt} if t is not None else {})},
                    "broadcast"))
    out.append(Case(f"matrix + column {n}^2", {"pyth": lambda: p + cp, "numpy": lambda: a + col,
                                              **({"torch": lambda: t + ct} if t is not None else {})},
                    "broadcast"))
    out.append(_case(f"contiguous() of A.T {n}^2", "transposed",
                     lambda x: np.ascontiguousarray(x.T), lambda x: x.t().contiguous(),
                     lambda x: x.t().contiguous(), a, p, t))
    s, sp, st = _trio((10,))
    out.append(_case("add 10 elements (per call)", "latency", lambda x: x + x,
                     lambda x: x + x, lambda x: x + x, s, sp, st))
    out.append(_case("mul by scalar, 10 elements", "latency", lambda x: x * 2.0,
                     lambda x: x * 2.0, lambda x: x * 2.0, s, sp, st))
    out.append(_case("add_ in place, 10 elements", "latency",
                     lambda x: np.add(x, 1.0, out=x), lambda x: x.add_(1.0),
                     lambda x: x.add_(1.0), s.copy(), sp.clone(), st.clone()))
    out.append(_case("exp, 10 elements", "latency", np.exp, lambda x: x.exp(),
                     lambda x: x.exp(), s, sp, st))
    # a layer's worth (one thread): libmvec's vector tanh / exp, and softmax rows
    m, mp, mt = _trio((32, 128))
    for fn in ("tanh", "exp"):
        out.append(_case(f"{fn} float32 32x128", "transcendental", getattr(np, fn),
                         getattr(pyth, fn), getattr(torch, fn) if torch is not None else None,
                         m, mp, mt))
    for shape in ((32, 128), (64, 1000)):
        x, xp, xt = _trio(shape)
        out.append(_case(f"softmax(dim=1) float32 {shape[0]}x{shape[1]}", "transcendental",
                         lambda v: np.exp(v - v.max(1, keepdims=True)) /
                         np.exp(v - v.max(1, keepdims=True)).sum(1, keepdims=True),
                         lambda v: v.softmax(1), lambda v: v.softmax(1), x, xp, xt))
    return out
