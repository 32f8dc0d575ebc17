"""pyth.distributed: torch.distributed's process groups and collectives, over MPI (mpi4py).

Launch ranks with `mpiexec -n 2 python script.py`; a plain `python script.py` is a world of
one. Needs the `mpi` extra (mpi4py and an MPI library such as mpich); importing this package
works without it, the first call that needs MPI says what to install.
"""

from .collectives import (  # noqa: F401
                          all_gather,
                          all_gather_into_tensor,
                          all_gather_object,
                          all_reduce,
                          all_to_all,
                          all_to_all_single,
                          barrier,
                          broadcast,
                          broadcast_object_list,
                          gather,
                          irecv,
                          isend,
                          recv,
                          reduce,
                          reduce_scatter,
                          reduce_scatter_tensor,
                          scatter,
                          send,
)
from .process_group import (  # noqa: F401
                          Backend,
                          DistributedNotInitializedError,
                          GroupMember,
                          ProcessGroup,
                          destroy_process_group,
                          get_backend,
                          get_rank,
                          get_world_size,
                          init_process_group,
                          is_available,
                          is_initialized,
                          is_mpi_available,
                          new_group,
)
from .reduce_op import ReduceOp  # noqa: F401
from .work import Work  # noqa: F401

group = GroupMember
