"""The recurrent THNN kernels (generic/THNNRecurrent.c through pyth.nn._rnn_kernels): one
direction of RNN/LSTM/GRU against PyTorch's layer in float64 (values and every gradient, both
the C adjoint loop and the recomputing formula), gradcheck and gradgradcheck, the kernel's shape
errors, saved-tensor version checks, and the modules that run on them."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from _support import P, T, close, load_from_torch

import pyth
from pyth import nn
from pyth.autograd import gradcheck, gradgradcheck
from pyth.nn._rnn_kernels import recurrent
from pyth.nn.modules.rnn import _STEPS

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(11)
MODES = ["RNN_TANH", "RNN_RELU", "LSTM", "GRU"]
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def torch_layer(mode, n_in, hidden, w_ih, w_hh, b_ih, b_hh, reverse):
    """A one-layer PyTorch module whose (reverse) direction holds the given weights."""
    kw = {"bidirectional": reverse, "bias": b_hh is not None}
    if mode.startswith("RNN"):
        m = torch.nn.RNN(n_in, hidden, nonlinearity=mode[4:].lower(), **kw)
    else:
        m = getattr(torch.nn, mode)(n_in, hidden, **kw)
    m = m.double()
    sfx = "_l0_reverse" if reverse else "_l0"
    with torch.no_grad():
        getattr(m, "weight_ih" + sfx).copy_(torch.tensor(w_ih))
        getattr(m, "weight_hh" + sfx).copy_(torch.tensor(w_hh))
        if b_hh is not None:
            getattr(m, "bias_ih" + sfx).copy_(torch.tensor(b_ih))
            getattr(m, "bias_hh" + sfx).copy_(torch.tensor(b_hh))
    return m


def run_pyth(mode, x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse):
    """The kernel's direction from the input projection: [output, h_n (, c_n)]."""
    gx = pyth.nn.functional.linear(x, w_ih, b_ih)
    out, hn, cn = recurrent(mode, gx, h0, c0, w_hh, b_hh, reverse, _STEPS[mode])
    return [out, hn] + ([cn] if mode == "LSTM" else [])


def run_torch(mode, m, x, h0, c0, reverse):
    """PyTorch's layer on the direction: [output, h_n (, c_n)] of that direction only."""
    if reverse:   # the reverse direction of a bidirectional layer: its half of the outputs
        hidden = h0.shape[-1]
        z = torch.zeros_like(h0)
        hx = torch.stack([z, h0])
        if mode == "LSTM":
            out, (hn, cn) = m(x, (hx, torch.stack([z, c0])))
            return [out[..., hidden:], hn[1], cn[1]]
        out, hn = m(x, hx)
        return [out[..., hidden:], hn[1]]
    if mode == "LSTM":
        out, (hn, cn) = m(x, (h0[None], c0[None]))
        return [out, hn[0], cn[0]]
    out, hn = m(x, h0[None])
    return [out, hn[0]]


def operands(mode, L, N, n_in, H, bias=True):
    G = GATES[mode] * H
    s = 1 / np.sqrt(H)
    arrays = {"x": RNG.standard_normal((L, N, n_in)),
              "w_ih": RNG.uniform(-s, s, (G, n_in)), "w_hh": RNG.uniform(-s, s, (G, H)),
              "b_ih": RNG.uniform(-s, s, G) if bias else None,
              "b_hh": RNG.uniform(-s, s, G) if bias else None,
              "h0": RNG.standard_normal((N, H)) * 0.5,
              "c0": RNG.standard_normal((N, H)) * 0.5 if mode == "LSTM" else None}
    return arrays


