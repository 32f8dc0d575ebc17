"""The blocked attention kernel behind F.scaled_dot_product_attention (float32 and float64,
no dropout): values and gradients against PyTorch's, for masks, causal shapes, GQA, odd
sizes and strides; gradcheck, gradgradcheck through the formula, and threads."""

from __future__ import annotations

import numpy as np
import pytest

import pyth
import pyth.nn.functional as F

torch = pytest.importorskip("torch")

DTYPES = [(pyth.float64, torch.float64, 1e-10), (pyth.float32, torch.float32, 2e-5)]


def _pair(rng: np.random.Generator, shape: tuple, dt: tuple, scale: float = 1.0) -> tuple:
    a = (rng.standard_normal(shape) * scale).astype(np.float64)
    p = pyth.tensor(a, dtype=dt[0]).requires_grad_()
    t = torch.tensor(a, dtype=dt[1]).requires_grad_()
    return p, t


def _check(pq, tq, pk, tk, pv, tv, tol: float, pmask=None, tmask=None, **kw) -> None:
    """Forward and backward of both libraries agree (values and the gradients of q, k, v and
    a float mask), and the kernel's node is the one recorded."""
    out = F.scaled_dot_product_attention(pq, pk, pv, pmask, **kw)
    ref = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, tmask, **kw)
    assert tuple(out.shape) == tuple(ref.shape)
    assert out.dtype is pq.dtype
    if out.dim() == 4:
        assert type(out.grad_fn).__name__ == "ScaledDotProductAttentionBackward0"
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)
    g = np.random.default_rng(7).standard_normal(tuple(ref.shape))
    out.backward(pyth.tensor(g, dtype=pq.dtype))
    ref.backward(torch.tensor(g, dtype=tq.dtype))
    pairs = [(pq, tq), (pk, tk), (pv, tv)]
    if pmask is not None and pmask.dtype is not pyth.bool:
        pairs.append((pmask, tmask))
    for p, t in pairs:
        if t.grad is None:
            assert p.grad is None
            continue
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=tol * 10,
                                   atol=tol * 10)


