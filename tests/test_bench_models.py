"""benchmarks/bench_models.py builds and steps every workload, and with PyTorch installed the
two libraries start from the same weights: the first forward of each model agrees."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

import pyth

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "benchmarks"))
import bench_models  # noqa: E402

NAMES = [w.name for w in bench_models.WORKLOADS]


@pytest.mark.parametrize("name", NAMES)
def test_workload_steps(name: str) -> None:
    w = bench_models.WORKLOADS[NAMES.index(name)]
    pyth.manual_seed(0)
    _, make = w.build(pyth)
    make()()


def test_copied_weights_give_the_same_forward() -> None:
    torch = pytest.importorskip("torch")
    build = bench_models._gpt_training(True)     # the Llama-style model: every kind of layer
    pm, _ = build(pyth)
    torch.manual_seed(0)
    tm, _ = build(torch)
    bench_models._copy(tm, pm)
    idx = np.random.default_rng(0).integers(0, 65, (2, 16))
    got = pm[0](pyth.from_numpy(idx)).detach().numpy()
    want = tm[0](torch.from_numpy(idx)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
