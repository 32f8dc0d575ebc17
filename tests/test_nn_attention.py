"""Attention and transformer layers through pyth.nn: F.scaled_dot_product_attention,
F.multi_head_attention_forward, nn.MultiheadAttention and the Transformer family.

Values and float64 gradients (one seeded upstream gradient, at the inputs and at every
parameter) against PyTorch with identical weights (PyTorch's state_dict loaded into pyth), for
bool and float masks of each kind, causal attention, GQA, batch_first both ways, unbatched
inputs, kdim/vdim, add_bias_kv/add_zero_attn, norm_first, gelu and callable activations;
gradcheck in float64 on small sizes; zero-size inputs where PyTorch accepts them; error paths
by exception class against PyTorch; state_dict keys and parameter order against PyTorch;
dropout in train and eval. Dropout comparisons use p = 0 (the random streams differ)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _support import expected_error, needs_torch, rng, seeded, torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck
from pyth.nn import functional as F

TF = torch.nn.functional if torch is not None else None

TOL = 1e-9
# PyTorch's own notes (nested tensors off, mismatched mask dtypes) are not under test here
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True",
                                        "ignore:Support for mismatched")


# ==== helpers ====================================================================================

def to_pyth(t):
    """A pyth copy of torch tensor t (bool and float alike), keeping requires_grad."""
    p = pyth.from_numpy(t.detach().numpy().copy())
    return p.requires_grad_(True) if t.requires_grad else p


def leaves(*shapes, key="x"):
    """float64 (pyth, torch) leaf pairs requiring grad, seeded by their shapes."""
    out = []
    for i, s in enumerate(shapes):
        t = torch.tensor(seeded(*s, key=(key, i)), dtype=torch.float64, requires_grad=True)
        out.append((to_pyth(t), t))
    return out


def close(p, t, tol=TOL):
    np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def backward_both(py, ty, pairs, tol=TOL):
    """Backward of one seeded upstream gradient through both results; every leaf's gradient
    agrees (pairs of (pyth leaf, torch leaf))."""
    g = seeded(*ty.shape, key="upstream")
    py.backward(pyth.tensor(g, dtype=py.dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    for i, (p, t) in enumerate(pairs):
        if t.grad is None:
            assert p.grad is None or not np.any(p.grad.numpy()), f"leaf {i}"
            continue
        assert p.grad is not None, f"no gradient reached leaf {i}"
        close(p.grad, t.grad, tol)


def twin(tm, pm):
    """Loads torch module tm's state into pyth module pm (strict), both float64."""
    pm.load_state_dict({k: to_pyth(v) for k, v in tm.state_dict().items()})
    assert list(pm.state_dict()) == list(tm.state_dict())
    return pm


def param_pairs(pm, tm):
    """(pyth, torch) parameter pairs, checked to follow one order with one set of names."""
    pn, tn = dict(pm.named_parameters()), dict(tm.named_parameters())
    assert list(pn) == list(tn)
    return [(pn[k], tn[k]) for k in tn]


def same_error(pf, tf):
    """tf raises; pf must raise the matching class."""
    with pytest.raises(Exception) as te:
        tf()
    with pytest.raises(expected_error(te.value)):
        pf()


# ==== scaled_dot_product_attention ===============================================================

def _bool_mask(*shape, key=0, dead_row=True):
    """A seeded bool mask (True = attend); row 0 fully False when dead_row (PyTorch gives 0)."""
    m = rng(shape, key).random(shape) > 0.4
    if dead_row:
        m[..., 0, :] = False
    return torch.tensor(m)


SDPA_CASES = {
    "4d": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), {}),
    "3d": ((3, 4, 8), (3, 5, 8), (3, 5, 6), {}),
    "2d": ((4, 8), (5, 8), (5, 6), {}),
    "5d": ((2, 1, 2, 3, 4), (2, 1, 2, 5, 4), (2, 1, 2, 5, 3), {}),
    "broadcast_batch": ((1, 3, 4, 8), (2, 3, 5, 8), (2, 1, 5, 6), {}),
    "causal_square": ((2, 2, 5, 4), (2, 2, 5, 4), (2, 2, 5, 3), {"is_causal": True}),
    "causal_wide": ((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), {"is_causal": True}),
    "causal_tall": ((2, 2, 5, 4), (2, 2, 3, 4), (2, 2, 3, 3), {"is_causal": True}),
    "bool_mask": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), {"bool": (4, 5)}),
    "bool_mask_4d": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), {"bool": (2, 1, 4, 5)}),
    "float_mask": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), {"float": (4, 5)}),
    "float_mask_bcast": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), {"float": (1, 3, 1, 5)}),
    "scale": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), {"scale": 0.37}),
    "scale_zero": ((2, 4, 8), (2, 5, 8), (2, 5, 6), {"scale": 0.0}),
    "gqa": ((2, 6, 4, 8), (2, 2, 5, 8), (2, 3, 5, 6), {"enable_gqa": True}),
    "gqa_same": ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), {"enable_gqa": True}),
}


