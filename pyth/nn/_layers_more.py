"""Instance, RMS and local-response normalisation, im2col/col2im (F.unfold, F.fold), max
unpooling and power-average pooling, composed of differentiable tensor ops (PyTorch's
formulas, so the same values and gradients). The random layers are in _layers_random.

Fold and unfold share one index: the position, in the padded and flattened image, of every
(kernel row, kernel column, block row, block column) cell. unfold gathers the image at it
(index_select), fold sums the columns back into it (index_add): each is the other's gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dt
from .._errors import not_implemented
from ..tensor import Tensor, as_int64


def _ntuple(value: Any, n: int, name: str) -> tuple:
    """value as an n-tuple of ints (an int is repeated)."""
    if isinstance(value, (tuple, list)):
        if len(value) != n:
            raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value!r}")
        return tuple(as_int64(int(v), "", name) for v in value)
    return (as_int64(int(value), "", name),) * n


# ---- instance, RMS and local response normalisation -----------------------------------------

def _verify_spatial_size(input: Tensor) -> None:
    cells = 1
    for s in input.shape[2:]:
        cells *= s
    if cells == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalises each (sample, channel) over its spatial dims: batch norm of the input seen
    as one sample of N*C channels, the running statistics averaged back over the batch."""
    from ..autograd import no_grad
    from ._functional_norm import batch_norm
    if input.dim() < 2:
        raise ValueError(f"instance_norm(): expected 2D or more input (N, C, ...), got "
                         f"{input.dim()}D input")
    if use_input_stats:
        _verify_spatial_size(input)
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = input.size(0), input.size(1)
    tiled = [t.repeat(n) if t is not None else None
             for t in (running_mean, running_var, weight, bias)]
    flat = input.contiguous().reshape(1, n * c, *input.shape[2:])
    out = batch_norm(flat, tiled[0], tiled[1], tiled[2], tiled[3], bool(use_input_stats),
                     momentum, eps)
    with no_grad():
        for stat, tile in zip((running_mean, running_var), tiled[:2]):
            if stat is not None and n:
                stat.copy_(tile.reshape(n, c).mean(0))
    return out.reshape(input.shape)


_OPMATH = {_dt.float16: _dt.float32, _dt.bfloat16: _dt.float32}


def _normalized_shape(shape: Sequence[int]) -> tuple:
    if not isinstance(shape, Sequence) or not all(isinstance(s, int) for s in shape):
        raise TypeError(f"rms_norm(): argument 'normalized_shape' must be a sequence of ints, "
                        f"not {type(shape).__name__}")
    return tuple(int(s) for s in shape)


