"""Accuracy and confusion matrix of a classifier over a whole data set (one batched forward)."""

from __future__ import annotations

import numpy as np

import pyth


def predictions(model, dataset) -> np.ndarray:
    """Predicted classes for every image of `dataset` (eval mode, no graph)."""
    was_training = model.training
    model.eval()
    try:
        with pyth.no_grad():
            return model(dataset.data).argmax(1).numpy()
    finally:
        model.train(was_training)


def accuracy(model, dataset) -> float:
    return float((predictions(model, dataset) == dataset.targets.numpy()).mean())


def confusion_matrix(model, dataset, classes: int = 10) -> np.ndarray:
    """counts[true, predicted]."""
    pred, true = predictions(model, dataset), dataset.targets.numpy()
    return np.bincount(true * classes + pred, minlength=classes * classes).reshape(classes,
                                                                                   classes)


def format_confusion(counts: np.ndarray) -> str:
    """The matrix as a table: rows are true labels, columns predictions."""
    n = counts.shape[0]
    w = max(3, len(str(counts.max())))
    head = "true\\pred " + " ".join(f"{j:>{w}}" for j in range(n))
    rows = [f"{i:>9} " + " ".join(f"{counts[i, j]:>{w}}" for j in range(n)) for i in range(n)]
    return "\n".join([head] + rows)
