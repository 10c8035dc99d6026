"""Which algorithm to run for K sources at once, from a graph's features alone: the `auto` of
`autotune predict --algorithm auto`.

A small decision tree over the graph's features and K, fitted on the winners a tuned table
measured (`autotune model fit-choice TABLE -o FILE`: every graph of the table, and for K = 1, 2,
4, ... up to its largest CK the algorithm of its fastest curve point with CK <= K, the point
`Table.lookup(queries=K)` hands out). The tree is grown greedily (each split the one that lowers
the samples' Gini impurity most, at a midpoint between two neighbouring values; of equally pure
ones the widest margin, `_best_split`), at most `MAX_DEPTH` deep, no leaf under `MIN_LEAF` samples;
it is stored as TOML with the table it came from, so that `--explain` names every threshold and its origin.

An algorithm that a graph admits only where something is kept for it (`Algorithm.conditional`:
PHAST, where the graph's contraction hierarchy is) and that won at least `ADMIT_SHARE` of the curve
points of the table entries measuring it is picked wherever a graph admits it
(`ChoiceModel.admitted`; the H200's table has PHAST win 140 of 143, power-rte6515 going to delta at
K = 64 to 256); the tree is fitted on the other entries and on the batch ends of every entry that
measured a conditional algorithm, by the other algorithms they measured
(`admitted_batch_samples`; without them no large graph but R-MAT's measured delta_lanes, and
web-Stanford, its class left out, got delta_lanes at K = 1,024: +584%, suite `classout` at a7f2e61).
With mean degree, skew and depth alone, the tree took PHAST's graphs for sparse random ones and
back (suite `choice` at 63ecdec).

Features: `log2_vertices`, `mean_degree`, `degree_cv` (the out-degrees' skew), `depth_ratio` (the
breadth-first depth from sampled sources, `GraphShape.hop_depth`, over log2 of the vertices: a road
network, mesh or power grid is deep for its size, a random or small-world graph not; 0: unknown),
`log2_queries`.

At the batch end (K = the table's largest CK) another algorithm whose best is within `NEAR` of the
winner's (the entry's `by_algorithm`) is as good an answer: the sample counts for each of them in
equal parts. Counted for the winner alone, anybeat (delta_lanes 5% behind delta) was the only
skewed graph of the fit without rmat where delta won, and the tree's threshold fell above rmat's
skew: with the rmat class left out it picked delta for rmat17 to rmat20 at K = 1,024 (54% to 262%
slower; suite `choice` at 1519b51).

Fitted with `--shapes` (the graphs' shapes, `python3 -m benchmarks shapes`), the model also holds
Delta-stepping's one-query rules (`autotune.algorithms.delta.latency`, the TOML table
`[delta_latency]`): which shape, grid or one block, and which Delta one query wants.

Example::

    >>> model = fit([({"log2_vertices": 10, "mean_degree": 2, "degree_cv": 0.1}, 1, "delta"),
    ...              ({"log2_vertices": 10, "mean_degree": 200, "degree_cv": 0.1}, 1, "crauser")] * 2, {})
    >>> model.predict({"log2_vertices": 12, "mean_degree": 150, "degree_cv": 0.2}, 1)[0]
    'crauser'
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Sequence

from autotune.errors import InputError
from autotune.model.shape import read_shapes
from autotune.files import read_toml
from autotune.algorithms.delta.latency import SECTION, LatencyRules

FORMAT = "autotune.choice-model/1"
ADMITTED = "admitted"  # the TOML table of `ChoiceModel.admitted`
FEATURES = ("log2_vertices", "mean_degree", "degree_cv", "depth_ratio", "log2_queries")
MAX_DEPTH = 4  # 3 left random24k-d200 at K = 1,024 to crauser (+64%) in the shipped fit; suite choice the same
MIN_LEAF = 2
NEAR = 0.10  # at the batch end, an algorithm this close to the winner counts as a winner too
TIE = 1e-9  # splits whose impurities are this close are as pure: the wider margin wins (`_best_split`)
ADMIT_SHARE = 0.9  # a conditional algorithm that won this share of its graphs' Ks is picked wherever admitted

# a graph's features, K, the winning algorithm[, every algorithm as good an answer, the winner included]
Sample = tuple[Mapping[str, float], int, str] | tuple[Mapping[str, float], int, str, frozenset[str]]
Row = tuple[dict[str, float], dict[str, float]]  # features with log2_queries, each answer's share


@dataclass(frozen=True)
class Node:
    """A split (`feature` < `threshold`: `low`, else `high`, indexes of nodes) or a leaf (`algorithm`)."""

    samples: int
    feature: str | None = None
    threshold: float = 0.0
    low: int = -1
    high: int = -1
    algorithm: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.algorithm is not None:
            return {"samples": self.samples, "algorithm": self.algorithm}
        return {"samples": self.samples, "feature": self.feature, "threshold": self.threshold, "low": self.low,
                "high": self.high}


@dataclass(frozen=True)
class ChoiceModel:
    """The fitted tree (`nodes[0]` its root) and where it came from."""

    nodes: tuple[Node, ...]
    fitted_on: Mapping[str, Any]
    latency: LatencyRules | None = None  # Delta-stepping's one-query rules, where fitted
    admitted: Mapping[str, int] = field(default_factory=dict)  # picked where admitted: name -> graphs it won

    def predict(self, graph: Mapping[str, float], queries: int, admits: Collection[str] = ()
                ) -> tuple[str, list[str]]:
        """The algorithm for `queries` sources at once on a graph of these features that admits
        the conditional algorithms `admits`, and the path of tests that chose it (for `--explain`)."""
        for name, graphs in self.admitted.items():
            if name in admits:
                return name, [f"{name} admits the graph, and won at least {ADMIT_SHARE:.0%} of the Ks of the "
                              f"{graphs} graphs of the table that admitted it"]
        values = {**{name: 0.0 for name in FEATURES}, **graph, "log2_queries": math.log2(max(queries, 1))}
        node, path = self.nodes[0], []
        while node.algorithm is None:
            value = float(values[str(node.feature)])
            below = value < node.threshold
            path.append(f"{node.feature} {value:.3g} {'<' if below else '>='} {node.threshold:.3g}")
            node = self.nodes[node.low if below else node.high]
        return node.algorithm, path

    def to_toml(self) -> str:
        lines = [f'format = "{FORMAT}"']
        lines += [f"{key} = {_toml_value(value)}" for key, value in self.fitted_on.items()]
        for node in self.nodes:
            lines += ["", "[[node]]"] + [f"{key} = {_toml_value(value)}" for key, value in node.to_json().items()]
        if self.admitted:
            lines += ["", f"[{ADMITTED}]"] + [f"{key} = {value}" for key, value in self.admitted.items()]
        if self.latency is not None:
            lines += ["", f"[{SECTION}]"] + [f"{key} = {_toml_value(value)}" for key, value in self.latency.to_json().items()]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, path: str | Path) -> ChoiceModel:
        data = read_toml(path)
        if data.get("format") != FORMAT:
            raise InputError(f"{path}: not a choice model ({FORMAT}); fit one with autotune model fit-choice")
        try:
            nodes = tuple(Node(**node) for node in data["node"])
            fitted_on = {k: v for k, v in data.items() if k not in ("format", "node", SECTION, ADMITTED)}
            latency = LatencyRules.from_json(data[SECTION]) if SECTION in data else None
            model = cls(nodes, fitted_on, latency, {str(k): int(v) for k, v in data.get(ADMITTED, {}).items()})
            _check(model, str(path))
        except (KeyError, TypeError, ValueError) as error:
            raise InputError(f"{path}: a malformed choice model ({error})") from None
        return model


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {_toml_value(item)}" for key, item in value.items()) + " }"
    return repr(value)


def _check(model: ChoiceModel, where: str) -> None:
    """Every split names a known feature and nodes after itself (so a walk ends)."""
    for index, node in enumerate(model.nodes):
        if node.algorithm is None and (node.feature not in FEATURES or not index < node.low < len(model.nodes)
                                       or not index < node.high < len(model.nodes)):
            raise ValueError(f"node {index} of {where} is neither a leaf nor a split of a known feature")


def graph_features(vertices: int, mean_degree: float, degree_cv: float | None,
                   hop_depth: float | None = None) -> dict[str, float]:
    """The tree's features of a graph (the module docstring's).

    Example:
        >>> graph_features(87575, 2.77, 0.3, 368)["depth_ratio"] > 20, graph_features(1024, 8, 0.1)["depth_ratio"]
        (True, 0.0)
    """
    return {"log2_vertices": math.log2(max(vertices, 1)), "mean_degree": float(mean_degree),
            "degree_cv": float(degree_cv or 0.0),
            "depth_ratio": float(hop_depth) / math.log2(max(vertices, 2)) if hop_depth else 0.0}


def measured_features(graph: Any) -> tuple[dict[str, float], Callable[[], float]]:
    """A loaded graph's features (a `CSRGraph`), its depth measured by breadth-first searches from
    sampled sources (`GraphShape.hop_depth`), and its level width from the same searches (a
    callable, for the rules that read it): the graph's shape, kept in the cache directory
    (`model.shape.ShapeCache`), so that a second predict or lookup of a large graph searches nothing."""
    from autotune.model.features import GraphFeatures
    from autotune.model.shape import ShapeCache

    features = GraphFeatures.from_graph(graph)
    shape = ShapeCache.from_env().shape(graph)
    return (graph_features(features.n_vertices, features.mean_degree, features.degree_cv, shape.get("hop_depth")),
            lambda: float(shape.get("level_width") or 0.0))


def entry_features(entry: Any, depths: Mapping[str, float] | None = None) -> dict[str, float]:
    """A table entry's (`autotune.table.Entry`) graph's features, its depth from `depths` (graph
    name: hop depth)."""
    graph = entry.graph
    return graph_features(graph.vertices, graph.mean_degree, graph.get("degree_cv"), (depths or {}).get(graph.name))


def shape_depths(shapes: str | Path) -> dict[str, float]:
    """Graph name: hop depth, from a shapes file (`model.shape.read_shapes`)."""
    return {name: shape["hop_depth"] for name, shape in read_shapes(shapes).items()
            if shape.get("hop_depth") is not None}


def curve_winners(entry: Any) -> list[tuple[int, Any]]:
    """A table entry's (K, its fastest curve point with CK <= K) for each power-of-two K up to its
    largest CK (the point `Table.lookup(queries=K)` hands out); the points are `CurvePoint`s."""
    curve = [p for p in entry.curve if p.ms_per_sssp is not None]
    if not curve:
        return []
    largest = max(p.ck for p in curve)
    found = []
    for k in (2**i for i in range(int(math.log2(largest)) + 1)):
        best = min((p for p in curve if p.ck <= k), key=lambda p: p.ms_per_sssp, default=None)
        if best is not None:
            found.append((k, best))
    return found


def _timed(points: Mapping[str, Any]) -> dict[str, float]:
    """Each algorithm's best time of an entry's `by_algorithm` (those with one)."""
    return {name: point.ms_per_sssp for name, point in points.items() if point.ms_per_sssp is not None}


def admitted_winners(entries: Sequence[Any]) -> dict[str, int]:
    """The conditional algorithms (`Algorithm.conditional`) measured on at least `MIN_LEAF` of the
    entries (`autotune.table.Entry`) that won at least `ADMIT_SHARE` of those entries' Ks
    (`curve_winners`): name -> those entries."""
    from autotune import algorithms

    found = {}
    for name in (a.name for a in algorithms.all_algorithms() if a.conditional):
        measured = [e for e in entries if name in e.by_algorithm and curve_winners(e)]
        points = [p.algorithm == name for e in measured for _, p in curve_winners(e)]
        if len(measured) >= MIN_LEAF and sum(points) >= ADMIT_SHARE * len(points):
            found[name] = len(measured)
    return found


def without_admitted(entries: Sequence[Any], admitted: Collection[str]) -> list[Any]:
    """The entries less those that measured an algorithm of `admitted` (the tree's entries)."""
    return [e for e in entries if not set(admitted) & set(e.by_algorithm)]


def admitted_batch_samples(entries: Sequence[Any], admitted: Collection[str],
                           depths: Mapping[str, float] | None = None) -> list[Sample]:
    """The batch end (the largest CK) of each entry that measured an algorithm of `admitted`, by the
    other algorithms it measured (`by_algorithm`, at least two of them): the fastest, and those
    within `NEAR` of it."""
    samples: list[Sample] = []
    for entry in entries:
        winners = curve_winners(entry)
        others = {name: ms for name, ms in _timed(entry.by_algorithm).items() if name not in admitted}
        if not winners or not set(admitted) & set(entry.by_algorithm) or len(others) < 2:
            continue
        fastest = min(others, key=lambda name: (others[name], name))
        near = frozenset(name for name, ms in others.items() if ms <= (1.0 + NEAR) * others[fastest])
        samples.append((entry_features(entry, depths), winners[-1][0], fastest, near))
    return samples


def table_samples(entries: Sequence[Any], depths: Mapping[str, float] | None = None) -> list[Sample]:
    """The samples a table's entries (`autotune.table.Entry`) give: per entry with a curve, per
    power-of-two K up to its largest CK, the algorithm of its fastest curve point with CK <= K, and
    at the largest CK the algorithms whose best (`by_algorithm`) is within `NEAR` of it; the graphs'
    depths from `depths`."""
    samples: list[Sample] = []
    for entry in entries:
        winners = curve_winners(entry)
        if not winners:
            continue
        features = entry_features(entry, depths)
        largest = winners[-1][0]
        for k, best in winners:
            winner = best.algorithm
            near = {name for name, ms in _timed(entry.by_algorithm).items()
                    if k == largest and ms <= (1.0 + NEAR) * best.ms_per_sssp}
            samples.append((features, k, winner, frozenset(near | {winner})) if near - {winner} else
                           (features, k, winner))
    return samples


def _weights(rows: Sequence[Row]) -> Counter[str]:
    """Each algorithm's share of the rows (a row split equally among its answers)."""
    total: Counter[str] = Counter()
    for _, weights in rows:
        total.update(weights)
    return total


def _impurity(rows: Sequence[Row]) -> float:
    """The rows' Gini impurity times their number."""
    weights = _weights(rows)
    return (1.0 - sum((w / len(rows)) ** 2 for w in weights.values())) * len(rows) if rows else 0.0


def _rows(samples: Sequence[Sample]) -> list[Row]:
    rows = []
    for features, k, winner, *near in samples:
        answers = sorted(near[0]) if near else [winner]
        known = {name: 0.0 for name in FEATURES}  # a feature a sample lacks (its depth) counts as 0
        rows.append(({**known, **features, "log2_queries": math.log2(k)}, {a: 1.0 / len(answers) for a in answers}))
    return rows


def _best_split(rows: list[Row]) -> tuple[str, float] | None:
    """The (feature, threshold) lowering the weighted Gini impurity most (None if none does), midway
    between two neighbouring values; of equally pure ones the widest margin (gap over the rows' span),
    not the first of `FEATURES`: the vertices first, a tie with the degree sent the H200's dense social
    graphs to crauser at K = 16 (+485%, +855%: suite `classout` at 8df313c)."""
    best, found = (_impurity(rows) - 1e-12, 0.0), None
    for feature in FEATURES:
        values = sorted({row[feature] for row, _ in rows})
        span = values[-1] - values[0]
        for low, high in zip(values, values[1:]):
            threshold = (low + high) / 2.0
            below = [r for r in rows if r[0][feature] < threshold]
            above = [r for r in rows if r[0][feature] >= threshold]
            if len(below) < MIN_LEAF or len(above) < MIN_LEAF:
                continue
            impurity, margin = _impurity(below) + _impurity(above), (high - low) / span
            if impurity < best[0] - TIE or (impurity <= best[0] + TIE and found is not None and margin > best[1]):
                best, found = (min(impurity, best[0]), margin), (feature, threshold)
    return found


def fit(samples: Sequence[Sample], fitted_on: Mapping[str, Any], latency: LatencyRules | None = None,
        admitted: Mapping[str, int] | None = None) -> ChoiceModel:
    """Grow the tree on `samples` (greedy, Gini of each algorithm's share, `MAX_DEPTH`, `MIN_LEAF`; a
    leaf names the algorithm of the largest share); `latency`, Delta-stepping's one-query rules, and
    `admitted` (`admitted_winners`), go with it."""
    if not samples:
        raise InputError("fit-choice: no measured curve points to fit on (a table of `autotune sweep`'s default curve)")
    nodes: list[Node | None] = []

    def grow(rows: list[Row], depth: int) -> int:
        index = len(nodes)
        nodes.append(None)
        weights = _weights(rows)
        split = _best_split(rows) if depth < MAX_DEPTH and len(weights) > 1 else None
        if split is None:
            winner = sorted(weights.items(), key=lambda item: (-item[1], item[0]))[0][0]
            nodes[index] = Node(len(rows), algorithm=winner)
            return index
        feature, threshold = split
        low = grow([r for r in rows if r[0][feature] < threshold], depth + 1)
        high = grow([r for r in rows if r[0][feature] >= threshold], depth + 1)
        nodes[index] = Node(len(rows), feature, threshold, low, high)
        return index

    grow(_rows(samples), 0)
    model = ChoiceModel(tuple(n for n in nodes if n is not None), dict(fitted_on))
    right = sum(model.predict(sample[0], sample[1])[0] == sample[2] for sample in samples)
    return ChoiceModel(model.nodes, {**fitted_on, "samples": len(samples), "agreeing": right}, latency,
                       dict(admitted or {}))


def fit_admitted(entries: Sequence[Any], depths: Mapping[str, float] | None = None,
                 fitted_on: Mapping[str, Any] | None = None, latency: LatencyRules | None = None) -> ChoiceModel:
    """The model of a table's entries (`autotune.table.Entry`): its admitted winners, and the tree
    on its other entries and on the batch ends of the entries that measured a conditional
    algorithm, by the other algorithms (`admitted_batch_samples`): the tree never names an
    algorithm that a graph may not admit. `autotune.table.fit.fit_table` fits it on a table file."""
    from autotune import algorithms

    conditional = {a.name for a in algorithms.all_algorithms() if a.conditional}
    samples = table_samples(without_admitted(entries, conditional), depths) + \
        admitted_batch_samples(entries, conditional, depths)
    return fit(samples, fitted_on or {}, latency, admitted_winners(entries))


def shipped_choices() -> tuple[ChoiceModel, ...]:
    """Every shipped choice model (`characterizations/choice-*.toml`), by file name."""
    folder = Path(__file__).resolve().parents[2] / "characterizations"
    return tuple(ChoiceModel.from_toml(path) for path in sorted(folder.glob("choice-*.toml")))


def names_device(name: str, device: Any) -> bool:
    """Whether a GPU's name (`NVIDIA H200`) names a device profile (`hopper-h200`): one of its words
    with a digit and a letter (the model, `H200`) is a word of the profile's name or description
    (`H100` is not one of `(Hopper GH100)`'s).

    Example:
        >>> from autotune.model.device import load_device
        >>> names_device("NVIDIA H200", load_device("hopper-h200")), names_device("NVIDIA H200", load_device("hopper-h100"))
        (True, False)
    """
    import re

    def words(text: str) -> set[str]:
        return set(re.split(r"[^0-9a-z]+", text.lower()))

    models = {w for w in words(name) if any(c.isdigit() for c in w) and any(c.isalpha() for c in w)}
    return bool(models & words(f"{device.name} {getattr(device, 'description', '')}"))


def shipped_choice(device: Any) -> ChoiceModel | None:
    """The shipped choice model fitted on this GPU's kind (compute capability and SMs), one fitted
    on the GPU the profile names first (an H200's before an H100's), if any."""
    same = [m for m in shipped_choices() if (m.fitted_on.get("compute_capability"), m.fitted_on.get("sm_count")) == (
        str(device.compute_capability), int(device.sm_count))]
    named = [m for m in same if names_device(str(m.fitted_on.get("device", "")), device)]
    return (named or same or [None])[0]