def check_direction(mode, L, N, n_in, H, reverse, bias=True, tol=1e-10, create_graph=False):
    a = operands(mode, L, N, n_in, H, bias)
    p = {k: P(v) if v is not None else None for k, v in a.items()}
    t = {k: T(v) if v is not None else None for k, v in a.items()}
    m = torch_layer(mode, n_in, H, a["w_ih"], a["w_hh"], a["b_ih"], a["b_hh"], reverse)
    sfx = "_l0_reverse" if reverse else "_l0"
    tw = {k: getattr(m, n + sfx) for k, n in (("w_ih", "weight_ih"), ("w_hh", "weight_hh"),
                                              ("b_ih", "bias_ih"), ("b_hh", "bias_hh"))
          if bias or k[0] == "w"}
    po = run_pyth(mode, p["x"], p["w_ih"], p["w_hh"], p["b_ih"], p["b_hh"], p["h0"], p["c0"],
                  reverse)
    to = run_torch(mode, m, t["x"], t["h0"], t["c0"], reverse)
    assert po[0].grad_fn.name() == {"LSTM": "LSTMBackward", "GRU": "GRUBackward"}.get(
        mode, "RNNBackward")
    for u, v in zip(po, to):
        assert tuple(u.shape) == tuple(v.shape)
        close(u, v, tol)
    gs = [RNG.standard_normal(tuple(v.shape)) for v in to]
    leaves = [p[k] for k in ("x", "h0", "c0", "w_ih", "w_hh", "b_ih", "b_hh")
              if p[k] is not None]
    pg = pyth.autograd.grad(po, leaves, [pyth.tensor(g) for g in gs],
                            create_graph=create_graph)
    tl = [t["x"], t["h0"]] + ([t["c0"]] if mode == "LSTM" else []) + \
        [tw[k] for k in ("w_ih", "w_hh", "b_ih", "b_hh") if k in tw]
    tg = torch.autograd.grad(to, tl, [torch.tensor(g) for g in gs])
    for u, v in zip(pg, tg):
        close(u, v, tol * 100)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reverse", [False, True])
def test_direction_matches_torch(mode, reverse):
    check_direction(mode, 5, 3, 4, 6, reverse)
    check_direction(mode, 1, 1, 2, 3, reverse, bias=False)


@pytest.mark.parametrize("mode", MODES)
def test_formula_matches_torch(mode):
    """Under create_graph the recomputing formula runs instead of the C loop: same values."""
    check_direction(mode, 4, 2, 3, 5, reverse=mode == "GRU", create_graph=True)


@pytest.mark.parametrize("mode", MODES)
def test_gradcheck_direction(mode):
    a = operands(mode, 3, 2, 2, 2)
    gx = P(RNG.standard_normal((3, 2, GATES[mode] * 2)))
    names = ["h0", "c0", "w_hh", "b_hh"] if mode == "LSTM" else ["h0", "w_hh", "b_hh"]
    ins = [gx] + [P(a[n]) for n in names]

    def f(gx, *rest):
        h0, *rest = rest
        c0 = rest.pop(0) if mode == "LSTM" else None
        out = recurrent(mode, gx, h0, c0, rest[0], rest[1], True, _STEPS[mode])
        return tuple(o for o in out if o is not None)

    assert gradcheck(f, tuple(ins))


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_gradgradcheck_direction(mode):
    a = operands(mode, 2, 1, 2, 2)
    gx = P(RNG.standard_normal((2, 1, GATES[mode] * 2)))
    ins = [gx, P(a["h0"]), P(a["w_hh"]), P(a["b_hh"])]
    c0 = P(a["c0"], grad=False) if mode == "LSTM" else None

    def f(gx, h0, w, b):
        out = recurrent(mode, gx, h0, c0, w, b, False, _STEPS[mode])
        return tuple(o for o in out if o is not None)

    assert gradgradcheck(f, tuple(ins))


