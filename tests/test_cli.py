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


@pytest.mark.parametrize("argv, line", [
    ([], "pyth: error: the following arguments are required: <command> "
         "(choose from 'train', 'evaluate', 'tour', 'info')"),
    (["fly"], "pyth: error: argument <command>: invalid choice: 'fly' "
              "(choose from 'train', 'evaluate', 'tour', 'info')"),
    (["train", "--model", "rnn"],
     "pyth train: error: argument --model: invalid choice: 'rnn' (choose from 'cnn', 'mlp')"),
    (["train", "--bogus", "3"], "pyth train: error: unrecognized arguments: --bogus 3"),
    (["train", "--lr"], "pyth train: error: argument --lr: expected one argument"),
    (["evaluate"], "pyth evaluate: error: the following arguments are required: checkpoint"),
    (["tour", "extra"], "pyth tour: error: unrecognized arguments: extra"),
])
def test_usage_errors_are_one_line_and_exit_2(argv, line, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    captured = capsys.readouterr()
    assert captured.err == line + "\n" and captured.out == ""


# every bad number, whatever is wrong with it, gets argparse's "argument --NAME: " and one
# wording: what the option takes, and the text given
INTEGER_1 = "expected an integer >= 1"
INTEGER_0 = "expected an integer >= 0"
SEED = "expected an integer in [0, 4294967295]"
NUMBER = "expected a finite number > 0"


@pytest.mark.parametrize("option, text, expected", [
    ("--epochs", "0", INTEGER_1), ("--epochs", "-3", INTEGER_1), ("--epochs", "2.5", INTEGER_1),
    ("--epochs", "ten", INTEGER_1), ("--epochs", "", INTEGER_1),
    ("--batch-size", "0", INTEGER_1), ("--batch-size", "x", INTEGER_1),
    ("--workers", "-1", INTEGER_0), ("--workers", "two", INTEGER_0),
    ("--seed", "abc", SEED), ("--seed", "-1", SEED), ("--seed", "4294967296", SEED),
    ("--seed", "1e3", SEED),
    ("--lr", "abc", NUMBER), ("--lr", "nan", NUMBER), ("--lr", "NaN", NUMBER),
    ("--lr", "inf", NUMBER), ("--lr", "-inf", NUMBER), ("--lr", "1e999", NUMBER),
    ("--lr", "0", NUMBER), ("--lr", "-1", NUMBER), ("--lr", "-0.0", NUMBER),
])
def test_every_bad_number_has_the_same_one_line(option, text, expected, capsys, monkeypatch):
    from pyth.cli import train
    monkeypatch.setattr(train, "train", _no_work)
    for argv in ([option, text], [f"{option}={text}"]):  # (-inf reads as an option: only =)
        if text.startswith("-") and argv[0] == option and not text[1:2].isdigit():
            continue
        with pytest.raises(SystemExit) as e:
            main(["train", *argv])
        assert e.value.code == 2
        assert capsys.readouterr().err == \
            f"pyth train: error: argument {option}: {expected}, got {text!r}\n"


@pytest.mark.parametrize("option, text, value", [
    ("--epochs", "1", 1), ("--batch-size", "1437", 1437), ("--workers", "0", 0),
    ("--seed", "0", 0), ("--seed", "4294967295", 4294967295), ("--lr", "1e-3", 1e-3),
    ("--lr", "5e-324", 5e-324),
])
def test_numbers_in_range_are_taken(option, text, value, monkeypatch, tmp_path):
    from pyth.cli import train
    seen = {}
    monkeypatch.setattr(train, "train", lambda config, out, **kw: seen.update(config))
    monkeypatch.chdir(tmp_path)
    assert main(["train", option, text]) == 0  # a train() that returned None: rank != 0
    assert seen[option[2:].replace("-", "_")] == value


def _no_work(*args, **kwargs):
    raise AssertionError("training started although an argument was wrong")


def _train_error(argv, monkeypatch, capsys) -> str:
    """What `pyth train ARGV` prints on stderr: exit status 2, one line, before any work."""
    from pyth.cli import train
    monkeypatch.setattr(train, "train", _no_work)
    assert main(["train", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pyth train: error: argument --out: "), err
    return err.strip()


def test_out_that_is_a_file_fails_before_training(tmp_path, monkeypatch, capsys):
    f = tmp_path / "notes.txt"
    f.write_text("hello")
    assert _train_error(["--out", str(f)], monkeypatch, capsys).endswith(
        f"{str(f)!r} exists and is not a directory")
    assert _train_error(["--out", str(f / "run")], monkeypatch, capsys).endswith(
        f"cannot create the directory {str(f / 'run')!r} (Not a directory)")
    assert f.read_text() == "hello"


def test_out_that_cannot_be_created_or_written(tmp_path, monkeypatch, capsys):
    # /proc accepts no new directories, even from root
    assert _train_error(["--out", "/proc/pyth-run"], monkeypatch, capsys).endswith(
        "cannot create the directory '/proc/pyth-run' (No such file or directory)")
    assert _train_error(["--out", ""], monkeypatch, capsys).endswith(
        "expected a directory, got ''")
    (tmp_path / "run" / "model.pth").mkdir(parents=True)
    assert _train_error(["--out", str(tmp_path / "run")], monkeypatch, capsys).endswith(
        f"{str(tmp_path / 'run' / 'model.pth')!r} is a directory; it is where model.pth is "
        f"written")
    if os.geteuid() != 0:  # root writes in any directory whatever its mode
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert "cannot write in" in _train_error(["--out", str(locked)], monkeypatch, capsys)
        assert "cannot create the directory" in _train_error(
            ["--out", str(locked / "run")], monkeypatch, capsys)


def test_out_is_created_before_training(tmp_path, monkeypatch):
    from pyth.cli import train
    out = tmp_path / "a" / "b"
    seen = []
    monkeypatch.setattr(train, "train", lambda config, path, **kw: seen.append(
        (os.path.isdir(path), os.listdir(path))) or None)
    assert main(["train", "--out", str(out)]) == 0  # a train() that returned None: rank != 0
    assert seen == [(True, [])]  # created, and the write check left nothing behind


def test_version_is_the_package_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"pyth {pyth.__version__}\n"
    assert pyth.__version__ == "0.1.0"


def test_version_from_the_command_line(tmp_path):
    r = _run("--version", cwd=str(tmp_path))
    assert (r.returncode, r.stdout, r.stderr) == (0, f"pyth {pyth.__version__}\n", "")


def test_plural():
    from pyth.cli import plural
    assert [plural(n, "epoch") for n in (0, 1, 2)] == ["0 epochs", "1 epoch", "2 epochs"]


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


def test_a_diverging_run_stops_without_a_checkpoint(tmp_path, capsys):
    # a finite learning rate can still be too large: the loss turns NaN, and no checkpoint of
    # NaN weights is written (one epoch of the small model)
    out = tmp_path / "run"
    assert main(["train", "--model", "mlp", "--epochs", "1", "--lr", "1e30", "--out",
                 str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0].endswith(", adam lr 1e+30, 1 epoch of batch 64")
    assert captured.err == ("pyth train: error: the loss became nan in epoch 1: the learning "
                            "rate 1e+30 is too large for adam (no checkpoint written)\n")
    assert os.listdir(out) == []


def test_evaluate_a_directory_names_the_checkpoint_in_it(short_run, tmp_path):
    out, _ = short_run
    r = _run("evaluate", str(out), cwd=str(tmp_path))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (f"pyth evaluate: error: {out}: is a directory, not a checkpoint (the "
                        f"checkpoint train wrote there is {out / 'model.pth'})\n")
    r = _run("evaluate", str(tmp_path), cwd=str(tmp_path))
    assert (r.returncode, r.stderr) == (2, f"pyth evaluate: error: {tmp_path}: is a directory, "
                                           "not a checkpoint\n")
