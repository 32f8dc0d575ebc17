"""The command line: `python -m pyth <command>` (also the `pyth` console script).

Each command is a module with `add_arguments(parser)` and `run(args) -> int`; the table below
is the whole dispatch. Errors a user can cause (bad arguments, a damaged checkpoint, a missing
optional dependency) end as one line on stderr and exit status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# command -> (module under pyth.cli, one-line help)
COMMANDS = {
    "train": ("train", "train a digit classifier on scikit-learn's digits (8x8 images)"),
    "evaluate": ("evaluate", "reload a checkpoint written by train and report its accuracy"),
    "tour": ("tour", "a short tour of storages, strides and views"),
    "info": ("info", "version, build, SIMD, BLAS, threads and memory: what a bug report needs"),
}


class UsageError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pyth", description="pyth: a tensor library in the "
                                     "legacy Torch TH tradition.")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    sub.required = True
    for name, (module, help_) in COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        add = getattr(importlib.import_module(f"pyth.cli.{module}"), "add_arguments", None)
        if add is not None:
            add(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse argv, run the command, return its exit status."""
    args = _parser().parse_args(argv)
    module = importlib.import_module(f"pyth.cli.{COMMANDS[args.command][0]}")
    try:
        return int(module.run(args) or 0)
    except UsageError as e:
        print(f"pyth {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"pyth {args.command}: interrupted", file=sys.stderr)
        return 130
