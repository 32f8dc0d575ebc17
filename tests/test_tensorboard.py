"""pyth.utils.tensorboard against torch.utils.tensorboard: the same calls write event files that
TensorBoard's own reader (EventAccumulator) reads back the same."""

from __future__ import annotations

import io
import pathlib

import numpy as np
import pytest

import pyth

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

from pyth.utils.tensorboard import SummaryWriter  # noqa: E402

ALL = {"histograms": 0, "images": 0, "tensors": 0, "scalars": 0}


def _read(path: pathlib.Path) -> EventAccumulator:
    ea = EventAccumulator(str(path), size_guidance=ALL)
    ea.Reload()
    return ea


def _both(tmp_path: pathlib.Path, write: object) -> tuple:
    """write(writer, lib) with pyth and with torch, each into its own folder; both read back."""
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    with SummaryWriter(tmp_path / "pyth") as w:
        write(w, pyth)
    with TorchWriter(str(tmp_path / "torch")) as w:
        write(w, torch)
    return _read(tmp_path / "pyth"), _read(tmp_path / "torch")


def test_scalars_match_torch(tmp_path: pathlib.Path) -> None:
    def write(w: object, lib: object) -> None:
        for step in range(5):
            w.add_scalar("loss", 1.0 / (step + 1), step, walltime=100.0 + step)
            w.add_scalar("acc", lib.tensor(0.25 * step), step)
            w.add_scalar("np", np.float32(step), step)
            w.add_scalar("new", 0.5 * step, step, new_style=True, double_precision=True)
    ours, theirs = _both(tmp_path, write)
    assert ours.Tags()["scalars"] == theirs.Tags()["scalars"]
    for tag in ("loss", "acc", "np"):
        assert [(e.step, e.value) for e in ours.Scalars(tag)] == \
            [(e.step, e.value) for e in theirs.Scalars(tag)]
    assert [e.wall_time for e in ours.Scalars("loss")] == [100.0 + s for s in range(5)]
    assert ours.Tags()["tensors"] == theirs.Tags()["tensors"] == ["new"]
    assert [e.tensor_proto.double_val for e in ours.Tensors("new")] == \
        [e.tensor_proto.double_val for e in theirs.Tensors("new")]


def test_a_scalar_must_be_one_value(tmp_path: pathlib.Path) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    one = "Tensor should contain one element"
    with SummaryWriter(tmp_path / "a") as w, pytest.raises(AssertionError, match=one):
        w.add_scalar("x", pyth.ones(2))
    with TorchWriter(str(tmp_path / "b")) as w, pytest.raises(AssertionError, match=one):
        w.add_scalar("x", torch.ones(2))
    for writer in (SummaryWriter(tmp_path / "c"), TorchWriter(str(tmp_path / "d"))):
        with writer as w, pytest.raises(AssertionError, match=one):
            w.add_scalar("x", np.ones(2))
    with SummaryWriter(tmp_path / "e") as w, pytest.raises(NotImplementedError):
        w.add_scalar("x", "text")


def test_add_scalars_writes_one_run_per_curve(tmp_path: pathlib.Path) -> None:
    def write(w: object, lib: object) -> None:
        for step in range(3):
            w.add_scalars("run/loss", {"train": 1.0 + step, "val": 2.0 * step}, step)
    _both(tmp_path, write)
    for sub in ("run_loss_train", "run_loss_val"):
        ours, theirs = _read(tmp_path / "pyth" / sub), _read(tmp_path / "torch" / sub)
        assert [(e.step, e.value) for e in ours.Scalars("run/loss")] == \
            [(e.step, e.value) for e in theirs.Scalars("run/loss")]


@pytest.mark.parametrize("bins, max_bins", [("tensorflow", None), ("auto", None), (10, None),
                                            (50, 7), ("fd", 3)])
