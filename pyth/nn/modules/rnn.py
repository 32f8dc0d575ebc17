"""Recurrent layers RNN, LSTM, GRU and their cells, composed from differentiable tensor ops.

Each layer and direction first applies its input weights to the whole sequence in one matrix
product (x W_ih^T + b_ih for every time step), then walks the steps with the hidden weights.
Parameter names, order, shapes, gate order (LSTM: i, f, g, o; GRU: r, z, n) and the default
initialisation (uniform in +-1/sqrt(hidden_size)) are PyTorch's, so state dicts carry over.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, Callable

from ... import dtypes as _dt
from ..._prims.creation import empty, zeros
from ...autograd.recorded import cat, stack
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .._rnn_kernels import recurrent, supported
from ..parameter import Parameter
from .module import Module

# ---- one time step per mode: (x W_ih^T + b_ih, state, W_hh, b_hh) -> new state ----------------

def _rnn_step(act: Callable[[Tensor], Tensor]) -> Callable:
    def step(gx: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
        return act(gx + F.linear(h, w_hh, b_hh))
    return step


def _lstm_step(gx: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None,
               w_hr: Tensor | None = None) -> tuple:
    h, c = state
    i, f, g, o = (gx + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else F.linear(h, w_hr)), c  # proj_size: h projected by W_hr


def _gru_step(gx: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    xr, xz, xn = gx.chunk(3, -1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return n + z * (h - n)  # (1 - z) n + z h


_STEPS: dict[str, Callable] = {
    "RNN_TANH": _rnn_step(lambda t: t.tanh()),
    "RNN_RELU": _rnn_step(F.relu),
    "LSTM": _lstm_step,
    "GRU": _gru_step,
}
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _stack(ts: list) -> Tensor:
    return stack(ts, 0)


def _run_direction(mode: str, x: Tensor, state: Any, weights: list, reverse: bool) -> tuple:
    """One layer, one direction over x (L, N, H_in): (outputs (L, N, H), final state); the
    C kernels' time loop for float32/float64, else the composed steps."""
    w_ih, w_hh, b_ih, b_hh, *proj = weights
    gx = F.linear(x, w_ih, b_ih)
    step = _STEPS[mode]
    extra = tuple(p for p in proj if p is not None)
    lstm = mode == "LSTM"
    h0, c0 = state if lstm else (state, None)
    w_hr = extra[0] if extra else None
    if supported(gx, h0, c0, w_hh, b_hh, w_hr):   # the C time loop (float32/64)
        out, hn, cn = recurrent(mode, gx, h0, c0, w_hh, b_hh, reverse, step, w_hr)
        return out, ((hn, cn) if lstm else hn)
    steps = range(x.size(0) - 1, -1, -1) if reverse else range(x.size(0))
    outs: list = [None] * x.size(0)
    for t in steps:
        state = step(gx[t], state, w_hh, b_hh, *extra)
        outs[t] = state[0] if mode == "LSTM" else state
    return _stack(outs), state


