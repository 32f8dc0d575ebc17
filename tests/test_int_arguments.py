"""Int arguments as PyTorch's argument parser takes them: a bool is not an int (x.unsqueeze(True)
is a TypeError, not unsqueeze(1)), nor is a float; in an int list only a bool in the first place
is refused (PyTorch checks the first element's type: zeros(2, True) is a (2, 1) tensor).

Each call runs in pyth and, when PyTorch is installed, in PyTorch: both raise TypeError or both
return the same shape. Without PyTorch the expectation written beside each call is checked."""

from __future__ import annotations

import pytest

import pyth

# name -> (call(lib, x) on x = ones(2, 6), expected: "TypeError" or the result's shape)
CALLS = {
    "cat positional": (lambda L, x: L.cat([x, x], True), "TypeError"),
    "cat keyword": (lambda L, x: L.cat([x, x], dim=True), "TypeError"),
    "stack": (lambda L, x: L.stack([x, x], True), "TypeError"),
    "unsqueeze": (lambda L, x: x.unsqueeze(True), "TypeError"),
    "squeeze": (lambda L, x: x.squeeze(True), "TypeError"),
    "transpose": (lambda L, x: x.transpose(True, 0), "TypeError"),
    "select": (lambda L, x: x.select(True, 0), "TypeError"),
    "narrow start": (lambda L, x: x.narrow(0, True, 1), "TypeError"),
    "flatten": (lambda L, x: x.flatten(True), "TypeError"),
    "topk k": (lambda L, x: x.topk(True), "TypeError"),
    "chunk dim": (lambda L, x: x.chunk(2, True), "TypeError"),
    "split dim": (lambda L, x: x.split(1, True), "TypeError"),
    "movedim": (lambda L, x: x.movedim(True, 0), "TypeError"),
    "flip": (lambda L, x: x.flip(True), "TypeError"),
    "roll dims": (lambda L, x: x.roll(1, True), "TypeError"),
    "gather": (lambda L, x: x.gather(True, L.zeros(2, 6, dtype=L.int64)), "TypeError"),
    "index_select": (lambda L, x: x.index_select(True, L.zeros(2, dtype=L.int64)), "TypeError"),
    "sort": (lambda L, x: x.sort(True), "TypeError"),
    "unbind": (lambda L, x: x.unbind(True), "TypeError"),
    "size": (lambda L, x: x.size(True), "TypeError"),
    "diagonal": (lambda L, x: x.diagonal(0, True, 0), "TypeError"),
    "softmax": (lambda L, x: L.nn.functional.softmax(x, dim=True), "TypeError"),
    "log_softmax float": (lambda L, x: L.nn.functional.log_softmax(x, 1.0), "TypeError"),
    "cummax bool": (lambda L, x: L.cummax(x, True), "TypeError"),
    "cummax float": (lambda L, x: L.cummax(x, 1.0), "TypeError"),
    "vector_norm": (lambda L, x: L.linalg.vector_norm(x, dim=True), "TypeError"),
    "sum": (lambda L, x: x.sum(True), "TypeError"),
    "view first": (lambda L, x: x.view(True, 12), "TypeError"),
    "zeros first": (lambda L, x: L.zeros(True), "TypeError"),
    # a bool after the first element of an int list is taken as an int, as PyTorch does
    "view later": (lambda L, x: x.view(12, True), (12, 1)),
    "reshape later": (lambda L, x: x.reshape(12, True), (12, 1)),
    "zeros later": (lambda L, x: L.zeros(2, True), (2, 1)),
    "flip later": (lambda L, x: x.flip((0, True)), (2, 6)),
    "permute later": (lambda L, x: x.permute(0, True), (2, 6)),
    # ints stay ints
    "unsqueeze int": (lambda L, x: x.unsqueeze(1), (2, 1, 6)),
    "cat int": (lambda L, x: L.cat([x, x], 1), (2, 12)),
}


def _outcome(lib, call):
    try:
        r = call(lib, lib.ones(2, 6))
    except TypeError:
        return "TypeError"
    return tuple(r.shape) if hasattr(r, "shape") else tuple(r[0].shape)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_int_argument_like_pytorch(name):
    call, expected = CALLS[name]
    got = _outcome(pyth, call)
    assert got == expected
    torch = pytest.importorskip("torch")
    assert got == _outcome(torch, call)


def test_the_bool_message_names_the_op_and_the_argument():
    x = pyth.ones(2, 6)
    with pytest.raises(TypeError, match=r"unsqueeze\(\): argument 'dim' must be int, not bool"):
        x.unsqueeze(True)
    with pytest.raises(TypeError, match=r"transpose\(\): argument 'dim1' must be int, not bool"):
        x.transpose(0, False)
    with pytest.raises(TypeError, match=r"cat\(\): argument 'dim' must be int, not bool"):
        pyth.cat([x, x], dim=True)


# ---- ints beyond int64 in layer geometry and other int64 arguments ----------------------------

def _x4(L):
    return L.ones(1, 2, 4, 4)


# name -> call(lib, v) with v an int beyond int64
HUGE = {
    "conv2d stride": lambda L, v: L.nn.functional.conv2d(_x4(L), L.ones(1, 2, 2, 2), stride=v),
    "conv2d padding": lambda L, v: L.nn.functional.conv2d(_x4(L), L.ones(1, 2, 2, 2), padding=v),
    "conv2d dilation": lambda L, v: L.nn.functional.conv2d(_x4(L), L.ones(1, 2, 2, 2),
                                                          dilation=v),
    "max_pool2d kernel": lambda L, v: L.nn.functional.max_pool2d(_x4(L), v),
    "max_pool2d stride": lambda L, v: L.nn.functional.max_pool2d(_x4(L), 2, v),
    "avg_pool2d kernel": lambda L, v: L.nn.functional.avg_pool2d(_x4(L), v),
    "lp_pool2d kernel": lambda L, v: L.nn.functional.lp_pool2d(_x4(L), 2, v),
    "adaptive_avg_pool2d": lambda L, v: L.nn.functional.adaptive_avg_pool2d(_x4(L), v),
    "fold kernel": lambda L, v: L.nn.functional.fold(L.ones(1, 4, 4), (3, 3), v),
    "unfold kernel": lambda L, v: L.nn.functional.unfold(_x4(L), v),
    "cross_entropy ignore_index": lambda L, v: L.nn.functional.cross_entropy(
        L.ones(2, 3), L.tensor([0, 1]), ignore_index=v),
    "nll_loss ignore_index": lambda L, v: L.nn.functional.nll_loss(
        L.ones(2, 3), L.tensor([0, 1]), ignore_index=v),
    "combinations r": lambda L, v: L.combinations(L.arange(3), v),
    "tensordot dims": lambda L, v: L.tensordot(_x4(L), _x4(L), dims=v),
}


@pytest.mark.parametrize("name", sorted(HUGE))
@pytest.mark.parametrize("v", [2**63, 2**70, -(2**63) - 1])
def test_ints_beyond_int64_are_typed_errors(name, v):
    """An int no int64 holds: ValueError (PyTorch's "Overflow when unpacking long long") or
    RuntimeError, never OverflowError from cffi; PyTorch refuses each one too."""
    with pytest.raises((ValueError, RuntimeError)) as info:
        HUGE[name](pyth, v)
    assert not isinstance(info.value, OverflowError), info.value
    torch = pytest.importorskip("torch")
    with pytest.raises((ValueError, RuntimeError, TypeError)):
        HUGE[name](torch, v)
