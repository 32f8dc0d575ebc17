"""The two digit classifiers `pyth train` builds, by name (the checkpoint stores the name)."""

from __future__ import annotations

from pyth import nn


def mlp() -> nn.Module:
    """64 pixels -> 256 hidden units -> 10 classes."""
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(256, 10))


def cnn() -> nn.Module:
    """Two 3x3 convolutions (32 and 64 channels), a 2x2 max pool, a 128-unit hidden layer."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Dropout(0.25),
        nn.Linear(128, 10))


MODELS = {"mlp": mlp, "cnn": cnn}


def build(name: str) -> nn.Module:
    """A fresh model (initialised from pyth's global generator) of the named kind."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}")
    return MODELS[name]()
