"""TensorBoard Summary protos from tensors, numpy arrays and numbers: scalars, histograms,
images, text and hyperparameters, in the layout TensorBoard's plugins read (the protos are
the tensorboard package's own)."""

from __future__ import annotations

import io
import numbers
from typing import Any

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.hparams import api_pb2, metadata as hp_metadata, plugin_data_pb2
from tensorboard.plugins.scalar import metadata as scalar_metadata
from tensorboard.plugins.text import metadata as text_metadata

from ...tensor import Tensor


def make_np(x: Any) -> np.ndarray:
    """A numpy array of x: a tensor (detached, float16/bfloat16 as float32), an array or a
    number."""
    if isinstance(x, Tensor):
        x = x.detach()
        if x.dtype.name in ("float16", "bfloat16"):
            x = x.float()
        return x.numpy()
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (numbers.Number, np.generic)):
        return np.array([x])
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name: str, value: Any, new_style: bool = False,
           double_precision: bool = False) -> Summary:
    """One scalar: a simple_value, or (new_style) a float tensor the scalars plugin reads."""
    v = make_np(value)
    assert v.size == 1, (f"Tensor should contain one element (0 dimensions). Was given size: "
                         f"{v.size} and {v.ndim} dimensions.")
    x = float(v.reshape(-1)[0])
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=x)])
    dtype = "DT_DOUBLE" if double_precision else "DT_FLOAT"
    tensor = TensorProto(dtype=dtype, tensor_shape=TensorShapeProto(),
                         **{"double_val" if double_precision else "float_val": [x]})
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name=scalar_metadata.PLUGIN_NAME))
    return Summary(value=[Summary.Value(tag=name, tensor=tensor, metadata=meta)])


def _tensorflow_bins() -> np.ndarray:
    """TensorFlow's default histogram edges: +-1e-12 growing by 10 % up to 1e20, and 0."""
    pos = [1e-12]
    while pos[-1] * 1.1 < 1e20:
        pos.append(pos[-1] * 1.1)
    pos_a = np.array(pos)
    return np.concatenate([-pos_a[::-1], [0.0], pos_a])


def histogram_proto(values: np.ndarray, bins: Any, max_bins: int | None = None) -> HistogramProto:
    """values' histogram as TensorBoard reads it: bucket i holds the values up to
    bucket_limit[i], from the empty bucket just below the lowest filled one to the highest
    filled one (bins: "tensorflow", a numpy bins rule or count, or the edges)."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    if isinstance(bins, str) and bins == "tensorflow":
        bins = _tensorflow_bins()
    counts, edges = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:   # merge groups of k neighbours
        k = -(-len(counts) // max_bins)
        starts = np.arange(0, len(counts), k)
        counts = np.add.reduceat(counts, starts)
        edges = np.concatenate([edges[starts], edges[-1:]])
    filled = np.flatnonzero(counts)
    if filled.size == 0:
        raise ValueError("The histogram is empty: no value falls inside the bins")
    lo, hi = int(filled[0]), int(filled[-1])
    kept = [0] + counts[lo:hi + 1].tolist() if lo == 0 else counts[lo - 1:hi + 1].tolist()
    limits = edges[lo:hi + 2].tolist()
    return HistogramProto(min=float(values.min()), max=float(values.max()), num=len(values),
                          sum=float(values.sum()), sum_squares=float(values.dot(values)),
                          bucket_limit=limits, bucket=kept)


def histogram(name: str, values: Any, bins: Any, max_bins: int | None = None) -> Summary:
    """The histogram of values (see histogram_proto)."""
    return Summary(value=[Summary.Value(tag=name, histo=histogram_proto(make_np(values), bins,
                                                                        max_bins))])


def to_hwc(x: np.ndarray, dataformats: str) -> np.ndarray:
    """An image array in dataformats (some order of C, H, W, or N for a batch, laid out as a
    grid of up to 8 columns) as H x W x C with 3 or 4 channels."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt) or not set(fmt) <= set("NCHW") or x.ndim != len(fmt):
        raise ValueError(f"size of input tensor and input format are different. "
                         f"tensor shape: {x.shape}, input_format: {dataformats}")
    if "N" in fmt:
        x = x.transpose([fmt.index(c) for c in "NCHW" if c in fmt])
        if "C" not in fmt:
            x = x[:, None]
        if x.shape[1] == 1:
            x = np.repeat(x, 3, 1)
        n, c, h, w = x.shape
        cols = min(n, 8)
        rows = -(-n // cols)
        grid = np.zeros((c, h * rows, w * cols), dtype=x.dtype)
        for i in range(n):
            r, q = divmod(i, cols)
            grid[:, r * h:(r + 1) * h, q * w:(q + 1) * w] = x[i]
        x, fmt = grid, "CHW"
    if fmt == "HW":
        return np.stack([x] * 3, 2)
    x = x.transpose([fmt.index(c) for c in "HWC"])
    if x.shape[2] == 1:
        x = np.repeat(x, 3, 2)
    if x.shape[2] not in (3, 4):
        raise ValueError(f"an image has 1, 3 or 4 channels, got {x.shape[2]}")
    return x


def image(tag: str, img: Any, dataformats: str = "CHW") -> Summary:
    """An image, PNG-encoded: floats are taken in [0, 1], uint8 as they are."""
    from PIL import Image
    x = make_np(img)
    scale = 1 if x.dtype == np.uint8 else 255
    hwc = to_hwc(x, dataformats)
    data = np.clip(hwc.astype(np.float64) * scale, 0, 255).round().astype(np.uint8) \
        if scale != 1 else hwc
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(data)).save(buf, format="PNG")
    h, w, c = data.shape
    return Summary(value=[Summary.Value(tag=tag, image=Summary.Image(
        height=h, width=w, colorspace=c, encoded_image_string=buf.getvalue()))])