def _sdpa_kwargs(kw):
    """(pyth kwargs, torch kwargs, extra (pyth, torch) leaves) for a case's options."""
    pk, tk, extra = {}, {}, []
    for name, val in kw.items():
        if name == "bool":
            tm = _bool_mask(*val)
            pk["attn_mask"], tk["attn_mask"] = to_pyth(tm), tm
        elif name == "float":
            (pm, tm), = leaves(val, key="mask")
            pk["attn_mask"], tk["attn_mask"] = pm, tm
            extra.append((pm, tm))
        else:
            pk[name] = tk[name] = val
    return pk, tk, extra


@needs_torch
@pytest.mark.parametrize("case", list(SDPA_CASES))
def test_sdpa_values_and_grads(case):
    qs, ks, vs, kw = SDPA_CASES[case]
    pairs = leaves(qs, ks, vs)
    pk, tk, extra = _sdpa_kwargs(kw)
    py = F.scaled_dot_product_attention(*[p for p, _ in pairs], **pk)
    ty = TF.scaled_dot_product_attention(*[t for _, t in pairs], **tk)
    assert tuple(py.shape) == tuple(ty.shape) and py.dtype is pyth.float64
    close(py, ty)
    backward_both(py, ty, pairs + extra)


@needs_torch
def test_sdpa_float32():
    pairs = leaves((2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8))
    p32 = [p.detach().float() for p, _ in pairs]
    t32 = [t.detach().float() for _, t in pairs]
    mask = _bool_mask(4, 5)
    py = F.scaled_dot_product_attention(*p32, attn_mask=to_pyth(mask))
    ty = TF.scaled_dot_product_attention(*t32, attn_mask=mask)
    assert py.dtype is pyth.float32
    close(py, ty, 1e-5)


def test_sdpa_matches_formula_without_torch():
    q, k, v = (pyth.tensor(seeded(*s, key=i)) for i, s in enumerate([(3, 4), (5, 4), (5, 2)]))
    got = F.scaled_dot_product_attention(q, k, v).numpy()
    s = q.numpy() @ k.numpy().T / 2.0
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    np.testing.assert_allclose(got, w @ v.numpy(), rtol=1e-12)


def test_sdpa_causal_equals_its_mask():
    q, k, v = (pyth.tensor(seeded(2, 5, 4, key=i)) for i in range(3))
    causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    mask = pyth.ones(5, 5, dtype=pyth.bool).tril()
    np.testing.assert_allclose(causal.numpy(),
                               F.scaled_dot_product_attention(q, k, v, mask).numpy())
    # the first query sees only the first key: its output is that key's value
    np.testing.assert_allclose(causal[:, 0].numpy(), v[:, 0].numpy(), rtol=1e-12)


def test_sdpa_dead_rows_are_zero_with_zero_gradient():
    q, k, v = (pyth.tensor(seeded(3, 4, key=i)).requires_grad_() for i in range(3))
    mask = pyth.ones(3, 3, dtype=pyth.bool)
    mask[1] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert not np.any(out[1].detach().numpy()) and np.all(np.isfinite(out.detach().numpy()))
    out.sum().backward()
    assert not np.any(q.grad[1].numpy()) and np.all(np.isfinite(k.grad.numpy()))


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"mask": "bool"}, {"mask": "float"},
                                {"scale": 0.5}, {"enable_gqa": True}])
def test_sdpa_gradcheck(kw):
    kw = dict(kw)
    hk = 1 if kw.get("enable_gqa") else 2
    q = pyth.tensor(seeded(1, 2, 3, 4, key="q")).requires_grad_()
    k = pyth.tensor(seeded(1, hk, 4, 4, key="k")).requires_grad_()
    v = pyth.tensor(seeded(1, hk, 4, 3, key="v")).requires_grad_()
    inputs = [q, k, v]
    mask = kw.pop("mask", None)
    if mask == "bool":
        kw["attn_mask"] = pyth.tensor(rng("m").random((3, 4)) > 0.3)
    elif mask == "float":
        inputs.append(pyth.tensor(seeded(3, 4, key="fm")).requires_grad_())

    def f(*xs):
        extra = {"attn_mask": xs[3]} if len(xs) > 3 else {}
        return F.scaled_dot_product_attention(*xs[:3], **kw, **extra)
    assert gradcheck(f, tuple(inputs), eps=1e-6, atol=1e-5)


@needs_torch
@pytest.mark.parametrize("shapes", [((0, 2, 4, 8), (0, 2, 5, 8), (0, 2, 5, 6)),
                                    ((2, 2, 0, 8), (2, 2, 5, 8), (2, 2, 5, 6)),
                                    ((2, 2, 4, 8), (2, 2, 0, 8), (2, 2, 0, 6)),
                                    ((2, 2, 4, 0), (2, 2, 5, 0), (2, 2, 5, 6)),
                                    ((2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 0))])
def test_sdpa_zero_size(shapes):
    pairs = leaves(*shapes)
    py = F.scaled_dot_product_attention(*[p for p, _ in pairs])
    ty = TF.scaled_dot_product_attention(*[t for _, t in pairs])
    assert tuple(py.shape) == tuple(ty.shape)
    close(py, ty)
    if ty.numel():
        backward_both(py, ty, pairs)