def test_only_some_inputs_need_grad():
    """The node has edges only for what requires grad: h0 alone, the weight alone."""
    a = operands("LSTM", 4, 2, 3, 3)
    t = {k: T(v, grad=k == "h0") for k, v in a.items()}
    m = torch_layer("LSTM", 3, 3, a["w_ih"], a["w_hh"], a["b_ih"], a["b_hh"], False)
    m.requires_grad_(False)
    to = run_torch("LSTM", m, t["x"], t["h0"], t["c0"], False)
    p = {k: P(v, grad=k == "h0") for k, v in a.items()}
    po = run_pyth("LSTM", p["x"], p["w_ih"], p["w_hh"], p["b_ih"], p["b_hh"], p["h0"],
                  p["c0"], False)
    (po[0].sum() + po[2].sum() * 2).backward()
    (to[0].sum() + to[2].sum() * 2).backward()
    close(p["h0"].grad, t["h0"].grad)
    w = P(a["w_hh"])
    po = run_pyth("GRU", P(a["x"], grad=False), P(a["w_ih"][:9], grad=False),
                  w[:9], None, None, P(a["h0"], grad=False), None, False)
    po[1].sum().backward()
    assert w.grad is not None and tuple(w.grad.shape) == (12, 3)


def test_float32_with_float64_upstream_gradient():
    a = operands("GRU", 4, 2, 3, 5)
    p = {k: P(v, dtype=pyth.float32) for k, v in a.items() if v is not None}
    t = {k: T(v, dtype=torch.float32) for k, v in a.items() if v is not None}
    m = torch_layer("GRU", 3, 5, a["w_ih"], a["w_hh"], a["b_ih"], a["b_hh"], False).float()
    po = run_pyth("GRU", p["x"], p["w_ih"], p["w_hh"], p["b_ih"], p["b_hh"], p["h0"], None,
                  False)
    to = run_torch("GRU", m, t["x"], t["h0"], None, False)
    assert po[0].dtype is pyth.float32
    for u, v in zip(po, to):
        close(u, v, 1e-5)
    g = RNG.standard_normal((4, 2, 5))
    po[0].backward(pyth.tensor(g))          # float64 gradient of a float32 output
    to[0].backward(torch.tensor(g, dtype=torch.float32))
    assert p["x"].grad.dtype is pyth.float32
    close(p["x"].grad, t["x"].grad, 1e-4)
    close(p["h0"].grad, t["h0"].grad, 1e-4)


def test_non_contiguous_operands_and_empty_batch():
    a = operands("LSTM", 3, 2, 3, 4)
    gx = P(RNG.standard_normal((2, 3, 16))).transpose(0, 1)      # (3, 2, 16) strided
    h0 = P(RNG.standard_normal((4, 2))).t()
    c0 = P(RNG.standard_normal((2, 4)))
    w = P(a["w_hh"].T.copy()).t()
    assert not (gx.is_contiguous() or h0.is_contiguous() or w.is_contiguous())
    out = recurrent("LSTM", gx, h0, c0, w, None, False, _STEPS["LSTM"])
    ref = [gx.contiguous(), h0.contiguous(), c0, w.contiguous()]
    want = recurrent("LSTM", ref[0], ref[1], ref[2], ref[3], None, False, _STEPS["LSTM"])
    for u, v in zip(out, want):
        np.testing.assert_array_equal(u.detach().numpy(), v.detach().numpy())
    # an empty batch: empty outputs, empty gradients
    gx0 = P(np.zeros((3, 0, 16)))
    h00 = P(np.zeros((0, 4)))
    out = recurrent("LSTM", gx0, h00, h00, P(a["w_hh"]), None, False, _STEPS["LSTM"])
    assert [tuple(o.shape) for o in out] == [(3, 0, 4), (0, 4), (0, 4)]
    out[0].sum().backward()
    assert tuple(gx0.grad.shape) == (3, 0, 16)


