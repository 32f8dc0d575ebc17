"""The kernel-backed ops as everything above autograd calls them: each op with a formula in
derivatives/ wrapped by record.py, so that calling it on tensors that require grad records it.

Made once, when this module loads. By topic, the tables mirror pyth/_prims' FUNCTIONS (the
recorded form in place of each recorded function, the rest as they are): the pyth and
pyth.linalg namespaces and the composed ops read them. By TABLE name, the recorded forms fill
pyth._prims.recorded, the table the code below autograd calls them through (the formulas, at
backward time, and the kernel-backed compositions such as hstack), and this module's names:
`from pyth.autograd.recorded import cat`."""

from __future__ import annotations

from typing import Any, Callable

from .._prims import (indexing, linalg, matmul, pointwise, recorded, reductions, shape,
                      sorting)
from .derivatives import (indexing as _d_indexing, linalg as _d_linalg,  # noqa: F401
                          matmul as _d_matmul, pointwise as _d_pointwise,  # (fill TABLE)
                          reductions as _d_reductions, shape as _d_shape)
from .derivatives._common import TABLE
from .record import differentiable

# TABLE entries recorded as methods (their own signatures: views, conversions), by
# derivatives/install.py, and those recorded there in other ways
METHOD_ONLY = ("view", "reshape", "view_as", "reshape_as", "flatten", "expand", "expand_as",
               "transpose", "t", "permute", "narrow", "select", "diagonal", "unfold",
               "as_strided", "clone", "contiguous", "to", "squeeze", "unsqueeze", "repeat")
_NOT_FUNCTIONS = frozenset(METHOD_ONLY + ("getitem", "setitem"))


def _sources() -> dict[str, Callable]:
    """TABLE name -> the kernel-backed function it differentiates."""
    found: dict[str, Callable] = {}
    for m in (pointwise, reductions, shape, matmul, indexing, sorting, linalg):
        found.update(m.FUNCTIONS)
    found["split"] = shape._split_size   # (shape's split dispatches to it or split_with_sizes)
    found["cholesky_solve"] = linalg.TOPLEVEL["cholesky_solve"]
    found["norm"] = reductions.FUNCTIONS["norm"]   # torch.norm; linalg.norm is a composition
    return found


def _record() -> tuple[dict[str, Callable], dict[str, Callable]]:
    """(TABLE name -> raw function, TABLE name -> its recorded form)."""
    sources = _sources()
    # the in-place indexing ops' functional forms take their in-place forms' argument names
    signatures = {name: prim for name, (prim, _) in indexing._INPLACE.items()}
    raw: dict[str, Callable] = {}
    made: dict[str, Callable] = {}
    for name, op in TABLE.items():
        fn = sources.get(name)
        if name in _NOT_FUNCTIONS or name.endswith("_") or fn is None or \
                getattr(fn, "__wrapped__", None) is not None:
            continue
        raw[name] = fn
        made[name] = differentiable(op, fn, signatures.get(name))
    return raw, made


RAW, RECORDED = _record()
_BY_RAW: dict[int, Callable] = {}
for _name, _fn in RAW.items():   # a function under two names keeps its first name's record
    _BY_RAW.setdefault(id(_fn), RECORDED[_name])


def _mirror(table: dict[str, Any]) -> dict[str, Any]:
    """table with each recorded function in its recorded form."""
    return {k: _BY_RAW.get(id(v), v) for k, v in table.items()}


POINTWISE = _mirror(pointwise.FUNCTIONS)
REDUCTIONS = _mirror(reductions.FUNCTIONS)
SHAPE = _mirror(shape.FUNCTIONS)
MATMUL = _mirror(matmul.FUNCTIONS)
INDEXING = _mirror(indexing.FUNCTIONS)
SORTING = _mirror(sorting.FUNCTIONS)
LINALG = _mirror(linalg.FUNCTIONS)            # pyth.linalg's kernel-backed names
LINALG_TOPLEVEL = _mirror(linalg.TOPLEVEL)    # pyth.det, pyth.inverse, ...

vars(recorded).update(RECORDED)
globals().update(RECORDED)   # last: the names include sum, max, abs, round, pow ...
