"""The command line (python -m pyth ...) end to end, and the digits data set it trains on."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import pyth
from pyth.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(pyth.__file__)))


def _run(*argv: str, cwd: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "pyth", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", ["train", "evaluate", "tour", "info"])
def test_help_of_each_command(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0
    assert f"usage: pyth {command}" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    ([], "required"),
    (["fly"], "invalid choice"),
    (["train", "--epochs", "0"], "--epochs: must be positive, got 0"),
    (["train", "--lr", "-1"], "--lr: must be positive"),
    (["train", "--model", "rnn"], "invalid choice: 'rnn'"),
    (["train", "--batch-size", "x"], "--batch-size"),
    (["evaluate"], "the following arguments are required: checkpoint"),
])
def test_argument_errors_exit_2_with_the_reason(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert words in capsys.readouterr().err


def test_negative_workers_is_a_usage_error(capsys):
    assert main(["train", "--workers", "-1"]) == 2
    assert capsys.readouterr().err.strip() == \
        "pyth train: error: --workers must be >= 0, got -1"


def test_info_reports_what_a_bug_report_needs(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    for key in ("pyth", "build", "sanitized", "SIMD", "OpenBLAS", "OpenBLAS core",
                "threads", "grain", "memory"):
        assert f"\n{key} " in "\n" + out, key
    assert "flags: -std=c11" in out
    assert f"OpenMP {pyth.get_num_threads()}" in out
    assert pyth.__version__ in out


def test_tour_runs(capsys):
    assert main(["tour"]) == 0
    assert "same storage: True" in capsys.readouterr().out


# -- the digits data set ---------------------------------------------------------------------

sklearn = pytest.importorskip("sklearn")
from pyth.utils.data.datasets import Digits  # noqa: E402


def test_digits_shapes_types_and_scale():
    train, test = Digits(train=True), Digits(train=False)
    assert (len(train), len(test)) == (1437, 360)
    image, label = train[5]
    assert image.shape == (1, 8, 8) and image.dtype is pyth.float32
    assert label.dtype is pyth.int64 and label.dim() == 0
    assert train.data.shape == (1437, 1, 8, 8)
    x = train.data.numpy()
    assert x.min() == 0.0 and x.max() == 1.0


def test_digits_split_is_stratified_disjoint_and_seeded():
    from sklearn.datasets import load_digits
    raw = load_digits()
    train, test = Digits(True, split_seed=3), Digits(False, split_seed=3)
    # every image lands on exactly one side: the two sides together are the data set
    both = np.concatenate([train.data.numpy().reshape(-1, 64),
                           test.data.numpy().reshape(-1, 64)]) * 16
    both = np.rint(both)
    assert sorted(map(bytes, both.astype(np.uint8))) == \
        sorted(map(bytes, raw.data.astype(np.uint8)))
    counts_all = np.bincount(raw.target, minlength=10)
    counts_test = np.bincount(test.targets.numpy(), minlength=10)
    assert np.all(np.abs(counts_test - 0.2 * counts_all) <= 1)  # stratified
    again = Digits(False, split_seed=3)
    assert np.array_equal(again.targets.numpy(), test.targets.numpy())
    assert np.array_equal(again.data.numpy(), test.data.numpy())
    other = Digits(False, split_seed=4)
    assert not np.array_equal(other.data.numpy(), test.data.numpy())
    # labels belong to their images
    flat = {bytes(img.astype(np.uint8)): int(t)
            for img, t in zip(raw.data.reshape(-1, 64), raw.target)}
    for img, t in zip(test.data.numpy().reshape(-1, 64)[:50], test.targets.numpy()[:50]):
        assert flat[bytes(np.rint(img * 16).astype(np.uint8))] == t


# -- train and evaluate ----------------------------------------------------------------------

def _accuracy_line(text: str) -> float:
    last = [ln for ln in text.splitlines() if ln.startswith("test accuracy: ")]
    assert last, text
    return float(last[-1].split(": ")[1])


@pytest.fixture(scope="module")
def short_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    r = _run("train", "--model", "mlp", "--epochs", "2", "--seed", "1", "--out", str(out),
             cwd=str(out))
    assert r.returncode == 0, r.stderr
    return out, r


def test_train_writes_checkpoint_plot_and_accuracy(short_run):
    out, r = short_run
    acc = _accuracy_line(r.stdout)
    assert 0.8 < acc <= 1.0
    assert "epoch   1/2" in r.stdout and "epoch   2/2" in r.stdout
    assert (out / "model.pth").stat().st_size > 1000
    pytest.importorskip("matplotlib")
    assert (out / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ck = pyth.load(str(out / "model.pth"))
    assert ck["config"]["model"] == "mlp" and ck["config"]["epochs"] == 2
    assert ck["metrics"]["test_accuracy"] == pytest.approx(acc, abs=1e-4)
    assert len(ck["metrics"]["history"]["loss"]) == 2
    assert "state" in ck["optimizer"] and "param_groups" in ck["optimizer"]


def test_same_seed_same_result(short_run, tmp_path):
    _, first = short_run
    r = _run("train", "--model", "mlp", "--epochs", "2", "--seed", "1", "--out", str(tmp_path),
             cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert _accuracy_line(r.stdout) == _accuracy_line(first.stdout)
    losses = [ln.split("loss ")[1].split()[0] for ln in r.stdout.splitlines() if "loss " in ln]
    first_losses = [ln.split("loss ")[1].split()[0] for ln in first.stdout.splitlines()
                    if "loss " in ln]
    assert losses == first_losses


def test_evaluate_reproduces_the_accuracy(short_run, capsys):
    out, r = short_run
    assert main(["evaluate", str(out / "model.pth")]) == 0
    text = capsys.readouterr().out
    assert _accuracy_line(text) == _accuracy_line(r.stdout)
    rows = [ln for ln in text.splitlines() if ln.strip()[:1].isdigit() and len(ln.split()) == 11]
    assert len(rows) == 10
    assert sum(int(v) for row in rows for v in row.split()[1:]) == 360


@pytest.mark.parametrize("damage", ["truncate", "flip", "text", "empty", "foreign"])
def test_evaluate_refuses_bad_files_in_one_line(short_run, tmp_path, damage):
    out, _ = short_run
    good = (out / "model.pth").read_bytes()
    bad = tmp_path / "bad.pth"
    if damage == "truncate":
        bad.write_bytes(good[: len(good) // 2])
    elif damage == "flip":
        b = bytearray(good)
        for i in range(len(b) // 3, len(b) // 3 + 64):
            b[i] ^= 0xFF
        bad.write_bytes(bytes(b))
    elif damage == "text":
        bad.write_text("hello, I am not a checkpoint\n")
    elif damage == "empty":
        bad.write_bytes(b"")
    else:  # a valid pyth file that train did not write
        pyth.save({"weights": pyth.ones(3)}, str(bad))
    r = _run("evaluate", str(bad), cwd=str(tmp_path))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pyth evaluate: error: "), r.stderr


def test_evaluate_missing_file(tmp_path):
    r = _run("evaluate", str(tmp_path / "nope.pth"), cwd=str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.strip() == f"pyth evaluate: error: {tmp_path / 'nope.pth'}: no such file"
