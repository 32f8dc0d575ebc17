"""The digits CNN's layer kernels one by one (bench_train.py's `_cnn`, batch 64, 8x8 images):
each THNN kernel called through pyth._th.lib on preallocated results, against the matching
PyTorch op (aten, so neither side pays for autograd). Float32, as the training step. Also
scaled dot-product attention forward and backward through each library's autograd (a GPT
block's shapes: batch 16, 4 heads, head dim 32, causal).

python benchmarks/bench_layers.py [--quick]   (also part of benchmarks/run.py)
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import pyth
except ImportError:  # working in the tree: use the in-place build
    sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import pyth

from harness import Case, report, run_case, torch
from pyth._th import ffi, lib

N = 64  # the benchmark's batch


def _pair(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return pyth.from_numpy(a.copy()), (torch.from_numpy(a.copy()) if torch is not None else None)


def _out():
    return pyth.empty(0)


def _case(name, pyth_fn, torch_fn):
    fns = {"pyth": pyth_fn}
    if torch is not None:
        fns["torch"] = torch_fn
    return Case(name, fns, "layers")


def _relu_cases(c):
    x, tx = _pair((N, c, 8, 8), 1)
    g, tg = _pair((N, c, 8, 8), 2)
    y, gi = _out(), _out()
    aten = torch.ops.aten if torch is not None else None
    shape = f"{N}x{c}x8x8"
    return [
        _case(f"relu forward {shape}",
              lambda: lib.THNN_FloatReLU_updateOutput(y._h, x._h, 0.0, 0.0),
              lambda: torch.relu(tx)),
        _case(f"relu backward {shape}",
              lambda: lib.THNN_FloatReLU_updateGradInput(gi._h, g._h, x._h, ffi.NULL, 0.0, 0.0),
              lambda: aten.threshold_backward(tg, tx, 0)),
    ]


def _pool_cases():
    x, tx = _pair((N, 64, 8, 8), 3)
    g, tg = _pair((N, 64, 4, 4), 4)
    y, gi, idx = _out(), _out(), pyth.empty(0, dtype=pyth.int64)
    args = (2, 2, 2, 2, 0, 0, 1, 1, 0)
    lib.THNN_FloatSpatialDilatedMaxPooling_updateOutput(y._h, idx._h, x._h, *args)
    aten = torch.ops.aten if torch is not None else None
    tidx = aten.max_pool2d_with_indices(tx, [2, 2], [2, 2])[1] if torch is not None else None
    return [
        _case(f"max_pool2d forward {N}x64x8x8",
              lambda: lib.THNN_FloatSpatialDilatedMaxPooling_updateOutput(y._h, idx._h, x._h,
                                                                          *args),
              lambda: aten.max_pool2d_with_indices(tx, [2, 2], [2, 2])),
        _case(f"max_pool2d backward {N}x64x8x8",
              lambda: lib.THNN_FloatSpatialDilatedMaxPooling_updateGradInput(gi._h, g._h, x._h,
                                                                             idx._h),
              lambda: aten.max_pool2d_with_indices_backward(tg, tx, [2, 2], [2, 2], [0, 0],
                                                            [1, 1], False, tidx)),
    ]


def _conv_cases(cin, cout, input_grad):
    x, tx = _pair((N, cin, 8, 8), 5)
    w, tw = _pair((cout, cin, 3, 3), 6)
    b, tb = _pair((cout,), 7)
    g, tg = _pair((N, cout, 8, 8), 8)
    y, gi = _out(), _out()
    gw, gb = pyth.zeros(cout, cin, 3, 3), pyth.zeros(cout)
    p = (1, 1, 1, 1, 1, 1, 1, 1, 1)
    aten = torch.ops.aten if torch is not None else None
    name = f"conv {cin}->{cout} 3x3 {N}x{cin}x8x8"

    def backward():
        if input_grad:
            lib.THNN_FloatSpatialConvolutionMM_updateGradInput(gi._h, g._h, w._h, 8, 8, *p)
        gw.zero_()
        gb.zero_()
        lib.THNN_FloatSpatialConvolutionMM_accGradParameters(gw._h, gb._h, g._h, x._h, *p, 1.0)

    out = [
        _case(f"{name} forward",
              lambda: lib.THNN_FloatSpatialConvolutionMM_updateOutput(y._h, x._h, w._h, b._h, *p),
              lambda: aten.convolution(tx, tw, tb, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)),
        _case(f"{name} backward{' (no input grad)' if not input_grad else ''}", backward,
              lambda: aten.convolution_backward(tg, tx, tw, [cout], [1, 1], [1, 1], [1, 1],
                                                False, [0, 0], 1, [input_grad, True, True])),
    ]
    if input_grad:
        out.append(_case(f"{name} input grad alone",
                         lambda: lib.THNN_FloatSpatialConvolutionMM_updateGradInput(
                             gi._h, g._h, w._h, 8, 8, *p),
                         lambda: aten.convolution_backward(
                             tg, tx, tw, [cout], [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                             [True, False, False])))
    return out


def _sdpa_cases():
    out = []
    for length in (64, 256):
        shape = (16, 4, length, 32)
        pairs = [_pair(shape, 9 + i) for i in range(4)]
        (q, tq), (k, tk), (v, tv), (g, tg) = pairs
        for t in (q, k, v):
            t.requires_grad_()
        if torch is not None:
            for t in (tq, tk, tv):
                t.requires_grad_()

        def run(q=q, k=k, v=v, g=g):
            pyth.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)

        def trun(q=tq, k=tk, v=tv, g=tg):
            torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)

        out.append(_case(f"sdpa fwd+bwd {'x'.join(map(str, shape))} causal", run, trun))
    return out


def cases(quick: bool = False) -> list[Case]:
    return (_relu_cases(32) + _relu_cases(64) + _pool_cases() + _conv_cases(1, 32, False) +
            _conv_cases(32, 64, True) + _sdpa_cases())


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    done = [run_case(c, rounds=5 if quick else 15, target=0.05 if quick else 0.2)
            for c in cases(quick)]
    print(report(done, "the digits CNN's layer kernels (pyth vs PyTorch)"))
