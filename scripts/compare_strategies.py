#!/usr/bin/env python3
"""Replay the Bayesian search against recorded exhaustive sweeps, on a CPU: how close does it land?

For every `GRAPH.exhaustive.jsonl` (with its table `GRAPH.exhaustive.json`) in the given folders,
and every sampler seed, runs `autotune sweep --replay RECORDS --strategy bayes --trials N` (the
space the records cover; joint configurations composed from the recorded uniform runs, see
autotune/search/replay.py) and compares its best with the exhaustive table's best. Prints one
row per graph and seed and the issue's verdict: within 3 % of the exhaustive optimum on at least
80 % of the graphs, with at most 15 % of the exhaustive evaluations.

    python3 scripts/compare_strategies.py reports/h100/sweeps --trials 25 --seeds 0 1 2 3 4
    python3 scripts/compare_strategies.py reports/h100/sweeps --live --candidates reports/h100/live-first-trial --budget 0.10

This is the tool for choosing the search's settings without a GPU; the committed evidence of the
targets is the live comparison, `python3 scripts/compare_strategies.py --live DIR`: the bayes
sweeps measured on the GPU against the exhaustive ones, and every sweep's host share of its wall
time (with the command wall times of DIR/evidence.log, written by scripts/sweep_evidence.sh).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import statistics
import sys
from pathlib import Path

from autotune.cli import main as autotune
from autotune.search.compare import BUDGET_SHARE, GAP_TOLERANCE, GRAPH_SHARE, compare_tables, verdict
from autotune.tables import read_table


def replayed_bayes(records: Path, trials: int, seed: int, sampler: str, model: str = "auto") -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = autotune(["sweep", "--replay", str(records), "--strategy", "bayes", "--trials", str(trials),
                           "--sampler", sampler, "--sampler-seed", str(seed), "--storage", "memory", "--json",
                           "-o", "/dev/null", "--model", model])
    if status != 0:
        raise SystemExit(f"replay of {records} failed with status {status}")
    return json.loads(out.getvalue())


def pairs(folders: list[str], candidate_suffix: str) -> list[tuple[Path, Path]]:
    found = []
    for folder in folders:
        for reference in sorted(Path(folder).glob("*.exhaustive.json")):
            candidate = reference.with_name(reference.name.replace(".exhaustive.json", candidate_suffix))
            found.append((reference, candidate))
    return found


def fitted_without(graph: str, folders: list[str], features: Path, directory: Path) -> Path:
    """A fitted model (autotune model fit) of every graph's records but `graph`'s: the prediction a
    user would get for a graph nobody measured."""
    others = [str(p) for folder in folders for p in sorted(Path(folder).glob("*.jsonl"))
              if not p.name.startswith(f"{graph}.")]
    path = directory / f"fitted-without-{graph}.toml"
    with contextlib.redirect_stdout(io.StringIO()):
        status = autotune(["model", "fit", *others, "--features", str(features), "-o", str(path)])
    if status != 0:
        raise SystemExit(f"fitting without {graph} failed with status {status}")
    return path


HOST_SHARE_TARGET = 0.25
_STARTED = re.compile(r"^== \S+ (\S+)\.(exhaustive|bayes) ")
_ENDED = re.compile(r"^   exit (\d+) after ([\d.]+) s")


def command_walls(log: Path) -> dict[tuple[str, str], float]:
    """(graph, strategy) -> the sweep command's wall seconds, from scripts/sweep_evidence.sh's log."""
    walls, current = {}, None
    for line in log.read_text().splitlines() if log.exists() else ():
        if started := _STARTED.match(line):
            current = (started.group(1), started.group(2))
        elif (ended := _ENDED.match(line)) and current:
            walls[current] = walls.get(current, 0.0) + float(ended.group(2))  # a resumed sweep adds up
            current = None
    return walls


def host_shares(folders: list[str]) -> bool:
    """Print each sweep's time split; True when every sweep's host share is under the target."""
    print(f"\n{'sweep':<28} {'command s':>9} {'sweep s':>8} {'measure s':>9} {'host share':>10} {'setup s':>7}")
    worst = 0.0
    for folder in folders:
        walls = command_walls(Path(folder) / "evidence.log")
        for path in sorted(Path(folder).glob("*.json")):
            if not path.name.endswith((".exhaustive.json", ".bayes.json")):
                continue
            for entry in read_table(path)["entries"]:
                sweep, extra = entry.get("tuning_seconds", 0.0), entry.get("x-sweep", {})
                share = extra.get("host_share")
                if share is None:
                    continue
                graph, strategy = path.name.rsplit(".", 2)[:2]
                wall = walls.get((graph, strategy))
                worst = max(worst, share)
                print(f"{path.stem:<28} {wall if wall else float('nan'):>9.1f} {sweep:>8.1f} "
                      f"{extra.get('measure_seconds', 0.0):>9.1f} {share:>10.1%} "
                      f"{(wall - sweep) if wall else float('nan'):>7.1f}")
    met = worst < HOST_SHARE_TARGET
    print(f"\nhost share = 1 - (seconds inside the timer's measure calls) / (the sweep's wall time, from its first "
          f"measurement to its table); setup = the command's wall time before that (start-up, graph, CPU "
          f"reference distances, kernel compilation). Worst host share {worst:.1%}: target (< "
          f"{HOST_SHARE_TARGET:.0%}) {'met' if met else 'NOT met'}")
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", help="folders holding GRAPH.exhaustive.json(l) (and GRAPH.bayes.json)")
    parser.add_argument("--trials", type=int, default=25)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--sampler", default="tpe")
    parser.add_argument("--budget", type=float, default=BUDGET_SHARE,
                        help=f"the largest share of the exhaustive evaluations allowed (default {BUDGET_SHARE:.0%})")
    parser.add_argument("--fitted-logo", metavar="TABLE.json", type=Path, default=None,
                        help="start each replayed search from the fitted model's prediction, the model fitted on "
                        "the other graphs' records (features from TABLE.json)")
    parser.add_argument("--live", action="store_true",
                        help="compare the GPU-measured GRAPH.bayes.json tables instead of replaying")
    parser.add_argument("--candidates", metavar="DIR", type=Path, default=None,
                        help="with --live: read the GRAPH.bayes.json tables (and evidence.log) from DIR rather than "
                        "from beside the exhaustive ones")
    args = parser.parse_args(argv)

    rows = []
    print(f"{'graph':<16} {'seed':>4} {'exhaustive ms':>13} {'bayes ms':>9} {'gap':>7} {'evals':>5} {'share':>6}")
    if args.live:
        for reference, candidate in pairs(args.folders, ".bayes.json"):
            if args.candidates is not None:
                candidate = args.candidates / candidate.name
            if not candidate.exists():
                print(f"{reference.name}: no {candidate.name}", file=sys.stderr)
                continue
            rows += [(row, "-") for row in compare_tables(read_table(reference), read_table(candidate))]
    else:
        import tempfile

        with tempfile.TemporaryDirectory() as scratch:
            for reference, _ in pairs(args.folders, ".bayes.json"):
                records = reference.with_suffix(".jsonl")
                graph = reference.name.replace(".exhaustive.json", "")
                model = "auto" if args.fitted_logo is None else \
                    str(fitted_without(graph, args.folders, args.fitted_logo, Path(scratch)))
                for seed in args.seeds:
                    table = replayed_bayes(records, args.trials, seed, args.sampler, model)
                    rows += [(row, seed) for row in compare_tables(read_table(reference), table)]
    for row, seed in rows:
        print(f"{row.graph:<16} {seed:>4} {row.reference_ms:>13.4f} {row.candidate_ms:>9.4f} {row.gap:>+7.1%} "
              f"{row.candidate_evaluations:>5} {row.budget_share:>6.1%}")
    comparisons = [row for row, _ in rows]
    result = verdict(comparisons, budget=args.budget)
    gaps = [row.gap for row in comparisons]
    print(f"\n{result['within']} of {result['graphs']} runs within {GAP_TOLERANCE:.0%} of the exhaustive optimum with at "
          f"most {args.budget:.0%} of its evaluations (target: {GRAPH_SHARE:.0%}); median gap "
          f"{statistics.median(gaps):+.1%}, worst {max(gaps):+.1%}, largest budget share "
          f"{result['max_budget_share']:.1%}: target {'met' if result['met'] else 'NOT met'}")
    shares_met = host_shares([str(args.candidates)] if args.candidates else args.folders) if args.live else True
    return 0 if result["met"] and shares_met else 1


if __name__ == "__main__":
    sys.exit(main())
