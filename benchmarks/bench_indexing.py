"""Indexing at 1M elements: index_select of rows and columns, masked_fill, boolean-mask reads."""

from __future__ import annotations

import numpy as np

import pyth
from harness import Case, torch


def _fns(p_fn, n_fn, t_fn) -> dict:
    return {"pyth": p_fn, "numpy": n_fn, **({"torch": t_fn} if torch is not None else {})}


def cases(quick: bool = False) -> list[Case]:
    rows, cols = (1024, 1024) if not quick else (256, 1024)  # 1M (quick: 256K) float32 elements
    rng = np.random.default_rng(0)
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    idx = rng.integers(0, rows, rows).astype(np.int64)
    cidx = rng.integers(0, cols, cols).astype(np.int64)
    mask = a > 0
    p, pi, pci, pm = (pyth.from_numpy(x) for x in (a, idx, cidx, mask))
    if torch is not None:
        t, ti, tci, tm = (torch.from_numpy(x) for x in (a, idx, cidx, mask))
    else:
        t = ti = tci = tm = None
    n = rows * cols
    return [
        Case(f"index_select rows {n}", _fns(lambda: p.index_select(0, pi),
                                            lambda: np.take(a, idx, axis=0),
                                            lambda: t.index_select(0, ti)), "indexing"),
        Case(f"index_select columns {n}", _fns(lambda: p.index_select(1, pci),
                                               lambda: np.take(a, cidx, axis=1),
                                               lambda: t.index_select(1, tci)), "indexing"),
        Case(f"masked_fill {n}", _fns(lambda: p.masked_fill(pm, 0.0),
                                      lambda: np.where(mask, np.float32(0), a),
                                      lambda: t.masked_fill(tm, 0.0)), "indexing"),
        Case(f"masked_fill_ in place {n}", _fns(lambda: p.masked_fill_(pm, 0.0),
                                                lambda: np.copyto(a, np.float32(0), where=mask),
                                                lambda: t.masked_fill_(tm, 0.0)), "indexing"),
        Case(f"x[mask] {n}", _fns(lambda: p[pm], lambda: a[mask], lambda: t[tm]), "indexing"),
    ]