def _sdpa_error_cases():
    t = torch
    q, k, v = t.randn(2, 3, 4, 8), t.randn(2, 3, 5, 8), t.randn(2, 3, 5, 6)
    return {
        "1d": ((q[0, 0, 0], k[0, 0, 0], v[0, 0, 0]), {}),
        "dtypes": ((q.double(), k, v), {}),
        "ints": ((q.int(), k.int(), v.int()), {}),
        "embed": ((q, k[..., :7], v), {}),
        "source": ((q, k, v[..., :4, :]), {}),
        "int_mask": ((q, k, v), {"attn_mask": t.zeros(4, 5, dtype=t.int64)}),
        "double_mask": ((q, k, v), {"attn_mask": t.zeros(4, 5, dtype=t.float64)}),
        "mask_shape": ((q, k, v), {"attn_mask": t.zeros(3, 5)}),
        "causal_and_mask": ((q, k, v), {"attn_mask": t.ones(4, 5, dtype=t.bool),
                                        "is_causal": True}),
        "gqa_divide": ((t.randn(2, 6, 4, 8), k[:, :2].repeat(1, 2, 1, 1),
                        t.randn(2, 4, 5, 6)), {"enable_gqa": True}),
        "dropout": ((q, k, v), {"dropout_p": 1.5}),
        "gqa_2d": ((q[0, 0], k[0, 0], v[0, 0]), {"enable_gqa": True}),
        "batch": ((q[:, :2], k, v), {}),
    }


SDPA_ERRORS = ["1d", "dtypes", "ints", "embed", "source", "int_mask", "double_mask", "mask_shape",
               "causal_and_mask", "gqa_divide", "gqa_2d", "dropout", "batch"]


@needs_torch
@pytest.mark.parametrize("name", SDPA_ERRORS)
def test_sdpa_errors_match_torch(name):
    args, kw = _sdpa_error_cases()[name]
    pargs = [to_pyth(a) for a in args]
    pkw = {n: to_pyth(x) if hasattr(x, "detach") else x for n, x in kw.items()}
    same_error(lambda: F.scaled_dot_product_attention(*pargs, **pkw),
               lambda: TF.scaled_dot_product_attention(*args, **kw))


def test_sdpa_dropout_zeroes_and_rescales_weights():
    pyth.manual_seed(0)
    q, k = pyth.tensor(seeded(2, 6, 3, key="q")), pyth.tensor(seeded(2, 6, 3, key="k"))
    eye = pyth.eye(6, dtype=pyth.float64)          # value = I: the output is the weights
    plain = F.scaled_dot_product_attention(q, k, eye).numpy()
    dropped = F.scaled_dot_product_attention(q, k, eye, dropout_p=0.5).numpy()
    kept = dropped != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(dropped[kept], 2 * plain[kept], rtol=1e-12)


# ==== MultiheadAttention =========================================================================

def _mha_pair(e=8, h=2, **kw):
    """(torch module, pyth twin) in float64 with torch's weights; bias_k/bias_v get torch's."""
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(e, h, dtype=torch.float64, **kw)
    pm = nn.MultiheadAttention(e, h, dtype=pyth.float64, **kw)
    return tm, twin(tm, pm)


MHA_CASES = {
    "self": ({}, {"self": True}),
    "cross": ({}, {"lk": 5}),
    "batch_first": ({"batch_first": True}, {"lk": 5}),
    "batch_first_self": ({"batch_first": True}, {"self": True}),
    "unbatched": ({}, {"unbatched": True, "lk": 5}),
    "unbatched_bf": ({"batch_first": True}, {"unbatched": True, "lk": 5}),
    "no_weights": ({}, {"need_weights": False, "lk": 5}),
    "per_head": ({}, {"average_attn_weights": False, "lk": 5}),
    "kdim_vdim": ({"kdim": 5, "vdim": 3}, {"lk": 5}),
    "kdim_vdim_no_weights": ({"kdim": 5, "vdim": 3}, {"need_weights": False}),
    "no_bias": ({"bias": False}, {"lk": 5}),
    "bias_kv": ({"add_bias_kv": True}, {"lk": 5, "kpm": "bool", "mask": "bool2"}),
    "zero_attn": ({"add_zero_attn": True}, {"lk": 5, "kpm": "float", "mask": "float3"}),
    "bias_kv_zero_attn": ({"add_bias_kv": True, "add_zero_attn": True},
                          {"lk": 5, "need_weights": False, "mask": "float2"}),
    "kpm_bool": ({}, {"lk": 5, "kpm": "bool"}),
    "kpm_bool_no_weights": ({}, {"lk": 5, "kpm": "bool", "need_weights": False}),
    "kpm_float": ({}, {"lk": 5, "kpm": "float"}),
    "mask_bool_2d": ({}, {"lk": 5, "mask": "bool2"}),
    "mask_float_2d": ({}, {"lk": 5, "mask": "float2"}),
    "mask_bool_3d": ({}, {"lk": 5, "mask": "bool3", "need_weights": False}),
    "mask_float_3d": ({}, {"lk": 5, "mask": "float3"}),
    "masks_both": ({"batch_first": True}, {"lk": 5, "mask": "float2", "kpm": "float",
                                           "need_weights": False}),
    "unbatched_masks": ({}, {"unbatched": True, "lk": 5, "mask": "bool3", "kpm": "bool"}),
    "causal": ({}, {"self": True, "mask": "causal", "is_causal": True,
                    "need_weights": False}),
    "causal_weights": ({}, {"self": True, "mask": "causal", "is_causal": True}),
    "causal_kpm": ({}, {"self": True, "mask": "causal", "is_causal": True, "kpm": "bool",
                        "need_weights": False}),
}


