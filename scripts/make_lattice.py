#!/usr/bin/env python3
"""Write a k x k four-neighbour lattice as a DIMACS shortest-path file (.gr): every grid edge both
ways, integer weights uniform in 1..100 from numpy's default_rng(seed). A graph of narrow
breadth-first levels and about usa-roads' size (k = 300: 90,000 vertices, level width 178) that is
not a road network: a probe of rule 5's bitmap step (characterizations/README.md).

    python3 scripts/make_lattice.py benchmarks/graphs/sources/grid300.gr 300 0
"""
import sys

import numpy as np


def main(out: str, k: str = "300", seed: str = "0") -> None:
    side = int(k)
    grid = np.arange(side * side).reshape(side, side)
    left, right = grid[:, :-1].ravel(), grid[:, 1:].ravel()
    up, down = grid[:-1, :].ravel(), grid[1:, :].ravel()
    tails = np.concatenate([left, right, up, down])
    heads = np.concatenate([right, left, down, up])
    weights = np.random.default_rng(int(seed)).integers(1, 101, size=tails.size)
    with open(out, "w") as f:
        f.write(f"c {side}x{side} 4-neighbour lattice, weights uniform 1..100 (numpy default_rng({seed})); "
                "a probe for the bitmap step\n")
        f.write(f"p sp {side * side} {tails.size}\n")
        f.write("".join(f"a {t + 1} {h + 1} {w}\n" for t, h, w in zip(tails, heads, weights)))


if __name__ == "__main__":
    main(*sys.argv[1:])
