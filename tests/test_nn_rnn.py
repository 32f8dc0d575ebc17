"""RNN, LSTM, GRU and their cells against PyTorch in float64: PyTorch's initialised weights are
loaded into pyth's module through load_state_dict, then outputs, final states and every
parameter's gradient are compared; gradcheck on small shapes; PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
from _support import P, T, close, load_from_torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(7)


def flat(out):
    """The tensors of an RNN's result: output, h_n (and c_n)."""
    o, h = out
    return [o, *h] if isinstance(h, tuple) else [o, h]


def compare(pm, tm, x: np.ndarray, hx=None, tol=1e-9):
    px, tx = P(x), T(x)
    if hx is None:
        pout, tout = pm(px), tm(tx)
        ph = th = None
    elif isinstance(hx, tuple):
        ph, th = tuple(P(h) for h in hx), tuple(T(h) for h in hx)
        pout, tout = pm(px, ph), tm(tx, th)
    else:
        ph, th = P(hx), T(hx)
        pout, tout = pm(px, ph), tm(tx, th)
    ps, ts = flat(pout), flat(tout)
    assert len(ps) == len(ts)
    gs = [RNG.standard_normal(tuple(t.shape)) for t in ts]
    for p, t in zip(ps, ts):
        assert tuple(p.shape) == tuple(t.shape)
        close(p, t, tol)
    sum(((p * pyth.tensor(g)).sum() for p, g in zip(ps, gs)), pyth.tensor(0.0,
                                                                        dtype=pyth.float64)
        ).backward()
    sum((t * torch.tensor(g)).sum() for t, g in zip(ts, gs)).backward()
    close(px.grad, tx.grad, tol * 10)
    if ph is not None:
        for a, b in zip(ph if isinstance(ph, tuple) else (ph,),
                        th if isinstance(th, tuple) else (th,)):
            close(a.grad, b.grad, tol * 10)
    for (n, p), (m, t) in zip(pm.named_parameters(), tm.named_parameters()):
        assert n == m
        close(p.grad, t.grad, tol * 10)


CASES = [
    # mode, kwargs
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"bias": False, "batch_first": True}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("RNN", {"bidirectional": True, "bias": False}),
    ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 3, "bias": False}),
]


