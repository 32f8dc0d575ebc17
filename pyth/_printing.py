"""Tensor printing in the legacy Torch style: the values, then `[pyth.FloatTensor of size 2x3]`.

Used by Tensor.__repr__ / __str__. The strategy, in three steps:

1. Gather the values to show as nested Python lists (one level per dim). A tensor with more
   than SUMMARY_THRESHOLD elements is summarised: along every dim longer than 2*EDGE_ITEMS only
   the first and last EDGE_ITEMS entries are fetched, with the marker _SKIP between them, so
   printing a huge tensor touches a handful of elements, never all of them.
2. Choose one formatter for every shown value (integers, True/False, integral floats without
   decimals, fixed `%.4f`, or scientific `%.4e` for very large or very small magnitudes), and
   one common width, so columns line up.
3. Lay the values out: a 0-dim tensor on one line, 1-D as a column (one value per line, as
   legacy Torch did), 2-D as rows, and N-D as 2-D slices headed `(i,j,.,.) = `.

Only the public tensor API is used (dim, size, type, numel, tolist, float, slicing), and
nothing from pyth is imported, so tensor.py can import this module without a cycle.
"""

from __future__ import annotations

import math
from typing import Any, Callable, List

SUMMARY_THRESHOLD = 1000  # more elements than this: summarise
EDGE_ITEMS = 3  # entries kept at each end of a summarised dim
SCI_LARGE = 1e8  # a finite magnitude at least this large switches floats to %.4e
SCI_SMALL = 1e-4  # a non-zero magnitude below this switches floats to %.4e
PRECISION = 4  # decimals of fixed and scientific floats
SCI_MODE = None  # None: choose by magnitude (above); True / False: always / never scientific
LINEWIDTH = 80  # wider matrix rows are split into column blocks, as legacy Torch did
# (pyth.set_printoptions in pyth/_printoptions.py sets these)


class _Skip:
    """The marker standing for the entries a summarised dim leaves out."""

    def __repr__(self) -> str:
        return "..."


_SKIP = _Skip()

_INTEGER_TYPES = ("Byte", "Char", "Short", "Int", "Long")
_REDUCED_FLOAT_TYPES = ("pyth.HalfTensor", "pyth.BFloat16Tensor")


def _type_kind(type_name: str) -> str:
    """'int', 'bool' or 'float', from a type string such as 'pyth.FloatTensor'."""
    base = type_name.rsplit(".", 1)[-1]
    if base.endswith("Tensor"):
        base = base[: -len("Tensor")]
    if base in _INTEGER_TYPES:
        return "int"
    if base == "Bool":
        return "bool"
    return "float"


def _footer(t) -> str:
    """The legacy footer line: `[pyth.FloatTensor of size 2x3]`, `of size ()` for 0-dim; with
    autograd state as PyTorch shows it: `, grad_fn=<MulBackward0>]` for a result in the graph,
    `, requires_grad=True]` for a leaf that requires grad."""
    sizes = tuple(t.size())
    shape = "x".join(str(s) for s in sizes) if sizes else "()"
    return f"[{t.type()} of size {shape}{_autograd_note(t)}]"


def _autograd_note(t) -> str:
    if getattr(t, "_ag", None) is None:
        return ""
    fn = t.grad_fn
    if fn is not None:
        return f", grad_fn=<{type(fn).__name__}>"
    return ", requires_grad=True" if t.requires_grad else ""


def _gather(t, summarise: bool) -> Any:
    """Nested lists of the values to show, with _SKIP where a summarised dim hides entries."""
    if not summarise or t.dim() == 0:
        return t.tolist()
    n = t.size(0)
    long_dim = n > 2 * EDGE_ITEMS
    if t.dim() == 1:
        if long_dim:
            return t[0:EDGE_ITEMS].tolist() + [_SKIP] + t[n - EDGE_ITEMS : n].tolist()
        return t.tolist()
    if long_dim:
        head = [_gather(t[i], True) for i in range(EDGE_ITEMS)]
        tail = [_gather(t[i], True) for i in range(n - EDGE_ITEMS, n)]
        return head + [_SKIP] + tail
    return [_gather(t[i], True) for i in range(n)]


def _flatten(values: Any, out: List[Any]) -> List[Any]:
    """Append every shown value (not the _SKIP markers) of a nested list to out."""
    if isinstance(values, list):
        for v in values:
            _flatten(v, out)
    elif values is not _SKIP:
        out.append(values)
    return out


def _format_special(v: float) -> str:
    """nan, inf and -inf, spelled as Python spells them."""
    if math.isnan(v):
        return "nan"
    return "inf" if v > 0 else "-inf"


