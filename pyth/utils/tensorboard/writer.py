"""SummaryWriter: TensorBoard event files for scalars, histograms, images, text, hyperparameters
and a model's graph, written through the tensorboard package's event-file writer, with the
arguments and file layout of torch.utils.tensorboard."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from typing import Any

import numpy as np
from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary
from tensorboard.compat.proto.versions_pb2 import VersionDef
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from ...autograd import enable_grad
from ...autograd.graph import AccumulateGrad
from ...tensor import Tensor
from . import summary as _summary

# SummaryWriter methods of torch.utils.tensorboard that pyth does not have
_MISSING = frozenset(("add_embedding", "add_pr_curve", "add_pr_curve_raw", "add_audio",
                      "add_video", "add_mesh", "add_custom_scalars",
                      "add_custom_scalars_multilinechart", "add_custom_scalars_marginchart",
                      "add_onnx_graph", "add_openvino_graph", "add_tensor"))


class FileWriter:
    """One event file in log_dir: Summary protos and graphs as Events, with their step and
    wall time."""

    def __init__(self, log_dir: str, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)

    def get_logdir(self) -> str:
        """The folder of the event file."""
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step: int | None = None,
                  walltime: float | None = None) -> None:
        """event with its wall time (now by default) and step (when given)."""
        event.wall_time = time.time() if walltime is None else float(walltime)
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary: Summary, global_step: int | None = None,
                    walltime: float | None = None) -> None:
        """One Summary as an Event."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def add_graph(self, graph: GraphDef, walltime: float | None = None) -> None:
        """A GraphDef, which the graphs dashboard draws."""
        self.add_event(Event(graph_def=graph.SerializeToString()), None, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()


class SummaryWriter:
    """Writes TensorBoard event files into log_dir (default runs/<date>_<host><comment>), as
    torch.utils.tensorboard.SummaryWriter; the file is created at the first write."""

    def __init__(self, log_dir: Any = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = os.fspath(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self._get_file_writer()

    def __getattr__(self, name: str) -> Any:
        if name in _MISSING:
            raise AttributeError(f"'SummaryWriter' object has no attribute '{name}': "
                                 f"SummaryWriter.{name} is not in pyth")
        raise AttributeError(f"'SummaryWriter' object has no attribute '{name}'")

    def _get_file_writer(self) -> FileWriter:
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:   # TensorBoard drops later events of this run
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step, session_log=SessionLog(
                    status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        """The folder the event files go to."""
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value: Any, global_step: int | None = None,
                   walltime: float | None = None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        """One value of the curve tag (a number, a numpy scalar or a one-element tensor)."""
        self._get_file_writer().add_summary(
            _summary.scalar(tag, scalar_value, new_style, double_precision), global_step,
            walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step: int | None = None,
                    walltime: float | None = None) -> None:
        """Several curves in one chart: each in its own run, log_dir/<main_tag>_<tag>."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(base, main_tag.replace("/", "_") + "_" + tag)
            writer = self.all_writers.get(path)
            if writer is None:
                writer = self.all_writers[path] = FileWriter(path, self.max_queue,
                                                             self.flush_secs,
                                                             self.filename_suffix)
            writer.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag: str, values: Any, global_step: int | None = None,
                      bins: Any = "tensorflow", walltime: float | None = None,
                      max_bins: int | None = None) -> None:
        """The distribution of values (bins: "tensorflow", a numpy rule such as "auto", a
        count, or the edges)."""
        self._get_file_writer().add_summary(_summary.histogram(tag, values, bins, max_bins),
                                            global_step, walltime)

    def add_histogram_raw(self, tag: str, min: float, max: float, num: int, sum: float,
                          sum_squares: float, bucket_limits: Any, bucket_counts: Any,
                          global_step: int | None = None, walltime: float | None = None) -> None:
        """A histogram already counted: bucket i holds bucket_counts[i] values up to
        bucket_limits[i]."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                              bucket_limit=list(bucket_limits), bucket=list(bucket_counts))
        self._get_file_writer().add_summary(
            Summary(value=[Summary.Value(tag=tag, histo=hist)]), global_step, walltime)

    def add_image(self, tag: str, img_tensor: Any, global_step: int | None = None,
                  walltime: float | None = None, dataformats: str = "CHW") -> None:
        """One image (floats in [0, 1] or uint8), laid out as dataformats says."""
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats),
                                            global_step, walltime)

    def add_images(self, tag: str, img_tensor: Any, global_step: int | None = None,
                   walltime: float | None = None, dataformats: str = "NCHW") -> None:
        """A batch of images, shown as one grid of up to 8 columns."""
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats),
                                            global_step, walltime)

    def add_figure(self, tag: str, figure: Any, global_step: int | None = None,
                   close: bool = True, walltime: float | None = None) -> None:
        """A matplotlib figure (or a list of them, as a batch) as an image."""
        figures = figure if isinstance(figure, list) else [figure]
        images = [_summary.figure_to_image(f) for f in figures]
        if close:
            import matplotlib.pyplot as plt
            for f in figures:
                plt.close(f)
        if isinstance(figure, list):
            self.add_images(tag, np.stack(images), global_step, walltime, dataformats="NHWC")
        else:
            self.add_image(tag, images[0], global_step, walltime, dataformats="HWC")

    def add_text(self, tag: str, text_string: str, global_step: int | None = None,
                 walltime: float | None = None) -> None:
        """A text entry (markdown)."""
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step,
                                            walltime)

    def add_hparams(self, hparam_dict: dict, metric_dict: dict,
                    hparam_domain_discrete: dict | None = None, run_name: str | None = None,
                    global_step: int | None = None) -> None:
        """One row of the hparams table: the hyperparameters and final metrics of a run, in
        a run of their own (log_dir/<run_name>, the time by default)."""
        exp, ssi, sei = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(),
                              run_name if run_name else str(time.time()))
        with SummaryWriter(log_dir=logdir) as w:
            for s in (exp, ssi, sei):
                w._get_file_writer().add_summary(s, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    def add_graph(self, model: Any, input_to_model: Any = None, verbose: bool = False,
                  use_strict_trace: bool = True) -> None:
        """The graph of one forward pass of model on input_to_model, as autograd records it:
        a node per recorded op, the parameters by their names (parts of the pass that record
        nothing, such as integer indexing, are left out)."""
        graph = _autograd_graph(model, input_to_model)
        if verbose:
            print(graph)
        self._get_file_writer().add_graph(graph)

    def flush(self) -> None:
        """Write what is queued to disk."""
        if self.all_writers is not None:
            for w in self.all_writers.values():
                w.flush()

    def close(self) -> None:
        """Flush and close every event file; a later write opens new ones."""
        if self.all_writers is not None:
            for w in self.all_writers.values():
                w.flush()
                w.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _tensors(x: Any) -> list:
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _tensors(v)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _tensors(v)]
    return []


