"""Differentiable-op cases shared by the autograd tests: each runs the same code on pyth and
on torch (the module is passed in as M), so gradients can be compared one to one."""

import numpy as np

# name -> (function of (M, *tensors), list of input shapes, value domain)
# domain: "any" (normal), "pos" (positive), "unit" (inside (-1, 1)), "distinct" (no ties)
CASES = {
    # pointwise unary
    "neg": (lambda M, x: -x, [(3, 4)], "any"),
    "abs": (lambda M, x: M.abs(x), [(3, 4)], "distinct"),
    "exp": (lambda M, x: x.exp(), [(3, 4)], "any"),
    "expm1": (lambda M, x: M.expm1(x), [(3, 4)], "any"),
    "log": (lambda M, x: x.log(), [(3, 4)], "pos"),
    "log1p": (lambda M, x: M.log1p(x), [(3, 4)], "pos"),
    "log2": (lambda M, x: M.log2(x), [(3, 4)], "pos"),
    "log10": (lambda M, x: M.log10(x), [(3, 4)], "pos"),
    "sqrt": (lambda M, x: x.sqrt(), [(3, 4)], "pos"),
    "rsqrt": (lambda M, x: x.rsqrt(), [(3, 4)], "pos"),
    "reciprocal": (lambda M, x: x.reciprocal(), [(3, 4)], "pos"),
    "sin": (lambda M, x: x.sin(), [(3, 4)], "any"),
    "cos": (lambda M, x: x.cos(), [(3, 4)], "any"),
    "tan": (lambda M, x: x.tan(), [(3, 4)], "unit"),
    "asin": (lambda M, x: x.asin(), [(3, 4)], "unit"),
    "acos": (lambda M, x: x.acos(), [(3, 4)], "unit"),
    "atan": (lambda M, x: x.atan(), [(3, 4)], "any"),
    "sinh": (lambda M, x: x.sinh(), [(3, 4)], "any"),
    "cosh": (lambda M, x: x.cosh(), [(3, 4)], "any"),
    "tanh": (lambda M, x: x.tanh(), [(3, 4)], "any"),
    "sigmoid": (lambda M, x: x.sigmoid(), [(3, 4)], "any"),
    "erf": (lambda M, x: M.erf(x), [(3, 4)], "any"),
    "erfinv": (lambda M, x: M.erfinv(x), [(3, 4)], "unit"),
    "frac": (lambda M, x: M.frac(x), [(3, 4)], "distinct"),
    "floor": (lambda M, x: x.floor() * x, [(3, 4)], "distinct"),
    # pointwise binary (with broadcasting)
    "add": (lambda M, x, y: x + y, [(3, 4), (4,)], "any"),
    "add_alpha": (lambda M, x, y: M.add(x, y, alpha=2.5), [(3, 4), (3, 1)], "any"),
    "sub": (lambda M, x, y: x - y, [(3, 4), (1, 4)], "any"),
    "rsub": (lambda M, x: 2.0 - x, [(3, 4)], "any"),
    "mul": (lambda M, x, y: x * y, [(3, 4), (4,)], "any"),
    "mul_scalar": (lambda M, x: x * 3.0, [(3, 4)], "any"),
    "div": (lambda M, x, y: x / y, [(3, 4), (3, 1)], "pos"),
    "rdiv": (lambda M, x: 2.0 / x, [(3, 4)], "pos"),
    "pow": (lambda M, x, y: x ** y, [(3, 4), (4,)], "pos"),
    "pow_scalar": (lambda M, x: x ** 3, [(3, 4)], "any"),
    "rpow": (lambda M, x: 2.0 ** x, [(3, 4)], "any"),
    "atan2": (lambda M, x, y: M.atan2(x, y), [(3, 4), (3, 4)], "pos"),
    "hypot": (lambda M, x, y: M.hypot(x, y), [(3, 4), (3, 4)], "pos"),
    "maximum": (lambda M, x, y: M.maximum(x, y), [(3, 4), (3, 4)], "distinct"),
    "minimum": (lambda M, x, y: M.minimum(x, y), [(3, 4), (4,)], "distinct"),
    "fmod": (lambda M, x, y: M.fmod(x, y), [(3, 4), (3, 4)], "pos"),
    "remainder": (lambda M, x, y: M.remainder(x, y), [(3, 4), (3, 4)], "pos"),
    "clamp": (lambda M, x: x.clamp(-0.5, 0.5), [(3, 4)], "distinct"),
    "clamp_min": (lambda M, x: M.clamp(x, min=0.1), [(3, 4)], "distinct"),
    "clamp_tensor": (lambda M, x, lo: M.clamp(x, min=lo), [(3, 4), (4,)], "distinct"),
    "where": (lambda M, x, y: M.where(x > 0, x, y), [(3, 4), (3, 4)], "distinct"),
    "lerp": (lambda M, x, y, w: M.lerp(x, y, w), [(3, 4), (3, 4), (3, 4)], "any"),
    "addcmul": (lambda M, x, y, z: M.addcmul(x, y, z, value=0.5), [(3, 4), (3, 4), (4,)], "any"),
    "addcdiv": (lambda M, x, y, z: M.addcdiv(x, y, z, value=0.5), [(3, 4), (3, 4), (4,)], "pos"),
    # reductions
    "sum": (lambda M, x: x.sum(), [(3, 4)], "any"),
    "sum_dim": (lambda M, x: x.sum(1), [(3, 4)], "any"),
    "sum_dims_keep": (lambda M, x: x.sum((0, 2), keepdim=True), [(2, 3, 4)], "any"),
    "mean": (lambda M, x: x.mean(), [(3, 4)], "any"),
    "mean_dim": (lambda M, x: x.mean(-1), [(3, 4)], "any"),
    "prod": (lambda M, x: x.prod(), [(3, 4)], "any"),
    "prod_dim": (lambda M, x: x.prod(1), [(3, 4)], "any"),
    "amax": (lambda M, x: x.amax(1), [(3, 4)], "distinct"),
    "amin": (lambda M, x: M.amin(x), [(3, 4)], "distinct"),
    "max": (lambda M, x: x.max(), [(3, 4)], "distinct"),
    "max_dim": (lambda M, x: x.max(1)[0], [(3, 4)], "distinct"),
    "min_dim_keep": (lambda M, x: x.min(0, keepdim=True)[0], [(3, 4)], "distinct"),
    "var": (lambda M, x: x.var(), [(3, 4)], "any"),
    "var_dim": (lambda M, x: x.var(1, correction=0), [(3, 4)], "any"),
    "std": (lambda M, x: x.std(), [(3, 4)], "any"),
    "std_dim": (lambda M, x: x.std(0, keepdim=True), [(3, 4)], "any"),
    "norm": (lambda M, x: x.norm(), [(3, 4)], "any"),
    "norm_dim": (lambda M, x: x.norm(dim=1), [(3, 4)], "any"),
    "norm_p1": (lambda M, x: M.norm(x, p=1), [(3, 4)], "distinct"),
    "norm_p3": (lambda M, x: M.norm(x, p=3, dim=0), [(3, 4)], "any"),
    "vector_norm": (lambda M, x: M.linalg.vector_norm(x, 2.5, dim=1), [(3, 4)], "any"),
    "logsumexp": (lambda M, x: M.logsumexp(x, 1), [(3, 4)], "any"),
    "cumsum": (lambda M, x: x.cumsum(1), [(3, 4)], "any"),
    "cumprod": (lambda M, x: x.cumprod(0), [(3, 4)], "any"),
    "dist": (lambda M, x, y: M.dist(x, y), [(3, 4), (3, 4)], "any"),
    # views and shape ops
    "view": (lambda M, x: x.view(4, 3) * 2, [(3, 4)], "any"),
    "reshape": (lambda M, x: x.reshape(2, 6), [(3, 4)], "any"),
    "flatten": (lambda M, x: x.flatten(), [(2, 3, 2)], "any"),
    "t": (lambda M, x: x.t(), [(3, 4)], "any"),
    "T": (lambda M, x: x.T, [(2, 3, 4)], "any"),
    "transpose": (lambda M, x: x.transpose(0, 2), [(2, 3, 4)], "any"),
    "permute": (lambda M, x: x.permute(2, 0, 1), [(2, 3, 4)], "any"),
    "expand": (lambda M, x: x.expand(2, 3, 4), [(3, 1)], "any"),
    "squeeze": (lambda M, x: x.squeeze(), [(3, 1, 4)], "any"),
    "unsqueeze": (lambda M, x: x.unsqueeze(1), [(3, 4)], "any"),
    "narrow": (lambda M, x: x.narrow(1, 1, 2), [(3, 4)], "any"),
    "select": (lambda M, x: x.select(0, 1), [(3, 4)], "any"),
    "slice": (lambda M, x: x[1:, ::2], [(3, 4)], "any"),
    "int_index": (lambda M, x: x[1, 2], [(3, 4)], "any"),
    "diagonal": (lambda M, x: x.diagonal(1), [(3, 4)], "any"),
    "unfold": (lambda M, x: x.unfold(1, 2, 1), [(3, 4)], "any"),
    "flip": (lambda M, x: x.flip(0, 1), [(3, 4)], "any"),
    "roll": (lambda M, x: x.roll(1, 1), [(3, 4)], "any"),
    "repeat": (lambda M, x: x.repeat(2, 3), [(3, 4)], "any"),
    "tril": (lambda M, x: x.tril(), [(3, 4)], "any"),
    "triu": (lambda M, x: M.triu(x, 1), [(3, 4)], "any"),
    "diag": (lambda M, x: M.diag(x), [(3,)], "any"),
    "diag2": (lambda M, x: M.diag(x, -1), [(3, 4)], "any"),
    "cat": (lambda M, x, y: M.cat([x, y], 1), [(3, 4), (3, 2)], "any"),
    "stack": (lambda M, x, y: M.stack([x, y], 1), [(3, 4), (3, 4)], "any"),
    "split": (lambda M, x: x.split(2, 1)[1] * 2, [(3, 4)], "any"),
    "chunk": (lambda M, x: M.chunk(x, 2, 0)[0], [(4, 4)], "any"),
    "unbind": (lambda M, x: x.unbind(0)[1] * x.unbind(0)[0], [(3, 4)], "any"),
    "hstack": (lambda M, x, y: M.hstack([x, y]), [(3, 4), (3, 2)], "any"),
    "clone": (lambda M, x: x.clone(), [(3, 4)], "any"),
    "contiguous": (lambda M, x: x.t().contiguous(), [(3, 4)], "any"),
    # indexing
    "adv_index": (lambda M, x: x[M.tensor([0, 2, 0])], [(3, 4)], "any"),
    "adv_index2": (lambda M, x: x[M.tensor([0, 2, 0]), M.tensor([1, 1, 3])], [(3, 4)], "any"),
    "mask_index": (lambda M, x: x[x > 0], [(3, 4)], "distinct"),
    "index_select": (lambda M, x: x.index_select(1, M.tensor([3, 0, 3])), [(3, 4)], "any"),
    "gather": (lambda M, x: x.gather(1, M.tensor([[0, 0], [1, 3], [2, 2]])), [(3, 4)], "any"),
    "take": (lambda M, x: M.take(x, M.tensor([0, 5, 5])), [(3, 4)], "any"),
    "masked_select": (lambda M, x: x.masked_select(x > 0), [(3, 4)], "distinct"),
    "masked_fill": (lambda M, x: x.masked_fill(x > 0, 2.0), [(3, 4)], "distinct"),
    "scatter": (lambda M, x, s: x.scatter(1, M.tensor([[0, 1], [2, 3], [1, 0]]), s),
                [(3, 4), (3, 2)], "any"),
    "scatter_add": (lambda M, x, s: x.scatter_add(0, M.tensor([[0, 1], [2, 0], [0, 0]]), s),
                    [(3, 4), (3, 2)], "any"),
    "index_add": (lambda M, x, s: x.index_add(0, M.tensor([0, 2, 0]), s), [(3, 4), (3, 4)],
                  "any"),
    "index_copy": (lambda M, x, s: x.index_copy(0, M.tensor([2, 0]), s), [(3, 4), (2, 4)],
                   "any"),
    "index_fill": (lambda M, x: x.index_fill(1, M.tensor([0, 2]), -1.0), [(3, 4)], "any"),
    "masked_scatter": (lambda M, x, s: x.masked_scatter(x > 0, s), [(3, 4), (12,)],
                       "distinct"),
    "sort": (lambda M, x: x.sort(1)[0], [(3, 4)], "distinct"),
    "sort_desc": (lambda M, x: M.sort(x, 0, descending=True).values, [(3, 4)], "distinct"),
    "topk": (lambda M, x: x.topk(2, 1)[0], [(3, 4)], "distinct"),
    "kthvalue": (lambda M, x: x.kthvalue(2, 1)[0], [(3, 4)], "distinct"),
    "median_dim": (lambda M, x: x.median(1)[0], [(3, 4)], "distinct"),
    "median": (lambda M, x: x.median(), [(3, 4)], "distinct"),
    # matrix products
    "mm": (lambda M, x, y: x.mm(y), [(3, 4), (4, 2)], "any"),
    "bmm": (lambda M, x, y: M.bmm(x, y), [(2, 3, 4), (2, 4, 2)], "any"),
    "mv": (lambda M, x, y: M.mv(x, y), [(3, 4), (4,)], "any"),
    "dot": (lambda M, x, y: M.dot(x, y), [(4,), (4,)], "any"),
    "outer": (lambda M, x, y: M.outer(x, y), [(3,), (4,)], "any"),
    "matmul": (lambda M, x, y: x @ y, [(3, 4), (4, 2)], "any"),
    "matmul_bcast": (lambda M, x, y: x @ y, [(2, 3, 4), (4, 2)], "any"),
    "matmul_bcast2": (lambda M, x, y: M.matmul(x, y), [(2, 1, 3, 4), (3, 4, 2)], "any"),
    "matmul_vec": (lambda M, x, y: x @ y, [(2, 3, 4), (4,)], "any"),
    "matmul_vec2": (lambda M, x, y: x @ y, [(4,), (2, 4, 3)], "any"),
    "matmul_dot": (lambda M, x, y: x @ y, [(4,), (4,)], "any"),
    "addmm": (lambda M, b, x, y: M.addmm(b, x, y, beta=0.5, alpha=2), [(2,), (3, 4), (4, 2)],
              "any"),
    "addmv": (lambda M, b, x, y: M.addmv(b, x, y), [(3,), (3, 4), (4,)], "any"),
    "addr": (lambda M, b, x, y: M.addr(b, x, y), [(3, 4), (3,), (4,)], "any"),
    "baddbmm": (lambda M, b, x, y: M.baddbmm(b, x, y), [(2, 3, 2), (2, 3, 4), (2, 4, 2)], "any"),
    "addbmm": (lambda M, b, x, y: M.addbmm(b, x, y, alpha=0.5), [(3, 2), (2, 3, 4), (2, 4, 2)],
               "any"),
    "tile": (lambda M, x: M.tile(x, (2, 1)), [(3, 4)], "any"),
    "rot90": (lambda M, x: M.rot90(x, 1, (0, 1)), [(3, 4)], "any"),
    "fliplr": (lambda M, x: M.fliplr(x), [(3, 4)], "any"),
    "msort": (lambda M, x: M.msort(x), [(3, 4)], "distinct"),
    "vstack": (lambda M, x, y: M.vstack([x, y]), [(3, 4), (4,)], "any"),
    "amax_dims": (lambda M, x: x.amax((0, 2)), [(2, 3, 4)], "distinct"),
    "clamp_both": (lambda M, x, lo, hi: M.clamp(x, lo, hi), [(3, 4), (4,), (3, 1)], "distinct"),
    "max_pair": (lambda M, x, y: M.max(x, y), [(3, 4), (3, 4)], "distinct"),
    "setitem": (lambda M, x, v: _setitem(M, x, v), [(3, 4), (4,)], "any"),
    "setitem_mask": (lambda M, x, v: _setitem_mask(M, x, v), [(3, 4), ()], "distinct"),
    "inplace_chain": (lambda M, x, w: _inplace_chain(M, x, w), [(3, 4), (4,)], "pos"),
    "inplace_view": (lambda M, x, w: _inplace_view(M, x, w), [(3, 4), (4,)], "any"),
    "copy_into_zeros": (lambda M, x: _copy_into(M, x), [(2, 4)], "any"),
    # conversions
    "to_float": (lambda M, x: x.float().double() * 2, [(3, 4)], "any"),
}

