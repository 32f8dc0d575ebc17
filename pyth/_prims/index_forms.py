"""The index forms PyTorch reads differently from what they are: a list that stands for a tuple.
Apart from subscript.py (which applies it) so that autograd's indexing formulas can read an
index the same way without importing the ops."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..tensor import Tensor

_SEQUENCE_AS_TUPLE = ("Using a non-tuple sequence for multidimensional indexing is deprecated and "
                      "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                      "pytorch 2.9 this will be interpreted as tensor index, x[pyth.tensor(seq)], "
                      "which will result either in an error or a different result")
_SEQUENCES = (list, tuple, range, str, np.ndarray)


def as_index(index: Any, warn: bool = True) -> Any:
    """index as PyTorch reads it. A list shorter than 32 holding a tensor, a sequence, a slice,
    None or ... stands for the tuple of its items (numpy's old rule, which PyTorch 2.13 keeps,
    warning that it will change): x[[[0, 1], [2, 0]]] is x[[0, 1], [2, 0]]."""
    if type(index) is list and len(index) < 32 and any(
            i is None or i is Ellipsis or isinstance(i, (Tensor, slice, *_SEQUENCES))
            for i in index):
        if warn:
            warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=3)
        return tuple(index)
    return index
