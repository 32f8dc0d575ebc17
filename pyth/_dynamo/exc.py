"""The exceptions of pyth.compile, with torch._dynamo.exc's names and bases."""

from __future__ import annotations


class TorchDynamoException(RuntimeError):
    """The base of pyth.compile's own errors (a RuntimeError, as in PyTorch)."""


class InvalidBackend(TorchDynamoException):
    """A backend name pyth.compile does not know."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Invalid backend: {name!r}, see `pyth._dynamo.list_backends()` for "
                         "available backends.")


class Unsupported(TorchDynamoException):
    """A graph break where `fullgraph=True` forbids one: the message names the cause."""


class FailOnRecompileLimitHit(TorchDynamoException):
    """More guard sets than `config.recompile_limit` under `fullgraph=True`."""