def test_histograms_match_torch(tmp_path: pathlib.Path, bins: object, max_bins: object) -> None:
    values = np.random.default_rng(0).normal(size=2000) * 3

    def write(w: object, lib: object) -> None:
        w.add_histogram("h", lib.tensor(values), 1, bins=bins, max_bins=max_bins)
        w.add_histogram("np", values[:7], 2, bins=bins, max_bins=max_bins)
    ours, theirs = _both(tmp_path, write)
    for tag in ("h", "np"):
        a, b = ours.Histograms(tag)[0], theirs.Histograms(tag)[0]
        assert a.step == b.step
        ha, hb = a.histogram_value, b.histogram_value
        assert (ha.min, ha.max, ha.num) == (hb.min, hb.max, hb.num)
        assert ha.sum == pytest.approx(hb.sum) and ha.sum_squares == pytest.approx(hb.sum_squares)
        if max_bins is None:
            np.testing.assert_allclose(ha.bucket_limit, hb.bucket_limit)
            assert list(ha.bucket) == list(hb.bucket)
        assert sum(ha.bucket) == sum(hb.bucket) == ha.num


def test_histogram_of_nothing_is_an_error(tmp_path: pathlib.Path) -> None:
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="no element"):
        w.add_histogram("h", pyth.ones(0))


def test_add_histogram_raw(tmp_path: pathlib.Path) -> None:
    def write(w: object, lib: object) -> None:
        w.add_histogram_raw("r", 0.0, 3.0, 6, 9.0, 19.0, [1.0, 2.0, 3.0], [2, 2, 2], 4)
    ours, theirs = _both(tmp_path, write)
    assert ours.Histograms("r")[0].histogram_value == theirs.Histograms("r")[0].histogram_value
    with SummaryWriter(tmp_path / "x") as w, pytest.raises(ValueError, match="len"):
        w.add_histogram_raw("r", 0, 1, 1, 1, 1, [1.0, 2.0], [1], 0)


def _pixels(ea: EventAccumulator, tag: str) -> np.ndarray:
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(ea.Images(tag)[0].encoded_image_string)))


@pytest.mark.parametrize("shape, fmt", [((3, 6, 5), "CHW"), ((6, 5, 3), "HWC"), ((6, 5), "HW"),
                                        ((1, 6, 5), "CHW"), ((6, 5, 4), "HWC")])
def test_images_match_torch(tmp_path: pathlib.Path, shape: tuple, fmt: str) -> None:
    x = np.random.default_rng(1).random(shape).astype(np.float32)
    u = (x * 255).astype(np.uint8)

    def write(w: object, lib: object) -> None:
        w.add_image("f", lib.tensor(x), 0, dataformats=fmt)
        w.add_image("u", u, 0, dataformats=fmt)
    ours, theirs = _both(tmp_path, write)
    for tag in ("f", "u"):
        a, b = ours.Images(tag)[0], theirs.Images(tag)[0]
        assert (a.width, a.height) == (b.width, b.height)
        np.testing.assert_allclose(_pixels(ours, tag), _pixels(theirs, tag), atol=1)


@pytest.mark.parametrize("shape, fmt", [((5, 3, 4, 6), "NCHW"), ((10, 4, 6, 1), "NHWC"),
                                        ((3, 1, 4, 4), "NCHW")])
def test_image_batches_match_torch(tmp_path: pathlib.Path, shape: tuple, fmt: str) -> None:
    x = np.random.default_rng(2).random(shape).astype(np.float32)

    def write(w: object, lib: object) -> None:
        w.add_images("b", lib.tensor(x), 3, dataformats=fmt)
    ours, theirs = _both(tmp_path, write)
    np.testing.assert_allclose(_pixels(ours, "b"), _pixels(theirs, "b"), atol=1)


def test_image_format_errors(tmp_path: pathlib.Path) -> None:
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(ValueError, match="size of input tensor and input format"):
            w.add_image("x", pyth.rand(3, 4, 4), dataformats="HW")
        with pytest.raises(ValueError, match="channels"):
            w.add_image("x", pyth.rand(2, 4, 4))


def test_text_matches_torch(tmp_path: pathlib.Path) -> None:
    def write(w: object, lib: object) -> None:
        w.add_text("notes", "**lr** = 0.1", 7)
    ours, theirs = _both(tmp_path, write)
    assert ours.Tags()["tensors"] == theirs.Tags()["tensors"]
    a, b = ours.Tensors("notes/text_summary")[0], theirs.Tensors("notes/text_summary")[0]
    assert a.step == b.step == 7 and a.tensor_proto.string_val == b.tensor_proto.string_val


