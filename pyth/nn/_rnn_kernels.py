"""Recurrent layers on the THNN kernels (generic/THNNRecurrent.c): one layer and one direction
of RNN (tanh, relu), LSTM or GRU over a whole sequence, from the input projection gx =
x W_ih^T + b_ih of every step. The time loop (one GEMM and one fused gate pass per step) and its
adjoint run in C; the run is one autograd node whose plain backward is the C adjoint loop and
whose formula recomputes the direction with the composed step and differentiates it, so second
derivatives exist."""

from __future__ import annotations

from typing import Callable

from .. import dtypes as _dt
from .._errors import check
from .._ops import new_result
from .._prims.creation import zeros
from .._th import ffi, lib
from ..autograd import enable_grad, grad
from ..autograd.record import Op, next_edges, record_node
from ..autograd.recorded import stack
from ..tensor import Tensor

_NULL = ffi.NULL
_FAMILY = {"RNN_TANH": "RNN", "RNN_RELU": "RNN", "LSTM": "LSTM", "GRU": "GRU"}
# dtype -> family -> (updateOutput, updateGradInput)
KERNELS: dict[_dt.dtype, dict[str, tuple]] = {
    dt: {fam: (getattr(lib, f"THNN_{name}{fam}_updateOutput"),
               getattr(lib, f"THNN_{name}{fam}_updateGradInput")) for fam in ("RNN", "LSTM", "GRU")}
    for dt, name in ((_dt.float32, "Float"), (_dt.float64, "Double"))}


def supported(gx: Tensor, h0: Tensor, c0: Tensor | None, w_hh: Tensor,
              b_hh: Tensor | None, w_hr: Tensor | None = None) -> bool:
    """Whether the kernels run this direction: float32 or float64, one dtype throughout."""
    dt = gx.dtype
    return dt in KERNELS and h0.dtype is dt and w_hh.dtype is dt and \
        all(t is None or t.dtype is dt for t in (c0, b_hh, w_hr))


def _handle(t: Tensor | None) -> object:
    return t._h if t is not None else _NULL


def _compose(step: Callable, lstm: bool, gx: Tensor, state: object, w_hh: Tensor,
             b_hh: Tensor | None, w_hr: Tensor | None, reverse: bool) -> list:
    """The direction by the composed step (recorded ops): [output, h_n (, c_n)]."""
    n = gx.size(0)
    outs: list = [None] * n
    extra = () if w_hr is None else (w_hr,)
    for t in (range(n - 1, -1, -1) if reverse else range(n)):
        state = step(gx[t], state, w_hh, b_hh, *extra)
        outs[t] = state[0] if lstm else state
    return [stack(outs, 0), *state] if lstm else [stack(outs, 0), state]


def _recurrent_backward(g: list, a: dict) -> list:
    """The gradients of every diff input by differentiating the recomputed direction with
    create_graph (recorded, so they differentiate again); zeros where an input is unused."""
    lstm = a["lstm"]
    ins = [a["input"], a["hx"], *([a["cx"]] if lstm else []), a["weight_hh"], a.get("bias_hh"),
           *([a.get("weight_hr")] if lstm else [])]
    needs = a["needs"]
    with enable_grad():
        # an alias per input: one tensor passed twice (h0 as c0) gets each use's gradient
        ins = [x.view_as(x) if need else x for x, need in zip(ins, needs)]
        wanted = [x for x, need in zip(ins, needs) if need]
        if lstm:
            gx, h0, c0, w_hh, b_hh, w_hr = ins
            state: object = (h0, c0)
        else:
            (gx, state, w_hh, b_hh), w_hr = ins, None
        outs = _compose(a["step"], lstm, gx, state, w_hh, b_hh, w_hr, a["reverse"])
        got = list(grad(outs, wanted, g, create_graph=True, allow_unused=True))
    res: list = []
    for x, need in zip(ins, needs):
        if not need:
            res.append(None)
            continue
        r = got.pop(0)
        res.append(r if r is not None else zeros(tuple(x.shape), dtype=x.dtype))
    return res