class RNNBase(Module):
    """The shared constructor, parameter registration and forward of RNN, LSTM and GRU."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or \
                not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: "
                            f"{type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, \
            proj_size
        out = proj_size or hidden_size  # the width of h
        dt = _dt.resolve(dtype) if dtype is not None else _dt.get_default_dtype()
        gate = _GATES[mode] * hidden_size
        dirs = 2 if bidirectional else 1
        self._flat_weights_names: list = []
        for layer in range(num_layers):
            width = input_size if layer == 0 else out * dirs
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                shapes = [("weight_ih", (gate, width)), ("weight_hh", (gate, out))]
                if bias:
                    shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + sfx, Parameter(empty(*shape, dtype=dt)))
                    self._flat_weights_names.append(name + sfx)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    @property
    def all_weights(self) -> list:
        """The parameters per layer and direction: [[w_ih, w_hh, b_ih, b_hh], ...]."""
        per = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        ws = [getattr(self, n) for n in self._flat_weights_names]
        return [ws[i:i + per] for i in range(0, len(ws), per)]

    def _weights(self, layer: int, direction: int) -> list:
        sfx = f"_l{layer}" + ("_reverse" if direction else "")
        names = ["weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"]
        return [getattr(self, n + sfx) if n + sfx in self._parameters else None for n in names]

    def _check_hidden(self, h: Tensor, expected: tuple, which: str = "") -> None:
        if tuple(h.shape) != expected:
            raise RuntimeError(f"Expected hidden{which} size {expected}, got {list(h.shape)}")

    def forward(self, input: Tensor, hx: Any = None) -> tuple:
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        lstm = self.mode == "LSTM"
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                             f"tensor instead")
        batched = input.dim() == 3
        if hx is not None:
            hs = hx if lstm else (hx,)
            if lstm and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
                raise RuntimeError("LSTM: hx must be a tuple (h_0, c_0)")
            want = 3 if batched else 2
            if any(h.dim() != want for h in hs):
                got = ", ".join(f"{h.dim()}-D" for h in hs)
                raise RuntimeError(
                    f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, "
                    f"{'hx and cx' if lstm else 'hx'} should also be {want}-D but got "
                    f"({got}) tensor{'s' if lstm else ''}")
        if not batched:
            input = input.unsqueeze(1)
            if hx is not None:
                hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")
        dirs = 2 if self.bidirectional else 1
        expected = (self.num_layers * dirs, input.size(1), self.proj_size or self.hidden_size)
        cell = (self.num_layers * dirs, input.size(1), self.hidden_size)
        if hx is None:
            h0 = zeros(*expected, dtype=input.dtype)
            hx = (h0, zeros(*cell, dtype=input.dtype)) if lstm else h0
        elif lstm:
            self._check_hidden(hx[0], expected, "[0]")
            self._check_hidden(hx[1], cell, "[1]")
        else:
            self._check_hidden(hx, expected)
        if input.size(0) == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, finals = self._layers(input, hx)
        if lstm:
            h_n = _stack([s[0] for s in finals])
            c_n = _stack([s[1] for s in finals])
        else:
            h_n = _stack(finals)
        if not batched:
            output = output.squeeze(1)
            h_n = h_n.squeeze(1)
            if lstm:
                c_n = c_n.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return (output, (h_n, c_n)) if lstm else (output, h_n)

    def _layers(self, x: Tensor, hx: Any) -> tuple:
        """Runs every layer and direction: (last layer's output, final state per layer and
        direction in h_n's order)."""
        dirs = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                state = (hx[0][k], hx[1][k]) if self.mode == "LSTM" else hx[k]
                out, state = _run_direction(self.mode, x, state, self._weights(layer, d),
                                            reverse=d == 1)
                outs.append(out)
                finals.append(state)
            x = outs[0] if dirs == 1 else cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(RNNBase):
    """Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             f"'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o; c_t = f c_{t-1} + i g, h_t = o tanh(c_t)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit: gates r, z and n = tanh(x W_in + b_in + r (h W_hn + b_hn));
    h_t = (1 - z) n + z h_{t-1}."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


# ---- cells -----------------------------------------------------------------------------------

class RNNCellBase(Module):
    """One time step: weight_ih, weight_hh, bias_ih, bias_hh as PyTorch names them."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, bias: bool,
                 dtype: Any) -> None:
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.bias = \
            mode, input_size, hidden_size, bias
        dt = _dt.resolve(dtype) if dtype is not None else _dt.get_default_dtype()
        gate = _GATES[mode] * hidden_size
        self.weight_ih = Parameter(empty(gate, input_size, dtype=dt))
        self.weight_hh = Parameter(empty(gate, hidden_size, dtype=dt))
        if bias:
            self.bias_ih = Parameter(empty(gate, dtype=dt))
            self.bias_hh = Parameter(empty(gate, dtype=dt))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def forward(self, input: Tensor, hx: Any = None) -> Any:
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             f"instead")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(-1)} "
                               f"expected {self.input_size}")
        batched = input.dim() == 2
        lstm = self.mode == "LSTM"
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            h0 = zeros(x.size(0), self.hidden_size, dtype=input.dtype)
            hx = (h0, h0) if lstm else h0
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if lstm else hx.unsqueeze(0)
        for h in (hx if lstm else (hx,)):
            if tuple(h.shape) != (x.size(0), self.hidden_size):
                raise RuntimeError(f"{name}: Expected hidden size "
                                   f"{(x.size(0), self.hidden_size)}, got {list(h.shape)}")
        gx = F.linear(x, self.weight_ih, self.bias_ih)
        h0, c0 = hx if lstm else (hx, None)
        if supported(gx, h0, c0, self.weight_hh, self.bias_hh):   # a sequence of one step
            _, h, c = recurrent(self.mode, gx.unsqueeze(0), h0, c0, self.weight_hh,
                                self.bias_hh, False, _STEPS[self.mode])
            out = (h, c) if lstm else h
        else:
            out = _STEPS[self.mode](gx, tuple(hx) if lstm else hx, self.weight_hh,
                                    self.bias_hh)
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if lstm else out.squeeze(0)
        return out

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, bias, dtype)
        self.nonlinearity = nonlinearity


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, bias, dtype)


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, bias, dtype)
