"""mpi4py, imported on first use: pyth works without it, and says which extra brings it."""

from __future__ import annotations

from typing import Any

_MPI: list = []


def mpi() -> Any:
    """The mpi4py.MPI module (MPI is initialised by importing it); ImportError naming the
    `mpi` extra when mpi4py or an MPI library is missing."""
    if not _MPI:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError("pyth.distributed needs mpi4py and an MPI library: install the "
                              "'mpi' extra (pip install 'pyth[mpi]', i.e. mpi4py and mpich)"
                              f" ({e})") from e
        _MPI.append(MPI)
    return _MPI[0]


def available() -> bool:
    """Whether mpi4py imports (without raising)."""
    try:
        mpi()
    except ImportError:
        return False
    return True