def _mha_masks(opts, n, heads, lq, lk):
    """(pyth kwargs, torch kwargs) holding the case's masks (True / -inf = left out)."""
    pk, tk = {}, {}
    g = rng("masks", n, lq, lk)
    kpm = opts.get("kpm")
    if kpm:
        shape = (lk,) if opts.get("unbatched") else (n, lk)
        m = g.random(shape) < 0.3
        m[..., 1] = False                       # every row keeps a key
        t = torch.tensor(m) if kpm == "bool" else torch.tensor(np.where(m, -1e9, 0.0))
        pk["key_padding_mask"], tk["key_padding_mask"] = to_pyth(t), t
    mask = opts.get("mask")
    if mask:
        if mask == "causal":
            t = torch.nn.Transformer.generate_square_subsequent_mask(lq, dtype=torch.float64)
        else:
            shape = (lq, lk) if mask[-1] == "2" else (heads * (1 if opts.get("unbatched")
                                                               else n), lq, lk)
            m = g.random(shape) < 0.3
            m[..., 0] = False
            t = torch.tensor(m) if mask.startswith("bool") else torch.tensor(g.normal(size=shape))
        pk["attn_mask"], tk["attn_mask"] = to_pyth(t), t
    return pk, tk


def _mha_inputs(tm, opts, n=2, lq=4):
    """(pyth leaves, torch leaves) for query, key, value (one tensor for self-attention)."""
    lk = lq if opts.get("self") else opts.get("lk", lq)
    bf = tm.batch_first

    def shape(length, e):
        if opts.get("unbatched"):
            return (length, e)
        return (n, length, e) if bf else (length, n, e)
    if opts.get("self"):
        (p, t), = leaves(shape(lq, tm.embed_dim))
        return [p, p, p], [t, t, t], [(p, t)], lk
    pairs = leaves(shape(lq, tm.embed_dim), shape(lk, tm.kdim), shape(lk, tm.vdim))
    return [p for p, _ in pairs], [t for _, t in pairs], pairs, lk


@needs_torch
@pytest.mark.parametrize("case", list(MHA_CASES))
def test_mha_values_and_grads(case):
    ctor, opts = MHA_CASES[case]
    tm, pm = _mha_pair(**ctor)
    pin, tin, pairs, lk = _mha_inputs(tm, opts)
    pk, tk = _mha_masks(opts, 2, tm.num_heads, 4, lk)
    for name in ("need_weights", "average_attn_weights", "is_causal"):
        if name in opts:
            pk[name] = tk[name] = opts[name]
    py, pw = pm(*pin, **pk)
    ty, tw = tm(*tin, **tk)
    assert tuple(py.shape) == tuple(ty.shape)
    close(py, ty)
    assert (pw is None) == (tw is None)
    if tw is not None:
        assert tuple(pw.shape) == tuple(tw.shape)
        close(pw, tw)
        py = py.sum() + (pw * pyth.tensor(seeded(*tw.shape, key="w"))).sum()
        ty = ty.sum() + (tw * torch.tensor(seeded(*tw.shape, key="w"))).sum()
    backward_both(py, ty, pairs + param_pairs(pm, tm))


@needs_torch
def test_mha_functional_static_kv():
    tm, pm = _mha_pair()
    pairs = leaves((4, 2, 8), (5, 2, 8), (5, 2, 8), (4, 5, 4), (4, 5, 4))
    (pq, tq), (pk_, tk_), (pv, tv), (psk, tsk), (psv, tsv) = pairs

    def call(fn, mod, q, k, v, sk, sv):
        return fn(q, k, v, 8, 2, mod.in_proj_weight, mod.in_proj_bias, None, None, False, 0.0,
                  mod.out_proj.weight, mod.out_proj.bias, static_k=sk, static_v=sv)
    py, pw = call(F.multi_head_attention_forward, pm, pq, pk_, pv, psk, psv)
    ty, tw = call(TF.multi_head_attention_forward, tm, tq, tk_, tv, tsk, tsv)
    close(py, ty)
    close(pw, tw)
    backward_both(py, ty, pairs)


@needs_torch
@pytest.mark.parametrize("bad", ["static_k_heads", "static_v_dim", "bias_with_static"])
def test_mha_functional_static_errors_match_torch(bad):
    tm, pm = _mha_pair()
    x = torch.randn(4, 2, 8, dtype=torch.float64)
    sk = torch.randn(3 if bad == "static_k_heads" else 4, 4, 4, dtype=torch.float64)
    sv = torch.randn(4, 4, 3 if bad == "static_v_dim" else 4, dtype=torch.float64)
    bk = torch.zeros(1, 1, 8, dtype=torch.float64) if bad == "bias_with_static" else None

    def call(fn, mod, conv):
        b = None if bk is None else conv(bk)
        return fn(conv(x), conv(x), conv(x), 8, 2, mod.in_proj_weight, mod.in_proj_bias, b, b,
                  False, 0.0, mod.out_proj.weight, mod.out_proj.bias, static_k=conv(sk),
                  static_v=conv(sv))
    same_error(lambda: call(F.multi_head_attention_forward, pm, to_pyth),
               lambda: call(TF.multi_head_attention_forward, tm, lambda t: t))


