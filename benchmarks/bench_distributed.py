"""Data-parallel training throughput: the MLP 784-512-10 at 1 and 2 ranks (one thread each).

    python benchmarks/bench_distributed.py [--steps N] [--batch B] [--ranks 1,2]

launches itself under `mpiexec -n R` for each R (R = 1 runs plain python), every rank training
DistributedDataParallel(MLP) on its own batch of B synthetic digits-sized samples with
cross-entropy and an SGD step; reports samples per second over all ranks and the speed-up over
one rank (the goal is >= 1.7x at 2 ranks). Needs the `mpi` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def worker(steps: int, batch: int) -> None:
    """One rank: time `steps` DDP training steps after a few untimed ones."""
    import numpy as np

    import pyth
    import pyth.distributed as dist
    from pyth import nn
    from pyth.nn.parallel import DistributedDataParallel

    pyth.set_num_threads(1)
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    model = DistributedDataParallel(nn.Sequential(nn.Linear(784, 512), nn.ReLU(),
                                                  nn.Linear(512, 10)))
    rng = np.random.default_rng(rank)
    x = pyth.from_numpy(rng.random((batch, 784), dtype=np.float32))
    y = pyth.from_numpy(rng.integers(0, 10, batch))
    loss_fn = nn.CrossEntropyLoss()

    def step() -> None:
        loss_fn(model(x), y).backward()
        with pyth.no_grad():
            for p in model.parameters():
                p.sub_(p.grad * 0.01)
                p.grad = None

    for _ in range(5):
        step()
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    dist.barrier()
    elapsed = time.perf_counter() - t0
    if rank == 0:
        print(json.dumps({"ranks": world, "samples_per_s": world * batch * steps / elapsed}))
    dist.destroy_process_group()


def launch(ranks: int, steps: int, batch: int) -> float:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--steps", str(steps),
           "--batch", str(batch)]
    if ranks > 1:
        cmd = ["mpiexec", "-n", str(ranks)] + cmd
    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         env={**os.environ, **ONE_THREAD}).stdout
    return json.loads(out.strip().splitlines()[-1])["samples_per_s"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=128, help="samples per rank and step")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.steps, args.batch)
        return
    base = None
    print(f"MLP 784-512-10, float32, batch {args.batch} per rank, one thread per rank")
    for r in (int(s) for s in args.ranks.split(",")):
        rate = launch(r, args.steps, args.batch)
        base = base or rate
        print(f"{r} rank{'s' if r > 1 else ' '}: {rate:9.0f} samples/s  ({rate / base:.2f}x)",
              flush=True)


if __name__ == "__main__":
    main()