def _autograd_graph(model: Any, inputs: Any) -> GraphDef:
    """A GraphDef of the nodes autograd records while model runs on inputs."""
    args = () if inputs is None else tuple(inputs) if isinstance(inputs, (list, tuple)) \
        else (inputs,)
    with enable_grad():
        out = model(*args)
    roots = [t.grad_fn for t in _tensors(out) if t.grad_fn is not None]
    if not roots:
        raise ValueError("add_graph(): the model's outputs record no autograd graph (no "
                         "parameter or input requires grad)")
    names = {id(p): n for n, p in getattr(model, "named_parameters", lambda: [])()}
    order: list[Any] = []   # the nodes, found from the outputs back
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        order.append(n)
        stack.extend(f for f, _ in n.next_functions if f is not None)
    nodes: dict[int, NodeDef] = {}
    counts: dict[str, int] = {}
    for n in reversed(order):   # named in the order the forward pass made them
        if isinstance(n, AccumulateGrad):   # a leaf: a parameter, or an input needing grad
            v = n.variable
            kind = "Parameter" if id(v) in names else "Input"
        else:
            kind = type(n).__name__
        k = counts.get(kind, 0)
        counts[kind] = k + 1
        if kind == "Parameter" or kind == "Input":
            nodes[id(n)] = NodeDef(name=names.get(id(n.variable), f"input_{k}"), op=kind,
                                   attr={"shape": AttrValue(s=str(list(n.variable.shape))
                                                            .encode())})
        else:
            nodes[id(n)] = NodeDef(name=f"{kind}_{k}", op=kind)
    for n in order:
        nodes[id(n)].input.extend(nodes[id(f)].name for f, _ in n.next_functions
                                  if f is not None)
    out_nodes = [NodeDef(name=f"output_{i}", op="Output", input=[nodes[id(r)].name])
                 for i, r in enumerate(roots)]
    return GraphDef(node=[nodes[id(n)] for n in reversed(order)] + out_nodes,
                    versions=VersionDef(producer=22))