LINALG_CASES = {
    "inv": (lambda M, x: M.linalg.inv(x), [(3, 3)], "matrix"),
    "det": (lambda M, x: M.linalg.det(x), [(3, 3)], "matrix"),
    "det_batch": (lambda M, x: M.linalg.det(x), [(2, 3, 3)], "matrix"),
    "slogdet": (lambda M, x: M.linalg.slogdet(x)[1], [(3, 3)], "matrix"),
    "logdet": (lambda M, x: M.logdet(x @ x.transpose(-1, -2) + M.eye(3, dtype=x.dtype)), [(3, 3)], "matrix"),
    "solve": (lambda M, a, b: M.linalg.solve(a, b), [(3, 3), (3, 2)], "matrix"),
    "solve_vec": (lambda M, a, b: M.linalg.solve(a, b), [(3, 3), (3,)], "matrix"),
    "cholesky": (lambda M, x: M.linalg.cholesky(x @ x.transpose(-1, -2) + M.eye(3, dtype=x.dtype)),
                 [(3, 3)], "matrix"),
    "qr": (lambda M, x: sum(t.sum() * (i + 1) for i, t in enumerate(M.linalg.qr(x))),
           [(4, 3)], "matrix"),
    "eigh": (lambda M, x: _eigh_use(M, x), [(3, 3)], "matrix"),
    "eigvalsh": (lambda M, x: M.linalg.eigvalsh(x + x.transpose(-1, -2)), [(3, 3)], "matrix"),
    "svd": (lambda M, x: _svd_use(M, x), [(4, 3)], "matrix"),
    "svdvals": (lambda M, x: M.linalg.svdvals(x), [(4, 3)], "matrix"),
    "inv_ex": (lambda M, x: M.linalg.inv_ex(x)[0], [(3, 3)], "matrix"),
    "solve_ex": (lambda M, a, b: M.linalg.solve_ex(a, b)[0], [(2, 3, 3), (3, 2)], "matrix"),
    "solve_right": (lambda M, a, b: M.linalg.solve(a, b, left=False), [(3, 3), (2, 3)],
                    "matrix"),
    "cholesky_ex": (lambda M, x: M.linalg.cholesky_ex(x @ x.transpose(-1, -2) +
                                                      M.eye(3, dtype=x.dtype))[0],
                    [(3, 3)], "matrix"),
    "cholesky_upper": (lambda M, x: M.linalg.cholesky(x @ x.transpose(-1, -2) +
                                                      M.eye(3, dtype=x.dtype), upper=True),
                       [(3, 3)], "matrix"),
    "cholesky_solve": (lambda M, b, x: M.cholesky_solve(
        b, M.linalg.cholesky(x @ x.transpose(-1, -2) + M.eye(3, dtype=x.dtype))),
        [(3, 2), (3, 3)], "matrix"),
    "matrix_norm_nuc": (lambda M, x: M.linalg.matrix_norm(x, "nuc"), [(4, 3)], "matrix"),
}