@needs_torch
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_fully_padded_sample(need_weights):
    """A sample whose keys are all padded: NaN through the weights path (plain softmax), 0
    through scaled_dot_product_attention, as in PyTorch."""
    tm, pm = _mha_pair()
    (p, t), = leaves((3, 2, 8))
    kpm = torch.tensor([[True] * 3, [False, True, False]])
    py, _ = pm(p, p, p, key_padding_mask=to_pyth(kpm), need_weights=need_weights)
    ty, _ = tm(t, t, t, key_padding_mask=kpm, need_weights=need_weights)
    np.testing.assert_allclose(py.detach().numpy(), ty.detach().numpy(), rtol=TOL, atol=TOL,
                               equal_nan=True)
    assert np.isnan(py[:, 0].detach().numpy()).all() == need_weights


@pytest.mark.parametrize("ctor, opts", [({}, {}), ({"kdim": 3, "vdim": 5}, {"mask": True}),
                                        ({"add_bias_kv": True, "add_zero_attn": True},
                                         {"kpm": True}),
                                        ({"batch_first": True}, {"need_weights": False})])
def test_mha_gradcheck(ctor, opts):
    pyth.manual_seed(1)
    m = nn.MultiheadAttention(4, 2, dtype=pyth.float64, **ctor)
    if m.in_proj_bias is not None:
        with pyth.no_grad():
            m.in_proj_bias.copy_(pyth.tensor(seeded(12, key="b")))
    q = pyth.tensor(seeded(3, 2, 4, key="q")).requires_grad_()     # (L, N, E); batch_first: N=3
    k = pyth.tensor(seeded(3, 2, m.kdim, key="k")).requires_grad_()
    v = pyth.tensor(seeded(3, 2, m.vdim, key="v")).requires_grad_()
    kw = {"need_weights": opts.get("need_weights", True)}
    if opts.get("mask"):
        kw["attn_mask"] = pyth.tensor(seeded(3, 3, key="m"))
    if opts.get("kpm"):
        kw["key_padding_mask"] = pyth.tensor([[False, True, False], [False, False, True]])
    assert gradcheck(lambda a, b, c: m(a, b, c, **kw)[0], (q, k, v), eps=1e-6, atol=1e-5)


MHA_KEY_CONFIGS = [{}, {"bias": False}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True},
                   {"kdim": 3, "bias": False, "add_bias_kv": True}]


