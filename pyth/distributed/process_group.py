"""The process groups: the default (world) group made by init_process_group, and new_group.

A group holds its own MPI communicator (a duplicate of MPI_COMM_WORLD, or a split of it), so
pyth's messages never mix with those of other MPI users in the same program. Ranks passed to
collectives (src, dst) are global ranks, as in PyTorch; a group translates them. Without a
launcher, MPI starts a world of one process ("singleton init"), so a plain `python` run works.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ._mpi import mpi


class DistributedNotInitializedError(RuntimeError, ValueError):
    """A collective or query before init_process_group (a ValueError too, as PyTorch raises)."""


_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class Backend(str):
    """Backend names: pyth speaks MPI only."""

    MPI = "mpi"

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str):
            raise TypeError(f"Backend name must be a string, but got: {name!r}")
        value = name.lower()
        if value != cls.MPI:
            raise ValueError(f"Invalid backend: '{name}': pyth.distributed runs on MPI only "
                             "(backend='mpi')")
        return super().__new__(cls, value)


class ProcessGroup:
    """A set of ranks with its own communicator; `ranks` lists their global ranks in order."""

    def __init__(self, comm: Any, ranks: Sequence[int]) -> None:
        self.comm = comm
        self.ranks = list(ranks)
        self._group_rank = {g: i for i, g in enumerate(self.ranks)}

    def rank(self) -> int:
        return self.comm.Get_rank()

    def size(self) -> int:
        return self.comm.Get_size()

    def group_rank(self, global_rank: int) -> int | None:
        """The rank in this group of a global rank (None if it is not a member)."""
        return self._group_rank.get(global_rank)

    def name(self) -> str:
        return Backend.MPI

    def __repr__(self) -> str:
        return f"<pyth.distributed.ProcessGroup mpi ranks={self.ranks}>"


class _State:
    world: ProcessGroup | None = None
    groups: ClassVar[list] = []


class GroupMember:
    """GroupMember.WORLD is the default group (None before init); NON_GROUP_MEMBER is what
    new_group returns on ranks outside the new group."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


def init_process_group(backend: str | None = "mpi", init_method: str | None = None,
                       timeout: Any = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> None:
    """Join the default process group over MPI (launched by mpiexec, or a world of one).

    world_size and rank, when given, must agree with what MPI reports (MPI assigns ranks)."""
    if _State.world is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    Backend("mpi" if backend is None else backend)
    MPI = mpi()
    comm = MPI.COMM_WORLD.Dup()
    n, r = comm.Get_size(), comm.Get_rank()
    for what, given, actual in (("world_size", world_size, n), ("rank", rank, r)):
        if given not in (-1, None) and given != actual:
            comm.Free()
            raise ValueError(f"init_process_group(): {what}={given} but MPI started this "
                             f"process with {what} {actual} (mpiexec -n sets the world)")
    _State.world = GroupMember.WORLD = ProcessGroup(comm, range(n))
    _State.groups = []


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free a group's communicator; without a group, every group (init may then run again).
    MPI itself stays initialised until the interpreter exits."""
    if group is None or group is _State.world:
        world = default_group()
        for g in _State.groups:
            _free(g)
        _free(world)
        _State.world = GroupMember.WORLD = None
        _State.groups = []
        return
    if group in _State.groups:
        _State.groups.remove(group)
        _free(group)


def _free(g: ProcessGroup) -> None:
    MPI = mpi()
    if g.comm != MPI.COMM_NULL:
        g.comm.Free()


def is_initialized() -> bool:
    """Whether init_process_group ran (and destroy_process_group did not since)."""
    return _State.world is not None


def is_available() -> bool:
    """Whether the distributed package can run here (mpi4py and an MPI library import)."""
    from ._mpi import available
    return available()


def is_mpi_available() -> bool:
    return is_available()


def default_group() -> ProcessGroup:
    """The world group; DistributedNotInitializedError before init_process_group."""
    if _State.world is None:
        raise DistributedNotInitializedError(_NOT_INIT)
    return _State.world


def resolve(group: ProcessGroup | None) -> ProcessGroup:
    """group, or the default group for None (checking that init ran)."""
    world = default_group()
    if group is None or group is GroupMember.WORLD:
        return world
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup or None, got {type(group).__name__}")
    if group is not world and group not in _State.groups:
        raise ValueError("group has been destroyed or does not belong to this process group")
    return group


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in group (the world by default); -1 if it is not a member."""
    g = resolve(group)
    r = g.group_rank(_world_rank())
    return -1 if r is None else r


def _world_rank() -> int:
    return default_group().rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in group (the world by default); -1 if not a member."""
    g = resolve(group)
    return g.size() if g.group_rank(_world_rank()) is not None else -1


def get_backend(group: ProcessGroup | None = None) -> str:
    resolve(group)
    return Backend.MPI


def new_group(ranks: Sequence[int] | None = None, timeout: Any = None, backend: Any = None,
              pg_options: Any = None, use_local_synchronization: bool = False) -> Any:
    """A group of the given global ranks (all of them by default). Every rank of the world
    must call it, with the same ranks; ranks outside get GroupMember.NON_GROUP_MEMBER."""
    world = default_group()
    n = world.size()
    members = list(range(n)) if ranks is None else [int(r) for r in ranks]
    bad = [r for r in members if not 0 <= r < n]
    if bad or len(set(members)) != len(members):
        raise ValueError(f"new_group(): ranks must be distinct and in [0, {n - 1}], got "
                         f"{members}")
    members = sorted(members)
    everyone = world.comm.allgather(members)
    if any(m != members for m in everyone):
        raise RuntimeError(f"new_group(): ranks differ across processes: {everyone}")
    MPI = mpi()
    me = world.rank()
    comm = world.comm.Split(0 if me in members else MPI.UNDEFINED, members.index(me)
                            if me in members else 0)
    if me not in members:
        return GroupMember.NON_GROUP_MEMBER
    g = ProcessGroup(comm, members)
    _State.groups.append(g)
    return g