def _setitem(M, x, v):
    y = x * 1
    y[M.tensor([2, 0])] = v
    return y


def _setitem_mask(M, x, v):
    y = x * x
    y[x > 0] = v
    return y


def _inplace_chain(M, x, w):
    y = x * 1
    y.mul_(w)
    y.add_(w, alpha=2)
    y.div_(w)
    y.tanh_()
    return y


def _inplace_view(M, x, w):
    y = x * 2
    y[1].mul_(w)
    y[:, 0].sin_()
    return y


def _copy_into(M, x):
    out = M.zeros(3, 4, dtype=x.dtype)
    out[1:3] = x
    return out


def _eigh_use(M, x):
    w, v = M.linalg.eigh(x + x.transpose(-1, -2))
    # eigenvectors are defined up to sign: use a sign-invariant function of them
    return w.sum() + (v * v * M.arange(3, dtype=x.dtype)).sum()


def _svd_use(M, x):
    u, s, vh = M.linalg.svd(x, full_matrices=False)
    return s.sum() + ((u @ vh) * M.arange(3, dtype=x.dtype)).sum()


def values(shapes, domain, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i, shape in enumerate(shapes):
        n = int(np.prod(shape)) if shape else 1
        if domain == "pos":
            v = rng.uniform(0.5, 2.0, n)
        elif domain == "unit":
            v = rng.uniform(-0.8, 0.8, n)
        elif domain == "distinct":
            v = rng.permutation(n).astype(np.float64) / n - 0.45 + 0.013 * i
            v = v + rng.uniform(-0.001, 0.001, n)
        elif domain == "matrix":
            v = rng.normal(size=n)
            if len(shape) >= 2 and shape[-1] == shape[-2]:
                v = (v.reshape(shape) + 3 * np.eye(shape[-1])).reshape(-1)
        else:
            v = rng.normal(size=n)
        out.append(v.reshape(shape))
    return out
