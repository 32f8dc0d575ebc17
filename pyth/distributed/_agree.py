"""Before a collective, the ranks compare what each passed, so that a mistake on one rank is an
exception on every rank (with the same message) instead of a hang or silently wrong data.

Each rank contributes (collective, facts, error): the collective's name, facts that must match
across ranks (dtype, shape, root, ...), and the error its own argument checks found, if any.
One small allgather carries them; then every rank applies the same checks in the same order.
"""

from __future__ import annotations

from typing import Any

from .process_group import ProcessGroup

_TYPES = {"TypeError": TypeError, "ValueError": ValueError, "RuntimeError": RuntimeError}


def local_error(exc_type: type, message: str) -> tuple:
    """An argument error found on this rank, to be raised on every rank after agreement."""
    return (exc_type.__name__, message)


def agree(group: ProcessGroup, name: str, facts: dict, error: tuple | None = None,
          extra: Any = None) -> list:
    """Raise on every rank if any rank's arguments are wrong or the ranks disagree on the
    collective or its facts; otherwise every rank's `extra`, by group rank."""
    everyone = group.comm.allgather((name, facts, error, extra))
    me = group.rank()
    if error is not None:
        raise _TYPES.get(error[0], RuntimeError)(error[1])
    for r, (_, _, err, _) in enumerate(everyone):
        if err is not None:
            raise RuntimeError(f"{name}: rank {group.ranks[r]} rejected its arguments: {err[1]}")
    names = [e[0] for e in everyone]
    if any(n != name for n in names):
        calls = ", ".join(f"rank {group.ranks[r]} called {n}" for r, n in enumerate(names))
        raise RuntimeError(f"collectives differ across ranks: {calls}")
    for key, mine in facts.items():
        theirs = [e[1].get(key) for e in everyone]
        if any(v != mine for v in theirs):
            has = ", ".join(f"rank {group.ranks[r]} has {_show(v)}" for r, v in enumerate(theirs))
            raise RuntimeError(f"{name}: {key} differs across ranks: {has} (rank "
                               f"{group.ranks[me]} is this one)")
    return [e[3] for e in everyone]


def _show(v: Any) -> str:
    return str(tuple(v)) if isinstance(v, list) else str(v)
