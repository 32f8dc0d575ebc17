"""einsum: Einstein summation, contracted through the BLAS path.

Strategy, in four steps:
1. Parse the equation (or the sublist form) into one label list per operand, the ellipsis
   standing for its own labels aligned from the right, and the output labels (given after
   '->', or else the ellipsis then the labels seen exactly once, in alphabetical order).
2. Per operand: a label repeated within it takes the diagonal (a view); a label no other
   operand and not the output uses is summed out at once.
3. Operands are contracted pairwise, left to right: the labels both share and still need are
   batch dims, those shared and no longer needed are summed by one batched matrix product
   (bmm: BLAS for float types), the rest are its rows and columns.
4. The last operand's dims are summed down to the output labels and permuted into their order.
"""

from __future__ import annotations

import string
from typing import Any, Sequence

from .._ops import as_tensor
from .._promotion import result_type
from ..tensor import Tensor


_LETTERS = string.ascii_letters


def _parse_operand(spec: str, t: Tensor, ellipsis: list) -> list:
    """The labels of one operand: letters, the ellipsis expanded to ('.', k) labels counted
    from the right (so ellipsis dims of different operands broadcast)."""
    if spec.count("...") > 1:
        raise RuntimeError("einsum(): found more than one ellipsis in an operand")
    head, dots, tail = spec.partition("...")
    for c in head + tail:
        if c not in _LETTERS:
            raise RuntimeError(f"einsum(): invalid subscript given at index of the equation "
                               f"string: '{c}' (subscripts must be letters in [a-zA-Z])")
    n_named = len(head) + len(tail)
    if not dots:
        if n_named != t.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_named}) "
                               f"does not match the number of dimensions ({t.dim()}) for "
                               f"operand {len(ellipsis)} and no ellipsis was given")
        ellipsis.append(0)
        return list(head + tail)
    n_ell = t.dim() - n_named
    if n_ell < 0:
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_named}) is "
                           f"more than the number of dimensions ({t.dim()}) for operand "
                           f"{len(ellipsis)}")
    ellipsis.append(n_ell)
    return list(head) + [(".", k) for k in range(n_ell - 1, -1, -1)] + list(tail)


def _sublist_equation(args: Sequence[Any]) -> tuple:
    """('ab,bc->ac', operands) from einsum(a, [0, 1], b, [1, 2], [0, 2])."""
    def letters(sub: Sequence[Any]) -> str:
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < 52:
                out.append(_LETTERS[s])
            else:
                raise RuntimeError(f"einsum(): expected subscript to be in range [0, 52) but "
                                   f"got {s}")
        return "".join(out)
    out = args[-1] if len(args) % 2 else None
    pairs = args[:-1] if out is not None else args
    ops, subs = list(pairs[0::2]), list(pairs[1::2])
    eq = ",".join(letters(s) for s in subs)
    if out is not None:
        eq += "->" + letters(out)
    return eq, ops


def einsum(*args: Any) -> Tensor:
    """Sums of products of the operands' elements over the labels the equation names
    (e.g. 'ij,jk->ik' is a matrix product, 'ii' a trace, 'bij,bjk->bik' a batched product)."""
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand")
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, not {type(t).__name__}")
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                         "equation" if len(operands) > len(specs) else
                         "einsum(): fewer operands were provided than specified in the equation")
    ellipsis: list = []
    labels = [_parse_operand(s, t, ellipsis) for s, t in zip(specs, operands)]
    n_ell = max(ellipsis) if ellipsis else 0
    ell_labels = [(".", k) for k in range(n_ell - 1, -1, -1)]
    if arrow:
        if rhs.count("...") > 1:
            raise RuntimeError("einsum(): found more than one ellipsis in the output")
        head, dots, tail = rhs.partition("...")
        for c in head + tail:
            if c not in _LETTERS:
                raise RuntimeError(f"einsum(): invalid subscript given in the output: '{c}'")
        out = list(head) + (ell_labels if dots else []) + list(tail)
        seen = {lab for ls in labels for lab in ls}
        for c in head + tail:
            if (head + tail).count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in "
                                   f"the output")
            if c not in seen:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the "
                                   f"equation for any input operand")
    else:
        counts: dict = {}
        for ls in labels:
            for lab in ls:
                if isinstance(lab, str):
                    counts[lab] = counts.get(lab, 0) + 1
        out = ell_labels + sorted((c for c, n in counts.items() if n == 1),
                                  key=lambda c: (c.islower(), c))
    dt = result_type(*operands)
    tensors = [as_tensor(t, dt) for t in operands]
    sizes = _label_sizes(tensors, labels)
    # steps 2 and 3
    pending = [_prepare(t, ls) for t, ls in zip(tensors, labels)]
    for i in range(len(pending)):
        needed = set(out)
        for _, ls in pending[i + 1:]:
            needed.update(ls)
        if i == 0:
            cur = _sum_unneeded(*pending[0], needed)
            continue
        nxt_needed = set(needed)
        b = _sum_unneeded(*pending[i], nxt_needed | set(cur[1]))
        cur = _contract(cur, b, nxt_needed, sizes)
    t, ls = _sum_unneeded(*cur, set(out))
    # broadcast labels that are 1 here but larger elsewhere (an ellipsis dim, say)
    shape = [sizes[lab] for lab in ls]
    if list(t.size()) != shape:
        t = t.expand(*shape)
    perm = [ls.index(lab) for lab in out]
    return t.permute(perm) if perm else t


