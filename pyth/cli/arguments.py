"""What the command line accepts: argparse types for numbers and a check for output folders,
so that a mistake ends before any work, as one line in argparse's own style:

    pyth train: error: argument --lr: expected a finite number > 0, got 'nan'
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Callable
from typing import NoReturn


class UsageError(Exception):
    """A user-facing failure: printed as one line `pyth COMMAND: error: ...`, exit status 2."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are the single line `PROG: error: MESSAGE`, exit 2
    (argparse prints the whole usage first; `--help` is where that belongs)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _refuse(expected: str, text: str) -> NoReturn:
    """The one wording of every bad number (argparse puts `argument --NAME: ` before it)."""
    raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")


def integer(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [minimum, maximum] (no upper bound when maximum is None)."""
    expected = (f"an integer >= {minimum}" if maximum is None else
                f"an integer in [{minimum}, {maximum}]")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            _refuse(expected, text)
        if value < minimum or (maximum is not None and value > maximum):
            _refuse(expected, text)
        return value

    parse.__name__ = "integer"
    return parse


def positive_number(text: str) -> float:
    """An argparse type: a finite float > 0 (float() alone takes 'nan' and 'inf')."""
    try:
        value = float(text)
    except ValueError:
        _refuse("a finite number > 0", text)
    if not math.isfinite(value) or value <= 0:
        _refuse("a finite number > 0", text)
    return value


def writable_directory(option: str, path: str, files: tuple[str, ...] = ()) -> str:
    """Creates the directory path (and its parents) if needed and checks that this process can
    write in it, and that none of the files it will write there is a directory; else a
    UsageError `argument OPTION: ...`. Returns path."""
    if not path:
        raise UsageError(f"argument {option}: expected a directory, got ''")
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"argument {option}: {path!r} exists and is not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise UsageError(f"argument {option}: cannot create the directory {path!r} "
                         f"({e.strerror or e})") from None
    try:  # os.access is no test for root or a read-only file system: write a file
        fd, probe = tempfile.mkstemp(prefix=".pyth-write-check-", dir=path)
        os.close(fd)
        os.remove(probe)
    except OSError as e:
        raise UsageError(f"argument {option}: cannot write in {path!r} "
                         f"({e.strerror or e})") from None
    for name in files:
        if os.path.isdir(os.path.join(path, name)):
            raise UsageError(f"argument {option}: {os.path.join(path, name)!r} is a directory; "
                             f"it is where {name} is written")
    return path