def text(tag: str, text_string: str) -> Summary:
    """A text entry (the text plugin renders it as markdown)."""
    tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    meta = text_metadata.create_summary_metadata(display_name="", description="")
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta,
                                        tensor=tensor)])


def _hparam_value(v: Any) -> tuple[str, Any]:
    """The field and value of one hyperparameter (bools are numbers, 0 and 1, as in
    PyTorch's writer)."""
    if isinstance(v, (int, float)):
        return "number_value", float(v)
    if isinstance(v, str):
        return "string_value", v
    if isinstance(v, Tensor):
        return "number_value", float(make_np(v).reshape(-1)[0])
    raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")


def _plugin_summary(tag: str, data: plugin_data_pb2.HParamsPluginData) -> Summary:
    meta = hp_metadata.create_summary_metadata(data)
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict: dict, metric_dict: dict,
            hparam_domain_discrete: dict | None = None) -> tuple[Summary, Summary, Summary]:
    """The hparams plugin's experiment, session-start and session-end summaries for one run."""
    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparam_dict and metric_dict should be dictionary.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict) or any(
            not isinstance(v, list) or k not in hparam_dict or
            any(not isinstance(x, type(hparam_dict[k])) for x in v) for k, v in domains.items()):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, its keys "
                        "should exist in hparam_dict, and its values should be lists of the "
                        "same type as the corresponding hparam_dict value.")
    start = plugin_data_pb2.SessionStartInfo()
    infos = []
    kinds = {"number_value": api_pb2.DATA_TYPE_FLOAT64, "string_value": api_pb2.DATA_TYPE_STRING}
    for k, v in hparam_dict.items():
        if v is None:
            continue
        field, value = _hparam_value(v)
        setattr(start.hparams[k], field, value)
        info = api_pb2.HParamInfo(name=k, type=kinds[field])
        if k in domains:
            for x in domains[k]:
                info.domain_discrete.values.add(**{_hparam_value(x)[0]: _hparam_value(x)[1]})
        infos.append(info)
    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    exp = plugin_data_pb2.HParamsPluginData(
        experiment=api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics),
        version=hp_metadata.PLUGIN_DATA_VERSION)
    ssi = plugin_data_pb2.HParamsPluginData(session_start_info=start,
                                            version=hp_metadata.PLUGIN_DATA_VERSION)
    sei = plugin_data_pb2.HParamsPluginData(
        session_end_info=plugin_data_pb2.SessionEndInfo(status=api_pb2.STATUS_SUCCESS),
        version=hp_metadata.PLUGIN_DATA_VERSION)
    return (_plugin_summary(hp_metadata.EXPERIMENT_TAG, exp),
            _plugin_summary(hp_metadata.SESSION_START_INFO_TAG, ssi),
            _plugin_summary(hp_metadata.SESSION_END_INFO_TAG, sei))


def figure_to_image(figure: Any) -> np.ndarray:
    """A matplotlib figure rendered to an RGBA array (H x W x 4)."""
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba())[..., :4].copy()


__all__ = ["figure_to_image", "histogram", "histogram_proto", "hparams", "image", "make_np",
           "scalar", "text", "to_hwc"]