def _label_sizes(tensors: list, labels: list) -> dict:
    sizes: dict = {}
    for i, (t, ls) in enumerate(zip(tensors, labels)):
        for d, lab in enumerate(ls):
            n = t.size(d)
            old = sizes.get(lab)
            if old is None or old == 1:
                sizes[lab] = n
            elif n != 1 and n != old:
                name = "..." if isinstance(lab, tuple) else lab
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes "
                                   f"(original->remapped): subscript {name} has size {n} for "
                                   f"operand {i} which does not broadcast with previously seen "
                                   f"size {old}")
    return sizes


def _prepare(t: Tensor, labels: list) -> tuple:
    """Diagonals for labels repeated within one operand."""
    labels = list(labels)
    while True:
        dup = next((lab for lab in labels if labels.count(lab) > 1), None)
        if dup is None:
            return t, labels
        i = labels.index(dup)
        j = labels.index(dup, i + 1)
        if t.size(i) != t.size(j):
            raise RuntimeError(f"einsum(): subscript {dup} is repeated for operand but the sizes "
                               f"don't match, {t.size(i)} != {t.size(j)}")
        t = t.diagonal(0, i, j)
        labels = [lab for k, lab in enumerate(labels) if k not in (i, j)] + [dup]


def _sum_unneeded(t: Tensor, labels: list, needed: set) -> tuple:
    drop = [d for d, lab in enumerate(labels) if lab not in needed]
    if not drop:
        return t, labels
    return t.sum(drop), [lab for lab in labels if lab in needed]


def _contract(a: tuple, b: tuple, needed: set, sizes: dict) -> tuple:
    """One pairwise step: a batched matrix product over the shared labels no longer needed."""
    ta, la = a
    tb, lb = b
    batch = [lab for lab in la if lab in lb and lab in needed]
    inner = [lab for lab in la if lab in lb and lab not in needed]
    a_only = [lab for lab in la if lab not in lb]
    b_only = [lab for lab in lb if lab not in la]
    for lab in [lab for lab in inner if sizes[lab] == 1]:  # a sum over one term: drop it
        ta, tb = ta.squeeze(la.index(lab)), tb.squeeze(lb.index(lab))
        la, lb = [x for x in la if x != lab], [x for x in lb if x != lab]
        inner.remove(lab)
    ta = _arrange(ta, la, batch + a_only + inner, sizes, batch + inner)
    tb = _arrange(tb, lb, batch + inner + b_only, sizes, batch + inner)
    if not inner:  # nothing to sum: a broadcast product (also the path for bool)
        shape_a = list(ta.size()) + [1] * len(b_only)
        shape_b = list(tb.size())[:len(batch)] + [1] * len(a_only) + \
            list(tb.size())[len(batch):]
        return ta.reshape(shape_a) * tb.reshape(shape_b), batch + a_only + b_only
    nb = _prod(sizes[lab] for lab in batch)
    m = _prod(ta.size(len(batch) + k) for k in range(len(a_only)))
    k = _prod(sizes[lab] for lab in inner)
    n = _prod(tb.size(len(batch) + len(inner) + k_) for k_ in range(len(b_only)))
    r = ta.reshape(nb, m, k).bmm(tb.reshape(nb, k, n))
    shape = [sizes[lab] for lab in batch] + list(ta.size())[len(batch):len(batch) + len(a_only)] \
        + list(tb.size())[len(batch) + len(inner):]
    return r.reshape(shape), batch + a_only + b_only


def _arrange(t: Tensor, labels: list, order: list, sizes: dict, full: list) -> Tensor:
    """t permuted into order, the labels in `full` expanded to their broadcast size."""
    t = t.permute([labels.index(lab) for lab in order]) if order else t
    shape = [sizes[lab] if lab in full else t.size(i) for i, lab in enumerate(order)]
    return t.expand(*shape) if list(t.size()) != shape else t


def _prod(values: Any) -> int:
    r = 1
    for v in values:
        r *= v
    return r


FUNCTIONS = {"einsum": einsum}
