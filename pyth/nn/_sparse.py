"""Sparse functions: F.embedding over the THNN lookup-table kernels (_embedding_kernels, which
also holds F.embedding_bag) and F.one_hot."""

from __future__ import annotations

from ..overrides import TYPES as _OVERRIDING, dispatch as _dispatch
from .. import dtypes as _dt
from .._prims.creation import zeros
from ..tensor import Tensor
from ._embedding_kernels import embedding as _emb, renorm_


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """weight's rows named by input (int64 or int32 indices of any shape): (*input.shape,
    embedding_dim). padding_idx's row gets no gradient; max_norm renormalises the looked-up
    rows of weight in place first."""
    if type(input) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(embedding, locals())
    if sparse:
        raise NotImplementedError("embedding(): sparse gradients are not supported by pyth")
    if not isinstance(input, Tensor) or input.dtype not in (_dt.int64, _dt.int32):
        got = input.dtype.real if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"embedding(): expected indices of dtype int64 or int32, got {got}")
    if weight.dim() != 2:
        raise RuntimeError(f"embedding(): weight must be 2-D (num_embeddings, embedding_dim), "
                           f"got {list(weight.shape)}")
    idx = input if input.dtype is _dt.int64 else input.long()
    rows = weight.size(0)
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx >= 0:
        if padding_idx >= rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
    else:
        if padding_idx < -rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx += rows
    if max_norm is not None:
        renorm_(weight, idx, max_norm, norm_type)
    return _emb(idx, weight, int(padding_idx), bool(scale_grad_by_freq))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 of shape (*tensor.shape, num_classes): 1 at each value's position, else 0;
    num_classes=-1 takes the largest value + 1."""
    if type(tensor) in _OVERRIDING:   # a Proxy (pyth.fx), pyth.overrides
        return _dispatch(one_hot, locals())
    if tensor.dtype is not _dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        n = num_classes
    else:
        if int(tensor.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        top = int(tensor.max())
        if num_classes == -1:
            n = top + 1
        elif top >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
        else:
            n = num_classes
    out = zeros(*tensor.shape, n, dtype=_dt.int64)
    if tensor.numel():
        out.scatter_(-1, tensor.unsqueeze(-1), 1)
    return out
