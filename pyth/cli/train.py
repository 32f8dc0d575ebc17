"""python -m pyth train: a digit classifier trained end to end on scikit-learn's digits.

Data set and stratified split from the seed, a DataLoader, the model, an optimizer with a
cosine learning-rate schedule, a progress bar, per-epoch test accuracy, a plot of the curves
and a checkpoint (model, optimizer, configuration, metrics) that `evaluate` reloads.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import Any

import pyth
from pyth import nn

from . import UsageError, plural
from .arguments import integer, positive_number, writable_directory
from .data_parallel import DataParallel
from .metrics import accuracy
from .models import MODELS, build
from .progress import EpochProgress

DEFAULT_LR = {"sgd": 0.05, "adam": 2e-3}
DEFAULT_EPOCHS = {"mlp": 60, "cnn": 20}
CHECKPOINT_FORMAT = "pyth-train-digits/1"
OUTPUTS = ("model.pth", "curves.png")   # what train writes into --out
SEED_MAX = 2**32 - 1   # scikit-learn's split takes seeds in [0, 2^32)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", choices=sorted(MODELS), default="cnn",
                   help="the classifier (default: cnn)")
    p.add_argument("--epochs", type=integer(1), default=None,
                   help="passes over the training set (default: cnn 20, mlp 60)")
    p.add_argument("--batch-size", type=integer(1), default=64, help="default: 64")
    p.add_argument("--lr", type=positive_number, default=None,
                   help="learning rate (default: sgd 0.05, adam 0.002)")
    p.add_argument("--optimizer", choices=["sgd", "adam"], default="adam",
                   help="default: adam")
    p.add_argument("--workers", type=integer(0), default=0,
                   help="DataLoader worker processes (default: 0, load in this process)")
    p.add_argument("--seed", type=integer(0, SEED_MAX), default=0,
                   help="seeds the split, the weights, the shuffling and dropout (default: 0)")
    p.add_argument("--out", default="runs/digits",
                   help="directory for curves.png and model.pth, created if needed; checked "
                        "to be writable before training starts (default: runs/digits)")
    p.add_argument("--distributed", action="store_true",
                   help="data-parallel over the ranks of `mpiexec -n N` (the mpi extra); "
                        "rank 0 prints and writes")


def config_from(args: argparse.Namespace) -> dict:
    """The run's configuration with defaults filled in (stored in the checkpoint)."""
    return {
        "model": args.model,
        "epochs": args.epochs or DEFAULT_EPOCHS[args.model],
        "batch_size": args.batch_size,
        "lr": args.lr or DEFAULT_LR[args.optimizer],
        "optimizer": args.optimizer,
        "workers": args.workers,
        "seed": args.seed,
    }


def make_optimizer(name: str, params, lr: float):
    if name == "sgd":
        return pyth.optim.SGD(params, lr=lr, momentum=0.9, nesterov=True, weight_decay=1e-4)
    return pyth.optim.Adam(params, lr=lr, weight_decay=0.0)


def _datasets(seed: int):
    try:
        from pyth.utils.data.datasets import Digits
        return Digits(train=True, split_seed=seed), Digits(train=False, split_seed=seed)
    except ImportError as e:
        raise UsageError(str(e)) from None