def test_kernel_shape_errors():
    w = P(RNG.standard_normal((16, 4)))
    h0 = pyth.zeros(2, 4, dtype=pyth.float64)
    with pytest.raises(RuntimeError, match=r"lstm: expected input gates of size \[3, 2, 16\], "
                                           r"got \[3, 2, 12\]"):
        recurrent("LSTM", pyth.zeros(3, 2, 12, dtype=pyth.float64), h0, h0, w, None, False,
                  _STEPS["LSTM"])
    with pytest.raises(RuntimeError, match=r"gru: expected a weight of size \(3 \* hidden_size"):
        recurrent("GRU", pyth.zeros(3, 2, 16, dtype=pyth.float64), h0, None, w, None, False,
                  _STEPS["GRU"])
    with pytest.raises(RuntimeError, match=r"lstm: expected cx of size \[2, 4\], got \[2, 3\]"):
        recurrent("LSTM", pyth.zeros(3, 2, 16, dtype=pyth.float64), h0,
                  pyth.zeros(2, 3, dtype=pyth.float64), w, None, False, _STEPS["LSTM"])
    with pytest.raises(RuntimeError, match=r"lstm: expected a weight of size \(4 \* hidden_size, "
                                           r"proj_size\), got \[16, 4\]"):
        recurrent("LSTM", pyth.zeros(3, 2, 16, dtype=pyth.float64), h0[:, :2], h0, w, None,
                  False, _STEPS["LSTM"], pyth.zeros(2, 4, dtype=pyth.float64))
    with pytest.raises(RuntimeError, match=r"rnn_tanh: expected bias of size \[4\]"):
        recurrent("RNN_TANH", pyth.zeros(3, 2, 4, dtype=pyth.float64), h0, None, w[:4],
                  pyth.zeros(5, dtype=pyth.float64), False, _STEPS["RNN_TANH"])


def test_saved_weight_modified_in_place_raises_as_torch():
    for lib, mod in ((pyth, nn), (torch, torch.nn)):
        m = mod.LSTM(3, 4).double()
        out, (h, c) = m(lib.ones(5, 2, 3, dtype=lib.float64))
        with lib.no_grad():
            m.weight_hh_l0.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    # the output itself is not saved: modifying it in place is allowed, as in PyTorch
    for lib, mod in ((pyth, nn), (torch, torch.nn)):
        m = mod.GRU(3, 4).double()
        x = lib.ones(5, 2, 3, dtype=lib.float64, requires_grad=True)
        out, h = m(x)
        out.mul_(2)
        out.sum().backward()
        assert x.grad is not None


CASES = [
    ("RNN", {"nonlinearity": "tanh"}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bidirectional": True, "batch_first": True}),
    ("LSTM", {"num_layers": 2}), ("LSTM", {"bidirectional": True, "batch_first": True}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "bias": False}),
    ("GRU", {"num_layers": 2, "bidirectional": True}), ("GRU", {"batch_first": True}),
]


@pytest.mark.parametrize("mode,kw", CASES)
def test_modules_on_the_kernels_match_torch(mode, kw):
    tm = getattr(torch.nn, mode)(4, 6, **kw).double()
    pm = getattr(nn, mode)(4, 6, **kw).double()
    load_from_torch(pm, tm)
    shape = (3, 7, 4) if kw.get("batch_first") else (7, 3, 4)
    x = RNG.standard_normal(shape)
    dirs = 2 if kw.get("bidirectional") else 1
    hshape = (kw.get("num_layers", 1) * dirs, 3, 6)
    hx = [RNG.standard_normal(hshape) for _ in range(2 if mode == "LSTM" else 1)]
    leaf, tx = P(np.ascontiguousarray(x.swapaxes(0, 1))), T(x)
    px = leaf.transpose(0, 1)                      # a strided input
    ph, th = [P(h) for h in hx], [T(h) for h in hx]
    po = pm(px, tuple(ph) if mode == "LSTM" else ph[0])
    to = tm(tx, tuple(th) if mode == "LSTM" else th[0])
    pf = [po[0], *po[1]] if mode == "LSTM" else list(po)
    tf = [to[0], *to[1]] if mode == "LSTM" else list(to)
    assert pf[0].grad_fn is not None
    gs = [RNG.standard_normal(tuple(t.shape)) for t in tf]
    for u, v in zip(pf, tf):
        close(u, v, 1e-10)
    sum((u * pyth.tensor(g)).sum() for u, g in zip(pf, gs)).backward()
    sum((v * torch.tensor(g)).sum() for v, g in zip(tf, gs)).backward()
    close(leaf.grad, tx.grad.transpose(0, 1), 1e-9)
    for a, b in zip(ph, th):
        close(a.grad, b.grad, 1e-9)
    for (n, p), (k, t) in zip(pm.named_parameters(), tm.named_parameters()):
        assert n == k
        close(p.grad, t.grad, 1e-9)