def _float_formatter(values: List[float]) -> Callable[[float], str]:
    """One formatter for a set of floats: integral, fixed 4 decimals, or scientific."""
    finite = [v for v in values if math.isfinite(v)]
    magnitudes = [abs(v) for v in finite]
    largest = max(magnitudes, default=0.0)
    smallest_nonzero = min((m for m in magnitudes if m > 0), default=0.0)
    auto_sci = largest >= SCI_LARGE or 0 < smallest_nonzero < SCI_SMALL
    if SCI_MODE or (SCI_MODE is None and auto_sci):
        spec = f"%.{PRECISION}e"
    elif all(v == int(v) for v in finite):
        spec = "%.0f"
    else:
        spec = f"%.{PRECISION}f"

    def fmt(v: float) -> str:
        return spec % v if math.isfinite(v) else _format_special(v)

    return fmt


def _formatter(kind: str, values: List[Any]) -> Callable[[Any], str]:
    """The formatter for the tensor's element kind ('int', 'bool' or 'float')."""
    if kind == "int":
        return lambda v: str(int(v))
    if kind == "bool":
        return lambda v: "True" if v else "False"
    return _float_formatter([float(v) for v in values])


def _cell(text: str, width: int) -> str:
    """One value right-aligned in the common width, after one space of separation."""
    return text.rjust(width + 1)


def _skip_cell(width: int) -> str:
    """The `...` that stands in a row (or a column) for the entries left out."""
    return "...".rjust(max(width + 1, 4))


def _vector_lines(values: List[Any], fmt, width: int) -> List[str]:
    """A 1-D tensor as a column: one value per line."""
    return [_skip_cell(width) if v is _SKIP else _cell(fmt(v), width) for v in values]


def _matrix_lines(rows: List[Any], fmt, width: int) -> List[str]:
    """A 2-D tensor (or slice) as rows of right-aligned columns, split into blocks headed
    `Columns a to b` when a row is wider than LINEWIDTH."""
    ncols = max((len(r) for r in rows if r is not _SKIP), default=0)
    per_block = max(1, (LINEWIDTH + 1) // (width + 2))
    if ncols > per_block and not any(v is _SKIP for r in rows if r is not _SKIP for v in r):
        lines: List[str] = []
        for start in range(0, ncols, per_block):
            stop = min(start + per_block, ncols)
            if lines:
                lines.append("")
            lines.append(f"Columns {start + 1} to {stop}" if stop > start + 1 else
                         f"Columns {start + 1}")
            lines.extend(_matrix_lines([r if r is _SKIP else r[start:stop] for r in rows],
                                       fmt, width))
        return lines
    lines = []
    for row in rows:
        if row is _SKIP:
            lines.append(_skip_cell(width))
        else:
            cells = (" ..." if v is _SKIP else _cell(fmt(v), width) for v in row)
            lines.append(" ".join(cells))
    return lines


def _true_indices(values: List[Any], size: int) -> List[Any]:
    """The index along the dim of each gathered entry (_SKIP stays _SKIP).

    Entries after a _SKIP are the last ones of the dim, so their index counts back from size.
    """
    n = len(values)
    after_skip = False
    out: List[Any] = []
    for k, v in enumerate(values):
        if v is _SKIP:
            after_skip = True
            out.append(_SKIP)
        else:
            out.append(size - (n - k) if after_skip else k)
    return out


def _slices_lines(values: List[Any], prefix: tuple, sizes: tuple, fmt, width: int) -> List[str]:
    """An N-D tensor (N >= 3) as 2-D slices headed `(i,j,.,.) = `, blank lines between."""
    blocks: List[List[str]] = []
    for index, sub in zip(_true_indices(values, sizes[0]), values):
        if sub is _SKIP:
            blocks.append([_skip_cell(width).strip()])
        elif len(sizes) == 3:
            header = "(" + ",".join(str(i) for i in prefix + (index,)) + ",.,.) = "
            blocks.append([header] + _matrix_lines(sub, fmt, width))
        else:
            blocks.append(_slices_lines(sub, prefix + (index,), sizes[1:], fmt, width))
    lines: List[str] = []
    for i, block in enumerate(blocks):
        if i:
            lines.append("")
        lines.extend(block)
    return lines


def format_tensor(t) -> str:
    """The text of repr(t) and str(t): the values, legacy style, then the type-and-size footer."""
    footer = _footer(t)
    if t.numel() == 0:
        return footer
    if t._ag is not None:
        t = t.detach()   # reading the values records nothing
    kind = _type_kind(t.type())
    shown = t.float() if t.type() in _REDUCED_FLOAT_TYPES else t  # exact, and numpy-free
    values = _gather(shown, t.numel() > SUMMARY_THRESHOLD)
    flat = _flatten(values, [])
    fmt = _formatter(kind, flat)
    width = max(len(fmt(v)) for v in flat)
    ndim = t.dim()
    if ndim == 0:
        lines = [_cell(fmt(values), width)]
    elif ndim == 1:
        lines = _vector_lines(values, fmt, width)
    elif ndim == 2:
        lines = _matrix_lines(values, fmt, width)
    else:
        lines = _slices_lines(values, (), tuple(t.size()), fmt, width)
    return "\n".join(lines + [footer])