@needs_torch
@pytest.mark.parametrize("ctor", MHA_KEY_CONFIGS)
def test_mha_parameters_and_state_dict_match_torch(ctor):
    tm = torch.nn.MultiheadAttention(6, 3, **ctor)
    pm = nn.MultiheadAttention(6, 3, **ctor)
    assert [(k, tuple(v.shape)) for k, v in tm.named_parameters()] == \
        [(k, tuple(v.shape)) for k, v in pm.named_parameters()]
    assert list(tm.state_dict()) == list(pm.state_dict())
    assert type(pm.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(pm.out_proj, nn.Linear)
    for name in ("embed_dim", "kdim", "vdim", "num_heads", "head_dim", "dropout",
                 "batch_first", "_qkv_same_embed_dim", "add_zero_attn"):
        assert getattr(pm, name) == getattr(tm, name), name
    assert (pm.bias_k is None) == (tm.bias_k is None)


def test_mha_initialisation():
    pyth.manual_seed(0)
    m = nn.MultiheadAttention(16, 4, add_bias_kv=True)
    assert not np.any(m.in_proj_bias.detach().numpy())
    assert not np.any(m.out_proj.bias.detach().numpy())
    bound = math.sqrt(6.0 / (16 + 48))                # xavier_uniform_ on (48, 16)
    w = m.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert m.bias_k.shape == (1, 1, 16) and np.any(m.bias_k.detach().numpy())
    sep = nn.MultiheadAttention(4, 2, kdim=3, vdim=5)
    assert sep.in_proj_weight is None and tuple(sep.k_proj_weight.shape) == (4, 3)
    assert tuple(sep.v_proj_weight.shape) == (4, 5)


@needs_torch
def test_mha_dropout_train_and_eval():
    tm, pm = _mha_pair(dropout=0.5)
    (p, t), = leaves((4, 2, 8))
    pm.eval()
    tm.eval()
    close(pm(p, p, p)[0], tm(t, t, t)[0])
    pm.train()
    pyth.manual_seed(3)
    a = pm(p, p, p, need_weights=False)[0].detach().numpy()
    b = pm(p, p, p, need_weights=False)[0].detach().numpy()
    assert not np.allclose(a, b)


def _mha_error_cases():
    t = torch
    x3, x2 = t.randn(4, 2, 8), t.randn(4, 8)
    return {
        "query_1d": ((t.randn(8), t.randn(8), t.randn(8)), {}),
        "batched_key_2d": ((x3, x2, x2), {}),
        "unbatched_key_3d": ((x2, x3, x3), {}),
        "batched_kpm_1d": ((x3, x3, x3), {"key_padding_mask": t.zeros(4, dtype=t.bool)}),
        "unbatched_kpm_2d": ((x2, x2, x2), {"key_padding_mask": t.zeros(1, 4, dtype=t.bool)}),
        "mask_4d": ((x3, x3, x3), {"attn_mask": t.zeros(1, 1, 4, 4)}),
        "unbatched_mask_3d": ((x2, x2, x2), {"attn_mask": t.zeros(3, 4, 4)}),
        "mask_2d_shape": ((x3, x3, x3), {"attn_mask": t.zeros(4, 3)}),
        "mask_3d_shape": ((x3, x3, x3), {"attn_mask": t.zeros(2, 4, 4)}),
        "int_mask": ((x3, x3, x3), {"attn_mask": t.zeros(4, 4, dtype=t.int64)}),
        "int_kpm": ((x3, x3, x3), {"key_padding_mask": t.zeros(2, 4, dtype=t.int64)}),
        "kpm_shape": ((x3, x3, x3), {"key_padding_mask": t.zeros(2, 3, dtype=t.bool)}),
        "embed": ((t.randn(4, 2, 6), t.randn(4, 2, 6), t.randn(4, 2, 6)), {}),
        "key_value": ((x3, x3, t.randn(5, 2, 8)), {}),
        "causal_no_mask": ((x3, x3, x3), {"is_causal": True}),
    }


MHA_ERRORS = ["query_1d", "batched_key_2d", "unbatched_key_3d", "batched_kpm_1d",
              "unbatched_kpm_2d", "mask_4d", "unbatched_mask_3d", "mask_2d_shape",
              "mask_3d_shape", "int_mask", "int_kpm", "kpm_shape", "embed", "key_value",
              "causal_no_mask"]


@needs_torch
@pytest.mark.parametrize("name", MHA_ERRORS)
def test_mha_errors_match_torch(name):
    args, kw = _mha_error_cases()[name]
    tm = torch.nn.MultiheadAttention(8, 2)
    pm = twin(torch.nn.MultiheadAttention(8, 2), nn.MultiheadAttention(8, 2))
    pargs = [to_pyth(a) for a in args]
    pkw = {n: to_pyth(x) if hasattr(x, "detach") else x for n, x in kw.items()}
    same_error(lambda: pm(*pargs, **pkw), lambda: tm(*args, **kw))


@needs_torch
@pytest.mark.parametrize("args", [(0, 2), (8, 0), (8, 3), (-4, 2)])
def test_mha_constructor_errors_match_torch(args):
    same_error(lambda: nn.MultiheadAttention(*args), lambda: torch.nn.MultiheadAttention(*args))


@needs_torch
def test_mha_mismatched_mask_types_warn():
    pm = nn.MultiheadAttention(8, 2)
    x = pyth.randn(4, 2, 8)
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        pm(x, x, x, key_padding_mask=pyth.zeros(2, 4, dtype=pyth.bool),
           attn_mask=pyth.zeros(4, 4))


@needs_torch
@pytest.mark.parametrize("shape", [(4, 0, 8), (0, 2, 8)])
def test_mha_zero_size(shape):
    tm, pm = _mha_pair()
    (p, t), = leaves(shape)
    try:
        ty, tw = tm(t, t, t)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(expected_error(e)):
            pm(p, p, p)
        return
    py, pw = pm(p, p, p)
    assert tuple(py.shape) == tuple(ty.shape) and tuple(pw.shape) == tuple(tw.shape)
    close(py, ty)


# ==== Transformer layers =========================================================================

def _layer_pair(kind, **kw):
    """(torch layer, pyth twin) of kind ("TransformerEncoderLayer", ...), float64, dropout 0."""
    torch.manual_seed(0)
    kw = {"dim_feedforward": 16, "dropout": 0.0, **kw}
    tkw = {**kw, "activation": "relu"} if kw.get("activation") in ("callable", "gelu_fn") else kw
    tl = getattr(torch.nn, kind)(8, 2, dtype=torch.float64, **tkw)
    pkw = dict(kw)
    if pkw.get("activation") == "callable":
        tl.activation = lambda x: torch.tanh(x) * x
        pkw["activation"] = lambda x: x.tanh() * x
    elif pkw.get("activation") == "gelu_fn":
        tl.activation, pkw["activation"] = TF.gelu, F.gelu
    pl = getattr(nn, kind)(8, 2, dtype=pyth.float64, **pkw)
    return tl, twin(tl, pl)


ENC_CASES = {
    "post_norm": ({}, {}),
    "pre_norm": ({"norm_first": True}, {}),
    "gelu": ({"activation": "gelu"}, {}),
    "gelu_fn": ({"activation": "gelu_fn"}, {}),
    "callable": ({"activation": "callable"}, {}),
    "no_bias": ({"bias": False, "norm_first": True}, {}),
    "eps": ({"layer_norm_eps": 1e-3}, {}),
    "batch_first": ({"batch_first": True}, {"kpm": True}),
    "causal_mask": ({}, {"causal": True}),
    "causal_flag": ({"batch_first": True}, {"causal": True, "is_causal": True}),
    "bool_mask_kpm": ({"norm_first": True}, {"bool_mask": True, "kpm": True}),
    "unbatched": ({}, {"unbatched": True, "causal": True}),
}


def _masks_for(opts, n, length, prefix=""):
    """(pyth kwargs, torch kwargs) of a layer case's masks."""
    pk, tk = {}, {}
    if opts.get("causal"):
        t = torch.nn.Transformer.generate_square_subsequent_mask(length, dtype=torch.float64)
        pk[f"{prefix}mask"], tk[f"{prefix}mask"] = to_pyth(t), t
    if opts.get("bool_mask"):
        m = rng("bm", length).random((length, length)) < 0.3
        m[:, 0] = False
        t = torch.tensor(m)
        pk[f"{prefix}mask"], tk[f"{prefix}mask"] = to_pyth(t), t
    if opts.get("kpm"):
        m = np.zeros((n, length), dtype=bool)
        m[0, -2:] = True
        t = torch.tensor(m)
        pk[f"{prefix}key_padding_mask"], tk[f"{prefix}key_padding_mask"] = to_pyth(t), t
    return pk, tk


def _seq(batch_first, unbatched, n, length, key="x"):
    shape = (length, 8) if unbatched else ((n, length, 8) if batch_first else (length, n, 8))
    return leaves(shape, key=key)[0]


@needs_torch
@pytest.mark.parametrize("case", list(ENC_CASES))
def test_encoder_layer_values_and_grads(case):
    ctor, opts = ENC_CASES[case]
    tl, pl = _layer_pair("TransformerEncoderLayer", **ctor)
    p, t = _seq(ctor.get("batch_first", False), opts.get("unbatched"), 3, 5)
    pk, tk = _masks_for(opts, 3, 5, "src_")
    if opts.get("is_causal"):
        pk["is_causal"] = tk["is_causal"] = True
    py, ty = pl(p, **pk), tl(t, **tk)
    close(py, ty)
    backward_both(py, ty, [(p, t)] + param_pairs(pl, tl))


DEC_CASES = {
    "post_norm": ({}, {}),
    "pre_norm": ({"norm_first": True, "activation": "gelu"}, {}),
    "batch_first_masks": ({"batch_first": True}, {"causal": True, "kpm": True, "mem": True}),
    "causal_flag": ({}, {"causal": True, "is_causal": True}),
    "no_bias": ({"bias": False}, {"mem": True}),
    "unbatched": ({}, {"unbatched": True, "causal": True}),
}


@needs_torch
@pytest.mark.parametrize("case", list(DEC_CASES))
def test_decoder_layer_values_and_grads(case):
    ctor, opts = DEC_CASES[case]
    tl, pl = _layer_pair("TransformerDecoderLayer", **ctor)
    bf, unb = ctor.get("batch_first", False), opts.get("unbatched")
    p, t = _seq(bf, unb, 3, 5, "tgt")
    pm_, tm_ = _seq(bf, unb, 3, 6, "mem")
    pk, tk = _masks_for(opts, 3, 5, "tgt_")
    if opts.get("mem"):
        m = np.zeros((3, 6), dtype=bool)
        m[1, :2] = True
        fm = torch.tensor(rng("mm").normal(size=(5, 6)))
        for d, conv in ((tk, lambda x: x), (pk, to_pyth)):
            d["memory_key_padding_mask"] = conv(torch.tensor(m))
            d["memory_mask"] = conv(fm)
    if opts.get("is_causal"):
        pk["tgt_is_causal"] = tk["tgt_is_causal"] = True
    py, ty = pl(p, pm_, **pk), tl(t, tm_, **tk)
    close(py, ty)
    backward_both(py, ty, [(p, t), (pm_, tm_)] + param_pairs(pl, tl))


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("is_causal", [None, True, False])
def test_stacks_values_and_grads(batch_first, is_causal):
    torch.manual_seed(0)
    kw = {"dim_feedforward": 16, "dropout": 0.0, "batch_first": batch_first,
          "dtype": torch.float64}
    te = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, **kw), 2,
                                     torch.nn.LayerNorm(8, dtype=torch.float64),
                                     enable_nested_tensor=False)
    td = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, **kw), 2)
    pkw = {**kw, "dtype": pyth.float64}
    pe = twin(te, nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, **pkw), 2,
                                        nn.LayerNorm(8, dtype=pyth.float64),
                                        enable_nested_tensor=False))
    pd = twin(td, nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, **pkw), 2))
    (ps, ts), = [_seq(batch_first, False, 2, 5, "src")]
    (pt, tt), = [_seq(batch_first, False, 2, 4, "tgt")]
    smask = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    tmem = te(ts, mask=smask, is_causal=is_causal)
    pmem = pe(ps, mask=to_pyth(smask), is_causal=is_causal)
    close(pmem, tmem)
    ty = td(tt, tmem, tgt_mask=tmask, tgt_is_causal=is_causal)
    py = pd(pt, pmem, tgt_mask=to_pyth(tmask), tgt_is_causal=is_causal)
    close(py, ty)
    backward_both(py, ty, [(ps, ts), (pt, tt)] + param_pairs(pe, te) + param_pairs(pd, td))