def test_module_path_kernel_or_composed():
    """float32/float64 run the kernels (one node per direction), projections too; other
    dtypes the composed steps."""
    x = pyth.ones(3, 2, 3, dtype=pyth.float64, requires_grad=True)
    assert nn.LSTM(3, 4).double()(x)[0].grad_fn.name() == "LSTMBackward"
    assert nn.GRU(3, 4)(x.float())[0].grad_fn.name() == "GRUBackward"
    assert nn.LSTM(3, 4, proj_size=2).double()(x)[0].grad_fn.name() == "LSTMBackward"
    m = nn.GRU(3, 4).to(pyth.bfloat16)
    assert m(x.to(pyth.bfloat16))[0].grad_fn.name() == "StackBackward0"


@pytest.mark.parametrize("kw", [{}, {"bidirectional": True, "batch_first": True},
                                {"num_layers": 2, "bias": False}])
def test_projected_lstm_matches_torch(kw):
    """proj_size on the kernel: values and every gradient, by the C loop and (create_graph)
    by the formula, against PyTorch."""
    tm = torch.nn.LSTM(4, 6, proj_size=3, **kw).double()
    pm = nn.LSTM(4, 6, proj_size=3, **kw).double()
    load_from_torch(pm, tm)
    dirs = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    x = RNG.standard_normal((2, 5, 4) if kw.get("batch_first") else (5, 2, 4))
    hx = (RNG.standard_normal((dirs, 2, 3)), RNG.standard_normal((dirs, 2, 6)))
    px, tx = P(x), T(x)
    ph, th = tuple(P(h) for h in hx), tuple(T(h) for h in hx)
    po, (ph_n, pc_n) = pm(px, ph)
    to, (th_n, tc_n) = tm(tx, th)
    assert po.grad_fn.name() == "LSTMBackward" or kw.get("bidirectional")
    for u, v in ((po, to), (ph_n, th_n), (pc_n, tc_n)):
        close(u, v, 1e-10)
    gs = [RNG.standard_normal(tuple(v.shape)) for v in (to, th_n, tc_n)]
    pl, tl = [px, *ph, *pm.parameters()], [tx, *th, *tm.parameters()]
    for create_graph in (False, True):
        pg = pyth.autograd.grad([po, ph_n, pc_n], pl, [pyth.tensor(g) for g in gs],
                                retain_graph=True, create_graph=create_graph)
        tg = torch.autograd.grad([to, th_n, tc_n], tl, [torch.tensor(g) for g in gs],
                                 retain_graph=True)
        for u, v in zip(pg, tg):
            close(u, v, 1e-9)


def test_gradcheck_projected_direction():
    gx = P(RNG.standard_normal((3, 2, 12)))
    ins = (gx, P(RNG.standard_normal((2, 2))), P(RNG.standard_normal((2, 3))),
           P(RNG.standard_normal((12, 2)) * 0.5), P(RNG.standard_normal(12) * 0.5),
           P(RNG.standard_normal((2, 3)) * 0.5))

    def f(gx, h0, c0, w, b, w_hr):
        return recurrent("LSTM", gx, h0, c0, w, b, True, _STEPS["LSTM"], w_hr)

    assert gradcheck(f, ins)
    assert gradgradcheck(f, ins)