def _plot(history: dict, path: str, title: str) -> bool:
    """Loss and accuracy per epoch as a PNG (False when matplotlib is missing)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    epochs = range(1, len(history["loss"]) + 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(epochs, history["loss"], marker="o")
    left.set(title="training loss", xlabel="epoch", ylabel="cross entropy")
    right.plot(epochs, history["train_accuracy"], marker="o", label="train")
    right.plot(epochs, history["test_accuracy"], marker="o", label="test")
    right.set(title="accuracy", xlabel="epoch", ylabel="accuracy")
    right.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def _quiet(*args: Any, **kwargs: Any) -> None:
    """The log of ranks other than 0."""


def train(config: dict, out_dir: str, log=print,
          distributed: bool = False) -> dict[str, Any] | None:
    """Runs the training the configuration describes; returns the checkpoint it wrote.
    distributed: one rank of `mpiexec -n N` (see data_parallel.py); only rank 0 writes and
    returns the checkpoint, the others return None."""
    from pyth.utils.data import DataLoader

    par = DataParallel() if distributed else None
    if par is not None and not par.is_main:
        log = _quiet
    pyth.manual_seed(config["seed"])
    train_set, test_set = _datasets(config["seed"])
    if par is not None:
        loader = par.loader(train_set, config["batch_size"], config["workers"], config["seed"])
    else:
        loader = DataLoader(train_set, batch_size=config["batch_size"], shuffle=True,
                            num_workers=config["workers"],
                            generator=pyth.Generator().manual_seed(config["seed"]))
    model = build(config["model"])
    net = par.wrap(model) if par is not None else model
    optimizer = make_optimizer(config["optimizer"], model.parameters(), config["lr"])
    schedule = pyth.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config["epochs"])
    loss_fn = nn.CrossEntropyLoss()
    history: dict[str, list] = {"loss": [], "train_accuracy": [], "test_accuracy": [],
                                "lr": [], "seconds": []}
    log(f"training {config['model']} on {len(train_set)} digits ({len(test_set)} held out), "
        f"{config['optimizer']} lr {config['lr']}, {plural(config['epochs'], 'epoch')} of batch "
        f"{config['batch_size']}")
    for epoch in range(1, config["epochs"] + 1):
        start, total, seen = time.perf_counter(), 0.0, 0
        if par is not None:
            par.start_epoch(epoch)
        bar = EpochProgress(loader, len(loader), f"epoch {epoch}/{config['epochs']}")
        model.train()
        for images, labels in bar:
            loss = loss_fn(net(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * labels.size(0)
            seen += labels.size(0)
            bar.show_loss(total / seen)
        bar.close()
        if par is not None:
            total, seen = par.totals(total, seen)
        if not math.isfinite(total):  # the same sum on every rank: all of them stop here
            raise UsageError(f"the loss became {total / seen} in epoch {epoch}: the learning "
                             f"rate {config['lr']} is too large for {config['optimizer']} "
                             f"(no checkpoint written)")
        history["lr"].append(schedule.get_last_lr()[0])
        schedule.step()
        history["loss"].append(total / seen)
        history["train_accuracy"].append(accuracy(model, train_set))
        history["test_accuracy"].append(accuracy(model, test_set))
        history["seconds"].append(time.perf_counter() - start)
        log(f"epoch {epoch:>3}/{config['epochs']}  loss {history['loss'][-1]:.4f}  "
            f"train {history['train_accuracy'][-1]:.4f}  test {history['test_accuracy'][-1]:.4f}"
            f"  lr {history['lr'][-1]:.5f}  {history['seconds'][-1]:.2f} s")
    checkpoint = {
        "format": CHECKPOINT_FORMAT,
        "config": config,
        "model": dict(model.state_dict()),
        "optimizer": optimizer.state_dict(),
        "metrics": {"test_accuracy": history["test_accuracy"][-1],
                    "train_accuracy": history["train_accuracy"][-1], "history": history},
    }
    if par is not None:
        par.close()
        if not par.is_main:
            return None
    os.makedirs(out_dir, exist_ok=True)
    pyth.save(checkpoint, os.path.join(out_dir, "model.pth"))
    title = f"pyth: {config['model']} on digits, {config['optimizer']}"
    if _plot(history, os.path.join(out_dir, "curves.png"), title):
        log(f"wrote {os.path.join(out_dir, 'curves.png')} and {os.path.join(out_dir, 'model.pth')}")
    else:
        log(f"wrote {os.path.join(out_dir, 'model.pth')} (no curves.png: matplotlib is missing; "
            f"pip install 'pyth[demo]')")
    return checkpoint


def run(args: argparse.Namespace) -> int:
    writable_directory("--out", args.out, OUTPUTS)
    config = config_from(args)
    start = time.perf_counter()
    checkpoint = train(config, args.out, distributed=args.distributed)
    if checkpoint is None:   # a rank other than 0 of a distributed run
        return 0
    print(f"trained in {time.perf_counter() - start:.1f} s")
    print(f"test accuracy: {checkpoint['metrics']['test_accuracy']:.4f}")
    return 0
