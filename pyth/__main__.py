"""python -m pyth <command>: train, evaluate, tour, info (see pyth/cli)."""

from pyth.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