def test_zero_length_sequence_error_as_torch():
    for lib, mod in ((pyth, nn), (torch, torch.nn)):
        m = mod.LSTM(3, 4)
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 "
                                               "in RNN"):
            m(lib.zeros(0, 2, 3))
        with pytest.raises(RuntimeError, match="Expected hidden"):   # states checked first
            m(lib.zeros(0, 2, 3), (lib.zeros(1, 3, 4), lib.zeros(1, 3, 4)))
        with pytest.raises(RuntimeError, match="larger than 0"):
            mod.GRU(3, 4, batch_first=True)(lib.zeros(2, 0, 3))
        assert tuple(mod.GRU(3, 4)(lib.zeros(2, 0, 3))[0].shape) == (2, 0, 4)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_on_the_kernels(name):
    """Cells are one-step sequences: one node, PyTorch's values and gradients, also for one
    tensor given as both h and c, and second order through the formula."""
    tm = getattr(torch.nn, name)(3, 4).double()
    pm = getattr(nn, name)(3, 4).double()
    load_from_torch(pm, tm)
    lstm = name == "LSTMCell"
    x, h = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4))
    px, tx, ph, th = P(x), T(x), P(h), T(h)
    po = pm(px, (ph, ph) if lstm else ph)
    to = tm(tx, (th, th) if lstm else th)
    po, to = (list(po), list(to)) if lstm else ([po], [to])
    assert po[0].grad_fn.name() in ("LSTMBackward", "GRUBackward", "RNNBackward")
    for u, v in zip(po, to):
        close(u, v)
    for create_graph in (False, True):
        pg = pyth.autograd.grad(sum(u.sum() * (i + 2) for i, u in enumerate(po)),
                                [px, ph, pm.weight_hh], retain_graph=True,
                                create_graph=create_graph)
        tg = torch.autograd.grad(sum(v.sum() * (i + 2) for i, v in enumerate(to)),
                                 [tx, th, tm.weight_hh], retain_graph=True,
                                 create_graph=create_graph)
        for u, v in zip(pg, tg):
            close(u, v)
        if create_graph:   # the second order against PyTorch's
            p2 = pyth.autograd.grad(sum((u * u).sum() for u in pg), [px, pm.weight_hh])
            t2 = torch.autograd.grad(sum((v * v).sum() for v in tg), [tx, tm.weight_hh])
            for u, v in zip(p2, t2):
                close(u, v)


def test_kernels_free_what_they_allocate():
    """Forward and backward cycles, successful and failing, leave no tensor header behind."""
    from pyth._th import lib

    def cycles(n):
        for k in range(n):
            mode = MODES[k % 4]
            G = GATES[mode] * 3
            gx = pyth.ones(3, 2, G, dtype=pyth.float64, requires_grad=True).transpose(0, 1)
            h0 = pyth.zeros(3, 3, dtype=pyth.float64, requires_grad=True)
            w = pyth.ones(G, 3, dtype=pyth.float64, requires_grad=True)
            out = recurrent(mode, gx, h0, h0 if mode == "LSTM" else None, w, None, k % 2 == 1,
                            _STEPS[mode])
            out[1].sum().backward()
            with pytest.raises(RuntimeError, match="expected"):
                recurrent(mode, gx, h0[:2], h0 if mode == "LSTM" else None, w, None, False,
                          _STEPS[mode])
            del gx, h0, w, out

    cycles(20)
    gc.collect()
    before = lib.THAlloc_liveCount()
    cycles(200)
    gc.collect()
    assert lib.THAlloc_liveCount() == before


def test_second_backward_and_hooks_as_torch():
    """The node frees its saved state after a backward (a second one raises, as in PyTorch)
    and runs tensor hooks on the gradients it is given."""
    for lib, mod in ((pyth, nn), (torch, torch.nn)):
        m = mod.GRU(3, 4).double()
        x = lib.ones(2, 1, 3, dtype=lib.float64, requires_grad=True)
        out, h = m(x)
        out.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            out.sum().backward()
    seen = []
    pm = nn.LSTM(3, 4).double()
    x = pyth.ones(2, 1, 3, dtype=pyth.float64, requires_grad=True)
    out, (h, c) = pm(x)
    out.register_hook(lambda g: seen.append(tuple(g.shape)) or g * 0)
    (out.sum() + h.sum() * 0).backward()
    assert seen == [(2, 1, 4)]
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 1, 3)))