def test_hparams_match_torch(tmp_path: pathlib.Path) -> None:
    from tensorboard.plugins.hparams import metadata, plugin_data_pb2

    def write(w: object, lib: object) -> None:
        w.add_hparams({"lr": 0.1, "opt": "sgd", "nesterov": True, "layers": 3},
                      {"hparam/acc": 0.9}, {"opt": ["sgd", "adam"]}, run_name="trial")
    _both(tmp_path, write)
    ours, theirs = _read(tmp_path / "pyth" / "trial"), _read(tmp_path / "torch" / "trial")
    assert ours.Tags()["tensors"] == theirs.Tags()["tensors"]
    for tag in (metadata.EXPERIMENT_TAG, metadata.SESSION_START_INFO_TAG,
                metadata.SESSION_END_INFO_TAG):
        pa, pb = (plugin_data_pb2.HParamsPluginData.FromString(
            ea.SummaryMetadata(tag).plugin_data.content) for ea in (ours, theirs))
        if tag == metadata.SESSION_END_INFO_TAG:
            pa.session_end_info.end_time_secs = pb.session_end_info.end_time_secs = 0
        if tag == metadata.SESSION_START_INFO_TAG:
            pa.session_start_info.start_time_secs = pb.session_start_info.start_time_secs = 0
        assert pa == pb, tag
    assert [e.value for e in ours.Scalars("hparam/acc")] == \
        [e.value for e in theirs.Scalars("hparam/acc")]
    with SummaryWriter(tmp_path / "bad") as w:
        with pytest.raises(ValueError, match="value should be one of int, float, str, bool"):
            w.add_hparams({"x": [1]}, {})
        with pytest.raises(TypeError, match="should be dictionary"):
            w.add_hparams([1], {})


def test_graph_of_a_model(tmp_path: pathlib.Path) -> None:
    model = pyth.nn.Sequential(pyth.nn.Linear(4, 3), pyth.nn.ReLU(), pyth.nn.Linear(3, 1))
    with SummaryWriter(tmp_path) as w:
        w.add_graph(model, pyth.randn(2, 4))
    g = _read(tmp_path).Graph()
    by_name = {n.name: n for n in g.node}
    assert {"0.weight", "0.bias", "2.weight", "2.bias"} <= set(by_name)
    out = by_name["output_0"]
    last = by_name[out.input[0]]
    assert "2.weight" in last.input and any("Relu" in i for i in last.input)
    with SummaryWriter(tmp_path / "x") as w, pytest.raises(ValueError, match="no autograd graph"):
        with pyth.no_grad():
            w.add_graph(lambda x: x * 2, pyth.randn(2))


def test_writer_files_and_missing_methods(tmp_path: pathlib.Path, monkeypatch: object) -> None:
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_exp")
    assert w.get_logdir().startswith("runs" + "/") and w.get_logdir().endswith("_exp")
    w.add_scalar("a", 1.0, 0)
    w.flush()
    files = list(pathlib.Path(w.get_logdir()).glob("events.out.tfevents.*"))
    assert len(files) == 1
    with pytest.raises(AttributeError, match="SummaryWriter.add_audio is not in pyth"):
        w.add_audio
    assert not hasattr(w, "no_such_method")
    w.close()
    w.add_scalar("a", 2.0, 1)   # a write after close opens a new file, as in PyTorch
    w.close()
    assert len(list(pathlib.Path(w.get_logdir()).glob("events.out.tfevents.*"))) == 2


def test_purge_step_drops_later_events(tmp_path: pathlib.Path) -> None:
    with SummaryWriter(tmp_path) as w:
        for s in range(5):
            w.add_scalar("x", float(s), s)
    with SummaryWriter(tmp_path, purge_step=2) as w:
        w.add_scalar("x", 20.0, 2)
    assert [(e.step, e.value) for e in _read(tmp_path).Scalars("x")] == [(0, 0.0), (1, 1.0),
                                                                         (2, 20.0)]
