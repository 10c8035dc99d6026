"""The fitted model on a GPU whose records it was not fitted on (issue 14): on an H200, the shipped
H100 model's prediction against the best configuration of the committed H200 sweep
(reports/h200x2/one-gpu.json), both measured in this run, interleaved, on the same sources.

    python3 scripts/h200_model_check.py -o OUT

Per graph of the sweep: the sweep's `CudaEventTimer` (warm-up, then timed repetitions over a
sample of 32 sources, every solve checked against scipy's Dijkstra) measures the prediction and
the recorded best in two interleaved rounds (A B A B); the medians of the rounds are compared.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from autotune.algorithms import config_from_json  # noqa: E402
from autotune.measure import Protocol, choose_sources  # noqa: E402
from autotune.model.fitted import shipped_fitted  # noqa: E402
from autotune.model.device import device_from_gpu  # noqa: E402
from autotune.reference.cache import ReferenceCache  # noqa: E402
from autotune.cli.options import load_spec  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--sweep", type=Path, default=ROOT / "reports" / "h200x2" / "one-gpu.json")
    args = parser.parse_args()
    from autotune.gpu import CudaEventTimer, device_description, gpu_session, open_solver
    from autotune.lookup import features_of

    table = json.loads(args.sweep.read_text())
    rows = []
    with gpu_session() as device:
        name = device_description(device)["name"]
        model = shipped_fitted("crauser", device_from_gpu(0))
        for entry in table["entries"]:
            graph = load_spec(entry["graph"]["name"], entry["graph"].get("seed", 0))
            predicted, _ = model.predict(features_of(graph))
            best = config_from_json(entry["best"]["config"], str(args.sweep), "crauser")
            sample = choose_sources(graph, 32, seed=0)
            expected = ReferenceCache(None).distances(graph, sample)
            times = {"predicted": [], "best": []}
            with open_solver(graph, "crauser") as solver:
                timer = CudaEventTimer(solver, sample, Protocol(sample=32, min_repetitions=3, max_repetitions=5),
                                       expected=expected)
                for _round in range(2):
                    for label, config in (("predicted", predicted), ("best", best)):
                        m = timer.measure(config)
                        if not m.ok:
                            raise SystemExit(f"{graph.name} {label} {config}: {m.status} {m.reason}")
                        times[label].append(m.ms_per_sssp)
            row = {"graph": graph.name, "predicted": predicted.to_json(), "best": best.to_json(),
                   "predicted_ms": statistics.median(times["predicted"]), "best_ms": statistics.median(times["best"]),
                   "rounds": times, "recorded_best_ms": entry["best"]["ms_per_sssp"]}
            row["slowdown"] = row["predicted_ms"] / row["best_ms"] - 1
            rows.append(row)
            print(f"{graph.name}: predicted {row['predicted_ms']:.4f} ms ({predicted}), sweep's best "
                  f"{row['best_ms']:.4f} ms ({best}): {100 * row['slowdown']:+.1f}%", flush=True)
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "h200-model-check.json").write_text(json.dumps({"device": name, "model": model.device,
                                                                   "rows": rows}, indent=2))
    within = sum(r["slowdown"] <= 0.15 for r in rows)
    print(f"{name}: the H100-fitted model within 15% of the H200 sweep's best on {within} of {len(rows)} graphs, "
          f"worst {100 * max(r['slowdown'] for r in rows):+.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
