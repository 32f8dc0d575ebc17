"""DataLoader internals: collation, the worker loop, fetchers."""

from . import collate, fetch, worker  # noqa: F401