@pytest.mark.parametrize("mode,kw", CASES)
def test_rnn_matches_torch(mode, kw):
    tm = getattr(torch.nn, mode)(3, 4, **kw).double()
    pm = getattr(nn, mode)(3, 4, **kw).double()
    assert [n for n, _ in pm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [tuple(p.shape) for p in pm.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    load_from_torch(pm, tm)
    shape = (2, 5, 3) if kw.get("batch_first") else (5, 2, 3)
    compare(pm, tm, RNG.standard_normal(shape))
    assert repr(pm) == repr(tm)


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_rnn_initial_state_unbatched_and_batch_one(mode):
    tm = getattr(torch.nn, mode)(3, 4, num_layers=2, bidirectional=True).double()
    pm = getattr(nn, mode)(3, 4, num_layers=2, bidirectional=True).double()
    load_from_torch(pm, tm)
    lstm = mode == "LSTM"
    h = RNG.standard_normal((4, 2, 4))
    hx = (h, RNG.standard_normal((4, 2, 4))) if lstm else h
    compare(pm, tm, RNG.standard_normal((3, 2, 3)), hx)
    # unbatched (L, H_in) with (layers * dirs, H) states
    h1 = RNG.standard_normal((4, 4))
    hx1 = (h1, RNG.standard_normal((4, 4))) if lstm else h1
    compare(pm, tm, RNG.standard_normal((3, 3)), hx1)
    compare(pm, tm, RNG.standard_normal((3, 3)))
    compare(pm, tm, RNG.standard_normal((4, 1, 3)))   # batch 1


def test_rnn_non_contiguous_input_and_float32():
    tm = torch.nn.GRU(3, 4)
    pm = nn.GRU(3, 4)
    load_from_torch(pm, tm)
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    px = pyth.tensor(x).transpose(0, 1)               # (5, 2, 3), non-contiguous
    assert not px.is_contiguous()
    po, ph = pm(px)
    to, th = tm(torch.tensor(x).transpose(0, 1))
    assert po.dtype is pyth.float32
    np.testing.assert_allclose(po.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ph.detach().numpy(), th.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_rnn_gradcheck(mode):
    layers = 2 if mode == "RNN" else 1             # small: gradcheck is slow in Python
    m = getattr(nn, mode)(2, 2, num_layers=layers, bidirectional=True).double()
    names = [n for n, _ in m.named_parameters()]

    def f(x, *params):
        for n, p in zip(names, params):
            m._parameters[n] = p
        out = flat(m(x))
        return tuple(out)

    x = P(RNG.standard_normal((2, 1, 2)))
    params = [p.detach().clone().requires_grad_() for p in m.parameters()]
    assert gradcheck(f, (x, *params))


def test_rnn_dropout_between_layers():
    pm = nn.LSTM(3, 4, num_layers=3, dropout=0.5).double()
    x = P(RNG.standard_normal((4, 2, 3)))
    pm.eval()
    a = flat(pm(x))
    b = flat(pm(x))
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.detach().numpy(), v.detach().numpy())
    pm.train()
    pyth.manual_seed(0)
    c = pm(x)[0]
    pyth.manual_seed(1)
    d = pm(x)[0]
    assert not np.allclose(c.detach().numpy(), d.detach().numpy())
    # p = 1 between layers: the last layer sees zeros, so its output ignores x
    m1 = nn.GRU(3, 4, num_layers=2, dropout=1.0).double()
    y1 = m1(x)[0]
    y2 = m1(x * 3)[0]
    np.testing.assert_allclose(y1.detach().numpy(), y2.detach().numpy())
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.RNN(3, 4, dropout=0.3)


def test_rnn_default_init_and_state_dict_keys():
    m = nn.LSTM(5, 16, num_layers=2, bidirectional=True)
    t = torch.nn.LSTM(5, 16, num_layers=2, bidirectional=True)
    assert list(m.state_dict()) == list(t.state_dict())
    bound = 1 / 4
    for p in m.parameters():
        a = np.abs(p.detach().numpy())
        assert a.max() <= bound and a.max() > 0.8 * bound
    assert "weight_hh_l1_reverse" in dict(m.named_parameters())
    assert len(m.all_weights) == 4


def test_rnn_errors():
    m = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match="Expected 3, got 5"):
        m(pyth.zeros(2, 1, 5))
    with pytest.raises(ValueError, match="2D or 3D"):
        m(pyth.zeros(2))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 4\)"):
        m(pyth.zeros(3, 2, 3), (pyth.zeros(1, 3, 4), pyth.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError, match="should also be 3-D"):
        m(pyth.zeros(3, 2, 3), (pyth.zeros(2, 4), pyth.zeros(2, 4)))
    g = nn.GRU(3, 4)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[2, 2, 4\]"):
        g(pyth.zeros(3, 2, 3), pyth.zeros(2, 2, 4))
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="dropout should be a number"):
        nn.GRU(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.GRU(3, 0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.GRU(3, 2, num_layers=0)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_torch(name):
    tm = getattr(torch.nn, name)(3, 4).double()
    pm = getattr(nn, name)(3, 4).double()
    load_from_torch(pm, tm)
    lstm = name == "LSTMCell"
    for shape, hshape in (((2, 3), (2, 4)), ((3,), (4,))):
        x = RNG.standard_normal(shape)
        h = RNG.standard_normal(hshape)
        hx = (h, RNG.standard_normal(hshape)) if lstm else h
        px, tx = P(x), T(x)
        ph = tuple(P(a) for a in hx) if lstm else P(hx)
        th = tuple(T(a) for a in hx) if lstm else T(hx)
        po, to = pm(px, ph), tm(tx, th)
        po, to = (po if lstm else (po,)), (to if lstm else (to,))
        for a, b in zip(po, to):
            close(a, b)
        sum(a.sum() * (i + 1) for i, a in enumerate(po)).backward()
        sum(b.sum() * (i + 1) for i, b in enumerate(to)).backward()
        close(px.grad, tx.grad)
        for (_, p), (_, t) in zip(pm.named_parameters(), tm.named_parameters()):
            close(p.grad, t.grad)
            p.grad = None
            t.grad = None
    x = RNG.standard_normal((2, 3))               # no hx: zeros
    po, to = pm(P(x)), tm(T(x))
    close(po[0] if lstm else po, to[0] if lstm else to)
    assert repr(pm) == repr(tm)