@pytest.mark.parametrize("dt", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("L,S", [(5, 5), (3, 9), (9, 3), (70, 70), (130, 65), (65, 150)])
def test_shapes_and_causal(dt, causal, L, S) -> None:
    rng = np.random.default_rng(L * 1000 + S)
    q = _pair(rng, (2, 3, L, 8), dt)
    k = _pair(rng, (2, 3, S, 8), dt)
    v = _pair(rng, (2, 3, S, 5), dt)
    _check(*q, *k, *v, dt[2], is_causal=causal)


@pytest.mark.parametrize("dt", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("mshape", [(7, 11), (1, 1, 7, 11), (2, 1, 7, 11), (1, 3, 7, 11),
                                    (2, 3, 7, 11), (11,), (2, 3, 1, 11)])
def test_float_mask_broadcast_and_gradient(dt, mshape) -> None:
    rng = np.random.default_rng(sum(mshape))
    q = _pair(rng, (2, 3, 7, 4), dt)
    k = _pair(rng, (2, 3, 11, 4), dt)
    v = _pair(rng, (2, 3, 11, 6), dt)
    m = _pair(rng, mshape, dt)
    _check(*q, *k, *v, dt[2], *m)


@pytest.mark.parametrize("dt", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("mshape", [(7, 11), (2, 1, 7, 11), (1, 3, 1, 11)])
def test_bool_mask_with_fully_masked_rows(dt, mshape) -> None:
    rng = np.random.default_rng(3)
    q = _pair(rng, (2, 3, 7, 4), dt)
    k = _pair(rng, (2, 3, 11, 4), dt)
    v = _pair(rng, (2, 3, 11, 6), dt)
    keep = rng.random(mshape) > 0.4
    if len(mshape) >= 2 and mshape[-2] > 1:
        keep[..., 2, :] = False   # a row with every key masked: 0 output, 0 gradient
    else:
        keep[..., :] = keep[..., :] & (np.arange(11) % 2 == 0)
    _check(*q, *k, *v, dt[2], pyth.tensor(keep), torch.tensor(keep))


@pytest.mark.parametrize("dt", DTYPES, ids=["float64", "float32"])
def test_float_mask_of_minus_inf_rows(dt) -> None:
    rng = np.random.default_rng(4)
    q = _pair(rng, (1, 2, 6, 3), dt)
    k = _pair(rng, (1, 2, 80, 3), dt)
    v = _pair(rng, (1, 2, 80, 3), dt)
    m = rng.standard_normal((6, 80))
    m[1] = -np.inf
    m[3, :70] = -np.inf      # only the second key tile takes part
    pm = pyth.tensor(m, dtype=dt[0])
    tm = torch.tensor(m, dtype=dt[1])
    _check(*q, *k, *v, dt[2], pm, tm)


@pytest.mark.parametrize("dt", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("scale", [0.1, 2.5])
def test_scale(dt, scale) -> None:
    rng = np.random.default_rng(5)
    q = _pair(rng, (2, 2, 9, 16), dt)
    k = _pair(rng, (2, 2, 9, 16), dt)
    v = _pair(rng, (2, 2, 9, 16), dt)
    _check(*q, *k, *v, dt[2], is_causal=True, scale=scale)


@pytest.mark.parametrize("dt", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("hq,hk", [(4, 1), (4, 2), (6, 3)])
@pytest.mark.parametrize("causal", [False, True])
def test_grouped_query_attention(dt, hq, hk, causal) -> None:
    rng = np.random.default_rng(hq * 10 + hk)
    q = _pair(rng, (2, hq, 10, 8), dt)
    k = _pair(rng, (2, hk, 12, 8), dt)
    v = _pair(rng, (2, hk, 12, 4), dt)
    _check(*q, *k, *v, dt[2], is_causal=causal, enable_gqa=True)


@pytest.mark.parametrize("dt", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("E,Ev", [(1, 1), (64, 64), (96, 80)])
def test_head_dims(dt, E, Ev) -> None:
    rng = np.random.default_rng(E)
    q = _pair(rng, (1, 2, 67, E), dt, 0.3)
    k = _pair(rng, (1, 2, 67, E), dt, 0.3)
    v = _pair(rng, (1, 2, 67, Ev), dt)
    _check(*q, *k, *v, dt[2] * 5, is_causal=True)


@pytest.mark.parametrize("dt", DTYPES, ids=["float64", "float32"])
def test_transposed_inputs(dt) -> None:
    rng = np.random.default_rng(6)
    a = [rng.standard_normal((2, 13, 3, 8)) for _ in range(3)]   # (B, L, H, E) as a model
    ps = [pyth.tensor(x, dtype=dt[0]).requires_grad_() for x in a]
    ts = [torch.tensor(x, dtype=dt[1]).requires_grad_() for x in a]
    pt = [x.transpose(1, 2) for x in ps]
    tt = [x.transpose(1, 2) for x in ts]
    out = F.scaled_dot_product_attention(*pt, is_causal=True)
    ref = torch.nn.functional.scaled_dot_product_attention(*tt, is_causal=True)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=dt[2],
                               atol=dt[2])
    out.sum().backward()
    ref.sum().backward()
    for p, t in zip(ps, ts):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=dt[2] * 10,
                                   atol=dt[2] * 10)


@pytest.mark.parametrize("shape", [(5, 4), (3, 5, 4), (1, 5, 4), (2, 2, 3, 5, 4),
                                   (1, 1, 1, 5, 4)])
def test_leading_shapes(shape) -> None:
    dt = DTYPES[0]
    rng = np.random.default_rng(len(shape))
    q = _pair(rng, shape, dt)
    k = _pair(rng, shape[:-2] + (7, 4), dt)
    v = _pair(rng, shape[:-2] + (7, 3), dt)
    _check(*q, *k, *v, dt[2])


def test_broadcast_key_over_heads() -> None:
    dt = DTYPES[0]
    rng = np.random.default_rng(8)
    q = _pair(rng, (2, 3, 5, 4), dt)
    k = _pair(rng, (2, 1, 6, 4), dt)
    v = _pair(rng, (1, 3, 6, 2), dt)
    _check(*q, *k, *v, dt[2], is_causal=True)


def test_no_grad_records_nothing() -> None:
    q = pyth.randn(1, 2, 5, 4)
    with pyth.no_grad():
        out = F.scaled_dot_product_attention(q.requires_grad_(), q, q)
    assert out.grad_fn is None and not out.requires_grad


def test_gradcheck_and_gradgradcheck() -> None:
    rng = np.random.default_rng(9)
    mk = lambda *s: pyth.tensor(rng.standard_normal(s)).requires_grad_()  # noqa: E731
    q, k, v, m = mk(1, 2, 4, 3), mk(1, 1, 6, 3), mk(1, 1, 6, 2), mk(4, 6)
    fn = lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m, enable_gqa=True)  # noqa: E731
    assert pyth.autograd.gradcheck(fn, (q, k, v, m))
    assert pyth.autograd.gradgradcheck(fn, (q, k, v, m))
    causal = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
    q2, k2, v2 = mk(2, 5, 3), mk(2, 3, 3), mk(2, 3, 2)
    assert pyth.autograd.gradcheck(causal, (q2, k2, v2))
    assert pyth.autograd.gradgradcheck(causal, (q2, k2, v2))


def test_threads_agree() -> None:
    rng = np.random.default_rng(10)
    a = [pyth.tensor(rng.standard_normal((4, 4, 200, 32)), dtype=pyth.float32)
         for _ in range(3)]
    before = pyth.get_num_threads()
    results = []
    try:
        for n in (1, 2):
            pyth.set_num_threads(n)
            xs = [x.detach().requires_grad_() for x in a]
            out = F.scaled_dot_product_attention(*xs, is_causal=True)
            out.sum().backward()
            results.append([out.detach().numpy()] + [x.grad.numpy() for x in xs])
    finally:
        pyth.set_num_threads(before)
    for one, two in zip(*results):
        np.testing.assert_array_equal(one, two)


def test_fallbacks_keep_the_composed_path() -> None:
    q = pyth.randn(1, 2, 4, 3, requires_grad=True)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert type(out.grad_fn).__name__ != "ScaledDotProductAttentionBackward0"
    h = pyth.randn(1, 2, 4, 3, dtype=pyth.bfloat16, requires_grad=True)
    out = F.scaled_dot_product_attention(h, h, h)
    assert out.dtype is pyth.bfloat16
    assert type(out.grad_fn).__name__ != "ScaledDotProductAttentionBackward0"
    z = pyth.randn(1, 2, 0, 3, requires_grad=True)
    assert tuple(F.scaled_dot_product_attention(z, q, q).shape) == (1, 2, 0, 3)


def test_extreme_scores_are_stable() -> None:
    rng = np.random.default_rng(11)
    a = [rng.standard_normal((1, 1, 70, 4)) * 300 for _ in range(3)]
    out = F.scaled_dot_product_attention(*[pyth.tensor(x) for x in a])
    ref = torch.nn.functional.scaled_dot_product_attention(*[torch.tensor(x) for x in a])
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-9, atol=1e-9)


def test_multihead_attention_without_weights_uses_the_kernel() -> None:
    pyth.manual_seed(0)
    mha = pyth.nn.MultiheadAttention(8, 2, batch_first=True)
    x = pyth.randn(2, 5, 8)
    mask = pyth.nn.Transformer.generate_square_subsequent_mask(5)
    out, w = mha(x, x, x, attn_mask=mask, need_weights=False, is_causal=True)
    assert w is None
    names, seen = set(), set()
    stack = [out.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        names.add(type(n).__name__)
        stack.extend(f for f, _ in n.next_functions)
    assert "ScaledDotProductAttentionBackward0" in names
    out2, w2 = mha(x, x, x, attn_mask=mask, need_weights=True)
    assert w2 is not None
    np.testing.assert_allclose(out.detach().numpy(), out2.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