@needs_torch
@pytest.mark.parametrize("ctor", [{}, {"batch_first": True, "norm_first": True},
                                  {"activation": "gelu", "bias": False}])
def test_transformer_values_grads_and_keys(ctor):
    torch.manual_seed(0)
    kw = {"num_encoder_layers": 2, "num_decoder_layers": 1, "dim_feedforward": 16,
          "dropout": 0.0, **ctor}
    tt = torch.nn.Transformer(8, 2, dtype=torch.float64, **kw)
    pt = twin(tt, nn.Transformer(8, 2, dtype=pyth.float64, **kw))
    bf = ctor.get("batch_first", False)
    ps, ts = _seq(bf, False, 2, 5, "src")
    pg, tg = _seq(bf, False, 2, 4, "tgt")
    tmask = nn.Transformer.generate_square_subsequent_mask(4, dtype=pyth.float64)
    kpm = torch.tensor([[False] * 4 + [True], [False] * 5])
    ty = tt(ts, tg, tgt_mask=torch.from_numpy(tmask.numpy().copy()), src_key_padding_mask=kpm,
            memory_key_padding_mask=kpm)
    py = pt(ps, pg, tgt_mask=tmask, src_key_padding_mask=to_pyth(kpm),
            memory_key_padding_mask=to_pyth(kpm))
    close(py, ty)
    backward_both(py, ty, [(ps, ts), (pg, tg)] + param_pairs(pt, tt))


