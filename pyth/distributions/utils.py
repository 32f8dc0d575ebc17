"""Helpers the distributions share: broadcasting parameters, probabilities <-> logits, clamping
away from 0 and 1, summing the rightmost dims, and the lazy attribute of derived parameters."""

from __future__ import annotations

import numbers
from functools import update_wrapper
from typing import Any, Callable

from ..autograd import grad_mode
from .._prims.creation import tensor
from .._refs.shape import broadcast_tensors
from .. import dtypes as _dt
from ..dtype_info import finfo
from .._size import Size
from ..tensor import Tensor

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060


def broadcast_all(*values: Any) -> tuple:
    """Tensors and numbers broadcast to one shape; numbers become tensors of the first tensor's
    dtype (the default float dtype if there is none)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = _dt.get_default_dtype()
        for v in values:
            if isinstance(v, Tensor):
                dtype = v.dtype
                break
        values = tuple(v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values)
    return tuple(broadcast_tensors(*values))


def _standard_normal(shape: tuple, dtype: _dt.dtype) -> Tensor:
    from ..random import randn
    return randn(shape, dtype=dtype)


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """value summed over its `dim` rightmost dims."""
    if dim == 0:
        return value
    return value.reshape(*value.shape[:value.dim() - dim], -1).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: sigmoid for binary, softmax over the last dim otherwise."""
    if is_binary:
        return logits.sigmoid()
    from .._refs.pointwise import softmax
    return softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """probs clamped into [eps, 1 - eps] of their dtype."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities: log-odds for binary, log probabilities otherwise."""
    ps = clamp_probs(probs)
    if is_binary:
        return ps.log() - (-ps).log1p()
    return ps.log()


class lazy_property:
    """A method computed once on first access and then stored as an attribute; on the class it
    reads as a _lazy_property_and_property so constraints can see it."""

    def __init__(self, wrapped: Callable) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with grad_mode.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped: Callable) -> None:
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (from diagonal `diag`) of the last two dims, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    from .._prims.creation import arange
    idx = arange(n)
    keep = (idx.view(1, -1) <= idx.view(-1, 1) + diag)
    return mat[..., keep]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of tril_matrix_to_vec: a vector filling the lower triangle of a matrix."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1))
         ** 0.5) / 2
    eps = finfo(vec.dtype).eps
    if not round(n) - n < eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n.item()) if isinstance(n, Tensor) else round(n)
    from .._prims.creation import arange, zeros
    mat = zeros(vec.shape[:-1] + (n, n), dtype=vec.dtype)
    idx = arange(n)
    keep = (idx.view(1, -1) <= idx.view(-1, 1) + diag)
    mat[..., keep] = vec
    return mat



def _expand_params(self: Any, cls: type, batch_shape: Any, _instance: Any, names: tuple) -> Any:
    """The expand() of a distribution whose parameters `names` all have its batch shape."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = Size(batch_shape)
    for n in names:
        if n in self.__dict__:
            setattr(new, n, getattr(self, n).expand(batch_shape))
    super(cls, new).__init__(batch_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


def _softplus(x: Tensor) -> Tensor:
    """log(1 + exp(x)), with the derivative sigmoid(x) everywhere (also at 0)."""
    return x.new_zeros(()).logaddexp(x)


def _bce_with_logits(logits: Tensor, value: Tensor) -> Tensor:
    """-(value * log sigmoid(logits) + (1 - value) * log sigmoid(-logits)), elementwise."""
    return _softplus(logits) - logits * value


def _param_pair(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _batch_shape(param: Tensor, *given: Any) -> Size:
    """The batch shape of broadcast parameters: () when every one was given as a number."""
    return Size() if all(isinstance(g, numbers.Number) for g in given) else param.size()


class _BinaryParameters:
    """The probs <-> logits pair of a distribution parameterised by a success probability:
    whichever was given is `_param`, the other is computed on first use."""

    def _set_probs_or_logits(self, probs: Any, logits: Any) -> bool:
        """Store the given one (broadcast to a tensor); whether it was a number."""
        _param_pair(probs, logits)
        given = probs if probs is not None else logits
        (value,) = broadcast_all(given)
        setattr(self, "probs" if probs is not None else "logits", value)
        self._param = value
        return isinstance(given, numbers.Number)

    def _set_count_and_probs_or_logits(self, total_count: Any, probs: Any, logits: Any) -> None:
        """Store total_count and the given one of probs / logits, broadcast together, the count
        in the parameter's dtype."""
        _param_pair(probs, logits)
        count, value = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = count.to(value.dtype)
        setattr(self, "probs" if probs is not None else "logits", value)
        self._param = value

    def _expand_probs_or_logits(self, new: Any, batch_shape: Size) -> None:
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()


class _CentredAtLoc:
    """A distribution symmetric and unimodal about `loc`: its mean and mode are loc."""

    loc: Tensor

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc
