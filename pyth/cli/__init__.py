"""The command line: `python -m pyth <command>` (also the `pyth` console script).

Each command is a module with `add_arguments(parser)` and `run(args) -> int`; the table below
is the whole dispatch. Errors a user can cause (bad arguments, an output folder that cannot be
written, a damaged checkpoint, a missing optional dependency) end as one line on stderr and exit
status 2, without a traceback; every argument is checked before any work starts.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import pyth

from .arguments import ArgumentParser, UsageError

__all__ = ["COMMANDS", "UsageError", "main", "plural"]

# command -> (module under pyth.cli, one-line help)
COMMANDS = {
    "train": ("train", "train a digit classifier on scikit-learn's digits (8x8 images)"),
    "evaluate": ("evaluate", "reload a checkpoint written by train and report its accuracy"),
    "tour": ("tour", "a short tour of storages, strides and views"),
    "info": ("info", "version, build, SIMD, BLAS, threads and memory: what a bug report needs"),
}


def plural(count: int, word: str) -> str:
    """`1 epoch`, `2 epochs`: a count and its noun, in the right number."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _parser() -> tuple[ArgumentParser, dict[str, ArgumentParser]]:
    """The parser of `pyth`, and that of each command."""
    parser = ArgumentParser(prog="pyth", description="pyth: a tensor library in the legacy "
                            "Torch TH tradition.")
    parser.add_argument("--version", action="version", version=f"pyth {pyth.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    commands = {}
    for name, (module, help_) in COMMANDS.items():
        p = commands[name] = sub.add_parser(name, help=help_, description=help_)
        add = getattr(importlib.import_module(f"pyth.cli.{module}"), "add_arguments", None)
        if add is not None:
            add(p)
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    """Parse argv, run the command, return its exit status."""
    parser, commands = _parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command is None:
        parser.error("the following arguments are required: <command> (choose from "
                     f"{', '.join(map(repr, COMMANDS))})")
    if unknown:  # argparse would blame `pyth`, not the command they were given to
        commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    module = importlib.import_module(f"pyth.cli.{COMMANDS[args.command][0]}")
    try:
        return int(module.run(args) or 0)
    except UsageError as e:
        print(f"pyth {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"pyth {args.command}: interrupted", file=sys.stderr)
        return 130