@needs_torch
@pytest.mark.parametrize("make", [
    lambda m: m.Transformer(8, 2, 1, 1, 16),
    lambda m: m.TransformerEncoderLayer(8, 2, norm_first=True, bias=False),
    lambda m: m.TransformerDecoderLayer(8, 2, activation="gelu"),
    lambda m: m.TransformerEncoder(m.TransformerEncoderLayer(8, 2, 16), 3, m.LayerNorm(8)),
    lambda m: m.TransformerDecoder(m.TransformerDecoderLayer(8, 2, 16), 2),
])
def test_layer_state_dict_keys_match_torch(make):
    tm, pm = make(torch.nn), make(nn)
    assert list(pm.state_dict()) == list(tm.state_dict())
    assert [(k, tuple(v.shape)) for k, v in pm.named_parameters()] == \
        [(k, tuple(v.shape)) for k, v in tm.named_parameters()]


@needs_torch
@pytest.mark.parametrize("sz", [0, 1, 4])
def test_square_subsequent_mask(sz):
    got = nn.Transformer.generate_square_subsequent_mask(sz)
    want = torch.nn.Transformer.generate_square_subsequent_mask(sz)
    assert got.dtype is pyth.float32 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_transformer_initialisation_is_xavier():
    pyth.manual_seed(0)
    m = nn.Transformer(8, 2, 1, 1, 16)
    w = m.encoder.layers[0].linear1.weight.detach().numpy()
    assert np.abs(w).max() <= math.sqrt(6.0 / (8 + 16))
    assert np.allclose(m.encoder.norm.weight.detach().numpy(), 1.0)
    layers = m.encoder.layers
    assert layers[0].linear1.weight is not nn.Transformer(8, 2, 1, 1, 16).encoder.layers[0] \
        .linear1.weight


def test_encoder_clones_are_independent():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    enc = nn.TransformerEncoder(layer, 2)
    a, b = enc.layers[0].linear1.weight, enc.layers[1].linear1.weight
    assert a is not b and np.array_equal(a.detach().numpy(), b.detach().numpy())
    with pyth.no_grad():
        a.add_(1.0)
    assert not np.array_equal(a.detach().numpy(), b.detach().numpy())


@needs_torch
def test_layers_dropout_train_and_eval():
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3, dtype=torch.float64)
    pl = twin(tl, nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3, dtype=pyth.float64))
    p, t = _seq(False, False, 2, 5)
    tl.eval()
    pl.eval()
    close(pl(p), tl(t))
    pl.train()
    a, b = pl(p).detach().numpy(), pl(p).detach().numpy()
    assert not np.allclose(a, b)


def _transformer_error_cases():
    def model(m, **kw):
        return m.Transformer(8, 2, 1, 1, 16, **kw)
    return {
        "batch": (lambda m, t: model(m)(t.randn(5, 2, 8), t.randn(4, 3, 8))),
        "batch_first": (lambda m, t: model(m, batch_first=True)(t.randn(2, 5, 8),
                                                                 t.randn(3, 4, 8))),
        "d_model": (lambda m, t: model(m)(t.randn(5, 2, 6), t.randn(4, 2, 6))),
        "activation": (lambda m, t: m.TransformerEncoderLayer(8, 2, activation="tanh")),
        "heads": (lambda m, t: m.TransformerEncoderLayer(8, 3)),
        "layer_input": (lambda m, t: m.TransformerEncoderLayer(8, 2, 16)(t.randn(2, 3, 4, 8))),
    }


@needs_torch
@pytest.mark.parametrize("name", list(_transformer_error_cases()))
def test_transformer_errors_match_torch(name):
    f = _transformer_error_cases()[name]
    same_error(lambda: f(nn, pyth), lambda: f(torch.nn, torch))


@needs_torch
@pytest.mark.parametrize("shape", [(5, 0, 8), (0, 2, 8)])
def test_encoder_layer_zero_size(shape):
    tl, pl = _layer_pair("TransformerEncoderLayer")
    (p, t), = leaves(shape)
    try:
        ty = tl(t)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(expected_error(e)):
            pl(p)
        return
    py = pl(p)
    assert tuple(py.shape) == tuple(ty.shape)
    close(py, ty)