def rms_norm(input: Tensor, normalized_shape: Sequence[int],
             weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the last dims (normalized_shape), times weight; eps None
    is the machine epsilon of the computing type (float32 for half types, as PyTorch)."""
    from ..dtype_info import finfo
    shape = _normalized_shape(normalized_shape)
    k = len(shape)
    if input.dim() < k or tuple(input.shape[input.dim() - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    if not input.dtype.is_floating_point:
        raise not_implemented("rms_norm", input.dtype, "expects a floating point input")
    work = _OPMATH.get(input.dtype, input.dtype)
    x = input.to(work)
    eps = finfo(work).eps if eps is None else eps
    dims = tuple(range(input.dim() - k, input.dim()))
    out = x * ((x * x).mean(dims, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    return out.to(input.dtype)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """x / (k + alpha * mean of x^2 over the size channels around it)^beta (channels dim 1,
    zero-padded at the ends): AlexNet's lateral inhibition."""
    from ._padding import pad
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    sq = (input * input).transpose(1, -1)
    window = pad(sq, (size // 2, (size - 1) // 2)).unfold(-1, size, 1).mean(-1)
    return input / (window.transpose(1, -1) * alpha + k).pow(beta)


# ---- im2col / col2im ---------------------------------------------------------------------------

def _blocks(op: str, spatial: tuple, kernel: tuple, dilation: tuple, padding: tuple,
            stride: tuple) -> tuple:
    """The grid of sliding blocks (rows, columns), checking the arguments as PyTorch does."""
    _check_geometry(op, kernel, dilation, padding, stride)
    grid = tuple((s + 2 * p - (d * (k - 1) + 1)) // st + 1
                 for s, k, d, p, st in zip(spatial, kernel, dilation, padding, stride))
    if min(grid) < 1:
        raise RuntimeError(f"{op}(): given spatial size {list(spatial)}, kernel_size="
                           f"{list(kernel)}, dilation={list(dilation)}, padding={list(padding)}"
                           f", stride={list(stride)}, the array of sliding blocks would be "
                           f"{list(grid)}, but its components must be at least one")
    return grid


def _check_geometry(op: str, kernel: tuple, dilation: tuple, padding: tuple,
                    stride: tuple) -> None:
    """RuntimeError for a kernel size, dilation or stride below one or a negative padding,
    before anything divides by them."""
    for name, vals, low in (("kernel size", kernel, 1), ("dilation", dilation, 1),
                            ("stride", stride, 1), ("padding", padding, 0)):
        if min(vals) < low:
            raise RuntimeError(f"{op}(): {name} should be "
                               f"{'greater than zero' if low else 'non-negative'}, but got "
                               f"{name} {list(vals)}")


def _block_index(spatial: tuple, kernel: tuple, dilation: tuple, padding: tuple,
                 stride: tuple, grid: tuple) -> tuple:
    """(index, inside) over the kh*kw*oh*ow block cells: each cell's position in the flattened
    unpadded image (0 where the cell lies in the padding), and a bool mask of the cells inside
    it (None when every cell is). The padding is never materialised, so the work and memory
    are the result's, however large the padding."""
    from .._prims.creation import arange
    (kh, kw), (dh, dw), (ph, pw), (sh, sw), (oh, ow) = kernel, dilation, padding, stride, grid
    rows = arange(kh).reshape(kh, 1, 1, 1) * dh + arange(oh).reshape(1, 1, oh, 1) * sh - ph
    cols = arange(kw).reshape(1, kw, 1, 1) * dw + arange(ow).reshape(1, 1, 1, ow) * sw - pw
    if not any(padding):
        return (rows * spatial[1] + cols).reshape(-1), None
    inside = ((rows >= 0) & (rows < spatial[0])) & ((cols >= 0) & (cols < spatial[1]))
    index = (rows.clamp(0, spatial[0] - 1) * spatial[1] + cols.clamp(0, spatial[1] - 1))
    return index.reshape(-1), inside.reshape(-1)


def _geometry(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple:
    return tuple(_ntuple(v, 2, n) for v, n in ((kernel_size, "kernel_size"),
                                               (dilation, "dilation"), (padding, "padding"),
                                               (stride, "stride")))


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """im2col: (N, C, H, W) -> (N, C*kh*kw, L), each column one sliding block's cells (the
    blocks row by row); an unbatched (C, H, W) gives (C*kh*kw, L)."""
    if input.dim() not in (3, 4) or any(s == 0 for s in input.shape[input.dim() - 3:]):
        raise RuntimeError(f"unfold(): expected a non-empty 3D or 4D (batch mode) input, "
                           f"with an optional 0-size batch dim, got {list(input.shape)}")
    kernel, dilation, padding, stride = _geometry(kernel_size, dilation, padding, stride)
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    grid = _blocks("unfold", (h, w), kernel, dilation, padding, stride)
    index, inside = _block_index((h, w), kernel, dilation, padding, stride, grid)
    cols = x.reshape(n, c, h * w).index_select(2, index)
    if inside is not None:   # cells in the padding read 0 (whatever the clamped cell holds)
        cols = cols.masked_fill(~inside, 0)
    cols = cols.reshape(n, c * kernel[0] * kernel[1], grid[0] * grid[1])
    return cols if input.dim() == 4 else cols.squeeze(0)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """col2im: (N, C*kh*kw, L) -> (N, C, *output_size), each block's cells summed back into
    place (overlaps add up); an unbatched (C*kh*kw, L) gives (C, *output_size)."""
    from .._prims.creation import zeros
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[input.dim() - 2:]):
        raise RuntimeError(f"fold(): expected a non-empty 2D or 3D (batch mode) input, with an "
                           f"optional 0-size batch dim, got {list(input.shape)}")
    size = _ntuple(output_size, 2, "output_size")
    kernel, dilation, padding, stride = _geometry(kernel_size, dilation, padding, stride)
    if min(size) < 1:
        raise RuntimeError(f"fold(): output_size should be greater than zero, got {list(size)}")
    _check_geometry("fold", kernel, dilation, padding, stride)   # (cells divides below)
    x = input if input.dim() == 3 else input.unsqueeze(0)
    n, ckk, blocks = x.shape
    cells = kernel[0] * kernel[1]
    if ckk % cells:
        raise RuntimeError(f"fold(): expected input's dim 1 ({ckk}) to be divisible by the "
                           f"product of kernel_size {list(kernel)}")
    grid = _blocks("fold", size, kernel, dilation, padding, stride)
    if blocks != grid[0] * grid[1]:
        raise RuntimeError(f"fold(): expected input's dim 2 to be the number of sliding blocks "
                           f"{grid[0]} * {grid[1]} = {grid[0] * grid[1]}, got {blocks}")
    index, inside = _block_index(size, kernel, dilation, padding, stride, grid)
    c = ckk // cells
    src = x.reshape(n, c, cells * blocks)
    if inside is not None:   # cells in the padding add to nothing
        kept = inside.nonzero().reshape(-1)
        index, src = index.index_select(0, kept), src.index_select(2, kept)
    out = zeros(n, c, size[0] * size[1], dtype=input.dtype)
    out = out.index_add(2, index, src).reshape(n, c, *size)
    return out if input.dim() == 3 else out.squeeze(0)


# ---- max unpooling and power-average pooling --------------------------------------------------

def _unpool_size(input: Tensor, kernel: tuple, stride: tuple, padding: tuple,
                 output_size: Any) -> tuple:
    """The spatial output size: the default inverse of pooling, or output_size (its last
    len(kernel) entries) when within a stride of it."""
    nd = len(kernel)
    default = tuple((input.size(input.dim() - nd + d) - 1) * stride[d] + kernel[d] -
                    2 * padding[d] for d in range(nd))
    if output_size is None:
        return default
    size = tuple(int(s) for s in output_size)
    if len(size) == nd + 2:
        size = size[2:]
    if len(size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(size)}'")
    for d in range(nd):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < size[d] < high:
            raise ValueError(f'invalid output_size "{list(size)}" (dim {d} must be between '
                             f'{low} and {high})')
    return size


def _max_unpool(input: Tensor, indices: Tensor, nd: int, kernel_size: Any, stride: Any,
                padding: Any, output_size: Any) -> Tensor:
    """Scatters each value to its index in the flattened spatial output (zeros elsewhere)."""
    from .._prims.creation import zeros
    name = f"max_unpool{nd}d"
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    stride = _ntuple(stride if stride is not None else kernel_size, nd, "stride")
    padding = _ntuple(padding, nd, "padding")
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): expected a {nd + 1}D or {nd + 2}D input, got "
                           f"{input.dim()}D input of size {list(input.shape)}")
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"{name}(): expected indices of dtype int64, got "
                           f"{indices.dtype.real}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{name}(): expected indices of the input's shape "
                           f"{list(input.shape)}, got {list(indices.shape)}")
    size = _unpool_size(input, kernel, stride, padding, output_size)
    lead = tuple(input.shape[:input.dim() - nd])
    cells = 1
    for s in size:
        cells *= s
    flat_idx = indices.reshape(*lead, -1)
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= cells):
        raise RuntimeError(f"{name}(): found an invalid max index (indices must lie in "
                           f"[0, {cells}) for an output of size {list(size)})")
    out = zeros(*lead, cells, dtype=input.dtype)
    return out.scatter(-1, flat_idx, input.reshape(*lead, -1)).reshape(*lead, *size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of max_pool1d: each value put back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of max_pool2d: each value put back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of max_pool3d: each value put back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size)


def _lp_pool(input: Tensor, norm_type: float, kernel_size: Any, stride: Any,
             ceil_mode: bool, nd: int) -> Tensor:
    """(sum of x^p over each window)^(1/p), the sum as window size times the average."""
    from ._pool_kernels import avg_pool
    from .functional import relu
    kernel = _ntuple(kernel_size, nd, "kernel_size")
    cells = 1
    for k in kernel:
        cells *= k
    out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode, True, None, nd)
    return (out.sign() * relu(out.abs())).mul(cells).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window along the last dim (p = norm_type)."""
    return _lp_pool(input, float(norm_type), kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window over the last two dims (p = norm_type)."""
    return _lp_pool(input, float(norm_type), kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window over the last three dims (p = norm_type)."""
    return _lp_pool(input, float(norm_type), kernel_size, stride, ceil_mode, 3)


__all__ = ["fold", "instance_norm", "local_response_norm", "lp_pool1d", "lp_pool2d",
           "lp_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "rms_norm", "unfold"]