def _recurrent_first(g: list, a: dict) -> list:
    """The same gradients by the C adjoint loop: gx, h0 (c0), W_hh, b_hh (W_hr) in one walk."""
    lstm = a["lstm"]
    dt = a["dtype"]
    g = [x if x.dtype is dt else x.to(dt) for x in g]
    needs = a["needs"]
    res = [new_result(dt) if need or i == 0 else None for i, need in enumerate(needs)]
    back = a["kernels"][1]
    if lstm:
        ggx, gh0, gc0, gw, gb, gwr = res
        check(back(ggx._h, _handle(gh0), _handle(gc0), _handle(gw), _handle(gb), _handle(gwr),
                   g[0]._h, g[1]._h, g[2]._h, a["state"]._h, a["hx"]._h, a["cx"]._h,
                   a["weight_hh"]._h, _handle(a.get("weight_hr")), a["reverse"]))
    else:
        ggx, gh0, gw, gb = res
        extra = (a["relu"],) if a["relu"] is not None else ()
        check(back(ggx._h, _handle(gh0), _handle(gw), _handle(gb), g[0]._h, g[1]._h,
                   a["state"]._h, a["hx"]._h, a["weight_hh"]._h, *extra, a["reverse"]))
    if not needs[0]:
        res[0] = None
    return res


_SAVE = ("input", "hx", "cx", "weight_hh", "bias_hh", "weight_hr")
RNN = Op("rnn", "input hx weight_hh bias_hh", _recurrent_backward, outputs=(0, 1),
         node="RNNBackward", first=_recurrent_first)
LSTM = Op("lstm", "input hx cx weight_hh bias_hh weight_hr", _recurrent_backward,
          outputs=(0, 1, 2),
          node="LSTMBackward", first=_recurrent_first)
GRU = Op("gru", "input hx weight_hh bias_hh", _recurrent_backward, outputs=(0, 1),
         node="GRUBackward", first=_recurrent_first)
_OPS = {"RNN": RNN, "LSTM": LSTM, "GRU": GRU}


def recurrent(mode: str, gx: Tensor, h0: Tensor, c0: Tensor | None, w_hh: Tensor,
              b_hh: Tensor | None, reverse: bool, step: Callable,
              w_hr: Tensor | None = None) -> tuple:
    """One direction of mode ("RNN_TANH", "RNN_RELU", "LSTM", "GRU") over gx (L, N, G H) from
    h0 (N, H) (and c0; an LSTM may project h by w_hr): (output (L, N, H), h_n, c_n or None),
    recorded as one node when something requires grad. step is the composed step the
    second-order formula replays."""
    dt = gx.dtype
    fam = _FAMILY[mode]
    kernels = KERNELS[dt][fam]
    lstm = fam == "LSTM"
    relu = (1 if mode == "RNN_RELU" else 0) if fam == "RNN" else None
    out, hn, state = new_result(dt), new_result(dt), new_result(dt)
    cn = new_result(dt) if lstm else None
    rev = 1 if reverse else 0
    if lstm:
        check(kernels[0](out._h, hn._h, cn._h, state._h, gx._h, h0._h, c0._h, w_hh._h,
                         _handle(b_hh), _handle(w_hr), rev))
        edges = next_edges(gx, h0, c0, w_hh, b_hh, w_hr)
        result: tuple = (out, hn, cn)
    else:
        extra = (relu,) if relu is not None else ()
        check(kernels[0](out._h, hn._h, state._h, gx._h, h0._h, w_hh._h, _handle(b_hh),
                         *extra, rev))
        edges = next_edges(gx, h0, w_hh, b_hh)
        result = (out, hn)
    if edges is not None:
        record_node(_OPS[fam], edges, result,
                    dict(zip(_SAVE, (gx, h0, c0, w_hh, b_hh, w_hr))),
                    {"kernels": kernels, "dtype": dt, "lstm": lstm, "relu": relu,
                     "reverse": rev, "state": state, "step": step})
    return out, hn, cn
