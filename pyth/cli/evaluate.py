"""python -m pyth evaluate CHECKPOINT: rebuild the model a `train` run saved and report its
test accuracy and confusion matrix on the same split."""

from __future__ import annotations

import argparse
import os

import pyth

from . import UsageError
from .metrics import accuracy, confusion_matrix, format_confusion
from .models import MODELS, build
from .train import CHECKPOINT_FORMAT, _datasets


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("checkpoint", help="a model.pth written by `pyth train`")


def load_checkpoint(path: str) -> dict:
    """The checkpoint's contents, or a UsageError saying in one line what is wrong."""
    if os.path.isdir(path):
        inside = os.path.join(path, "model.pth")
        raise UsageError(f"{path}: is a directory, not a checkpoint" +
                         (f" (the checkpoint train wrote there is {inside})"
                          if os.path.isfile(inside) else ""))
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    if not os.access(path, os.R_OK):
        raise UsageError(f"{path}: permission denied")
    try:
        ck = pyth.load(path)
    except Exception as e:  # any failure to read the file is the user's file, not our bug
        raise UsageError(f"{path}: not a readable pyth checkpoint ({type(e).__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else 'damaged'})") from None
    if not isinstance(ck, dict) or ck.get("format") != CHECKPOINT_FORMAT:
        raise UsageError(f"{path}: not a checkpoint written by `pyth train`")
    config = ck.get("config")
    if not isinstance(config, dict) or config.get("model") not in MODELS or \
            not isinstance(ck.get("model"), dict):
        raise UsageError(f"{path}: the checkpoint's configuration or model is missing")
    return ck


def run(args: argparse.Namespace) -> int:
    ck = load_checkpoint(args.checkpoint)
    config = ck["config"]
    model = build(config["model"])
    try:
        model.load_state_dict(ck["model"])
    except (RuntimeError, KeyError, TypeError) as e:
        raise UsageError(f"{args.checkpoint}: the weights do not fit a {config['model']} "
                         f"({str(e).splitlines()[0]})") from None
    _, test_set = _datasets(int(config.get("seed", 0)))
    acc = accuracy(model, test_set)
    print(f"{config['model']} from {args.checkpoint} on {len(test_set)} held-out digits "
          f"(split seed {config.get('seed', 0)})")
    print(format_confusion(confusion_matrix(model, test_set)))
    print(f"test accuracy: {acc:.4f}")
    return 0
