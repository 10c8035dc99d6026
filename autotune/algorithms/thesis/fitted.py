"""A model fitted on measurements, for today's GPUs (compute capability 7.0 and later).

The thesis's rules (`autotune.algorithms.thesis.rules`) were set on Fermi and Kepler; on an H100 their
configurations run 3x to 16x slower than the best (docs/notes/thesis-on-hopper.md). This model keeps the shape of a
rule set, each value computed from the graph's features and the space's choices, but its constants
are fitted from sweep records (`fit`, `autotune model fit`) and stored with the records they came
from, so `--explain`-style output names the constant and its origin behind every value:

* block size and L1 state, per kernel: the pair whose kernel time, over the kernel's fastest pair
  on the same graph, sums lowest over the records' graphs (kernel times of the recorded uniform
  runs at the graph's largest recorded CK and `REFERENCE_LANES` lanes);
* lanes, for the kernels that take them: 2^round(a log2 d(G) + b log2(1 + cv(G))), the choice of
  the space nearest to it (d: mean degree, cv: the degree skew), a and b fitted;
* CK: the smallest of the space's values with CK x n >= r x the GPU's resident threads (SMs x
  threads per SM of the device profile: the vertices in flight that fill it r times over), capped at
  the largest; r fitted; on a device whose memory the profile gives, no more instances than fit
  in it (`Algorithm.instances_that_fit`);
* on a given device and characterization, block sizes are taken among those of maximal occupancy
  (`autotune.model.occupancy`), the one nearest the fitted size.

a, b and r are fitted on grids by the slowdown of the whole configuration each predicts on every
graph of the records, priced from that graph's records (`ReplayTimer.price`: recorded, else
composed from uniform runs) over the graph's best priced configuration. The benchmark suite `model`
validates the model by leaving each graph out of the fit.

Example::

    model = fit({"rmat17": records_17, ...}, {"rmat17": features_17, ...}, "crauser")
    config, decisions = model.predict(features)
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from autotune import algorithms
from autotune.errors import InputError
from autotune.files import file_sha256, read_toml
from autotune.launch import CacheState, LaunchConfig
from autotune.measure import Status
from autotune.model.memory import memory_bound
from autotune.model.decision import Decision

REFERENCE_LANES = 4
LANES_SLOPES = (0.0, 0.25, 0.5, 0.75, 1.0)
SKEW_SLOPES = (0.0, 0.5, 1.0, 2.0)
IN_FLIGHT = tuple(2.0**k for k in range(-4, 11))  # r: resident threads' worth of vertices in flight
MISSING = 10.0  # the slowdown counted for a configuration a graph's records cannot price
FORMAT = "autotune.fitted-model/1"


@dataclass(frozen=True)
class Choices:
    """What a prediction may choose from (a search space's values)."""

    block_sizes: tuple[int, ...]
    caches: tuple[str, ...]
    concurrent_kernels: tuple[int, ...]
    lanes: tuple[int, ...]


@dataclass(frozen=True)
class FittedModel:
    """The fitted constants of one algorithm on one GPU, and where they came from."""

    algorithm: str
    device: Mapping[str, Any]  # the records' GPU: name, compute_capability, sm_count
    kernels: Mapping[str, tuple[int, str]]  # kernel -> (block size, cache state)
    lanes_slope: float
    skew_slope: float
    in_flight: float  # r, in units of the resident threads
    choices: Choices
    sources: tuple[Mapping[str, str], ...] = ()  # {"graph", "records", "sha256"}
    fit_slowdown: Mapping[str, float] = field(default_factory=dict)  # per graph, on its own records

    def lanes(self, mean_degree: float, degree_cv: float | None, choices: Sequence[int]) -> int:
        want = self.lanes_slope * math.log2(max(mean_degree, 1.0)) + self.skew_slope * math.log2(1.0 + (degree_cv or 0.0))
        return min(choices, key=lambda lanes: (abs(math.log2(lanes) - round(want)), lanes))

    @property
    def resident_threads(self) -> int:
        """The fit's GPU's resident threads (SMs x threads per SM)."""
        return int(self.device.get("sm_count", 0)) * int(self.device.get("max_threads_per_sm", 0))

    def concurrent_kernels(self, vertices: int, choices: Sequence[int], resident: int) -> int:
        enough = [ck for ck in sorted(choices) if ck * vertices >= self.in_flight * resident]
        return enough[0] if enough else max(choices)

    def predict(self, graph: Mapping[str, Any], choices: Choices | None = None, device: Any = None
                ) -> tuple[LaunchConfig, list[Decision]]:
        """The configuration for a graph (its `vertices`, `mean_degree`, optionally `degree_cv`),
        within `choices` (default: the fit's), on `device` (a `DeviceProfile`; default: the fit's
        GPU), and the decision behind every value."""
        choices = choices or self.choices
        entry = algorithms.get(self.algorithm)
        resident = device.max_resident_threads if device is not None else self.resident_threads
        vertices = int(graph["vertices"])
        ck = self.concurrent_kernels(vertices, choices.concurrent_kernels, resident)
        lanes = self.lanes(float(graph["mean_degree"]), graph.get("degree_cv"), choices.lanes)
        wanted = self.in_flight * resident
        reach = (f"the smallest CK with CK x {vertices:,} vertices >= {self.in_flight:g} x {resident:,} resident threads"
                 if ck * vertices >= wanted else
                 f"the largest CK: CK x {vertices:,} vertices stay under the target of {self.in_flight:g} x "
                 f"{resident:,} resident threads")
        edges = int(graph.get("edges") or round(vertices * float(graph["mean_degree"])))
        ck, bound = memory_bound(entry, ck, choices.concurrent_kernels, vertices, edges, device)
        reach += f"; {bound}" if bound else ""
        limit = getattr(device, "max_concurrent_kernels", None)
        if limit is not None and ck > limit:
            allowed = [c for c in choices.concurrent_kernels if c <= limit]
            ck = max(allowed) if allowed else min(choices.concurrent_kernels)
            reach += f"; capped by the GPU's {limit} concurrent kernels (thesis 4.6.4): {ck}"
        decisions = [Decision("concurrent_kernels", ck, "fitted: in_flight", reach)]
        config = entry.uniform(256, CacheState.DEFAULT, ck, lanes)
        for kernel in entry.kernels:
            block, cache, why = self.kernel_launch(entry, kernel, choices, device)
            config = config.replace(**{kernel: entry.uniform(block, cache, ck, lanes).kernel(kernel)})
            decisions.append(Decision(f"{kernel}.block_size", block, "fitted: kernels",
                                      f"the size nearest {kernel}'s fitted {self.kernels[kernel][0]}{why}"))
            decisions.append(Decision(f"{kernel}.cache", cache, "fitted: kernels", f"{kernel}'s fitted L1 state"))
        if entry.lanes_kernels:
            decisions.append(Decision("lanes", lanes, "fitted: lanes_slope, skew_slope",
                                      f"2^round({self.lanes_slope:g} log2 d + {self.skew_slope:g} log2(1 + cv)), "
                                      f"the nearest of {', '.join(map(str, choices.lanes))}"))
        return entry.validate(config), decisions

    def kernel_launch(self, entry: Any, kernel: str, choices: Choices, device: Any) -> tuple[int, str, str]:
        """A kernel's block size (the size of `choices` nearest its fitted one, among those of highest
        occupancy on `device`: `_block_sizes`) and L1 state (its fitted one where `choices` has it), and
        why the sizes were those."""
        block, cache = self.kernels[kernel]
        sizes, why = self._block_sizes(entry, kernel, choices, device)
        return (min(sizes, key=lambda b: (abs(math.log2(b / block)), b)),
                cache if cache in choices.caches else choices.caches[0], why)

    def header_rules(self, algorithm: Any, device: Any) -> str:
        """`autotune_rules_<name>_(graph, queries, config)` in C (`thesis.header`, for the table export's header)."""
        from autotune.algorithms.thesis.header import header_rules

        return header_rules(self, algorithm, device)

    @staticmethod
    def _block_sizes(entry: Any, kernel: str, choices: Choices, device: Any) -> tuple[tuple[int, ...], str]:
        """The choices' block sizes; on a device, those of them that maximize the kernel's occupancy."""
        if device is None:
            return choices.block_sizes, ""
        from autotune.model.occupancy import max_occupancy_block_sizes

        best = max_occupancy_block_sizes(device, entry.characterization.kernel(kernel).resources)
        sizes = tuple(b for b in choices.block_sizes if b in best)
        if not sizes:
            return choices.block_sizes, ""
        return sizes, f" among those of maximal occupancy on {device.name} ({', '.join(map(str, sizes))})"

    def to_toml(self) -> str:
        device = ", ".join(f'{k} = "{v}"' for k, v in self.device.items())
        lines = [f'format = "{FORMAT}"', f'algorithm = "{self.algorithm}"', f"device = {{ {device} }}",
                 f"lanes_slope = {self.lanes_slope!r}", f"skew_slope = {self.skew_slope!r}",
                 f"in_flight = {self.in_flight!r}  # CK x n >= in_flight x the GPU's resident threads",
                 "", "[choices]",
                 f"block_sizes = {list(self.choices.block_sizes)}",
                 "caches = [" + ", ".join(f'"{c}"' for c in self.choices.caches) + "]",
                 f"concurrent_kernels = {list(self.choices.concurrent_kernels)}", f"lanes = {list(self.choices.lanes)}",
                 "", "[kernels]"]
        lines += [f'{k} = {{ block_size = {b}, cache = "{c}" }}' for k, (b, c) in self.kernels.items()]
        lines += ["", "# the slowdown of the fitted model's configuration on each graph of the fit, priced from its records",
                  "[fit_slowdown]"]
        lines += [f'"{g}" = {s:.4f}' for g, s in sorted(self.fit_slowdown.items())]
        for source in self.sources:
            lines += ["", "[[sources]]"] + [f'{k} = "{v}"' for k, v in source.items()]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, path: str | Path) -> FittedModel:
        """Read a fitted model written by `to_toml`.

        Raises:
            InputError: unreadable, not TOML, or not a fitted model.
        """
        data = read_toml(path, "fitted model")
        if data.get("format") != FORMAT:
            raise InputError(f"{path}: not a fitted model (format {data.get('format')!r}, expected {FORMAT!r})")
        try:
            c = data["choices"]
            model = cls(data["algorithm"], dict(data["device"]),
                        {k: (int(v["block_size"]), str(v["cache"])) for k, v in data["kernels"].items()},
                        float(data["lanes_slope"]), float(data["skew_slope"]), float(data["in_flight"]),
                        Choices(tuple(c["block_sizes"]), tuple(c["caches"]), tuple(c["concurrent_kernels"]),
                                tuple(c["lanes"])),
                        tuple(data.get("sources", ())), dict(data.get("fit_slowdown", {})))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise InputError(f"{path}: a fitted model needs {error}") from None
        try:  # every value checked once, by predicting: a bad cache name or size fails here, named
            model.predict({"vertices": 1024, "mean_degree": 4.0, "degree_cv": 0.5})
        except InputError as error:
            raise InputError(f"{path}: not a valid fitted model: {error}") from None
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError, OverflowError) as error:
            raise InputError(f"{path}: not a valid fitted model: {type(error).__name__}: {error}") from None
        return model


def recorded_choices(timers: Mapping[str, Any]) -> Choices:
    """The largest grid of values (block sizes x caches x CK x lanes) whose every uniform run is
    recorded for every graph, ok or pruned: what a fit can price (a pruned run, one the sweep
    stopped as far behind its best, costs the fit `MISSING`, as an unpriceable one does). Values
    with missing runs are dropped, the one missing the largest share of its runs first.

    Raises:
        InputError: no such grid.
    """
    held = None
    for timer in timers.values():
        runs = set()
        for record in timer.records:
            config = record.measurement.config
            launches = {(k.block_size, k.cache.value) for k in config.kernels.values()}
            if (record.measurement.ok or record.measurement.status is Status.PRUNED) and len(launches) == 1:
                block, cache = next(iter(launches))
                runs.add((block, cache, config.concurrent_kernels, config.lanes))
        held = runs if held is None else held & runs
    values = [sorted({run[i] for run in held or ()}) for i in range(4)]
    while all(values):
        grid = set(itertools.product(*values))
        missing = grid - (held or set())
        if not missing:
            caches = tuple(c.value for c in CacheState if c.value in values[1])
            return Choices(tuple(values[0]), caches, tuple(values[2]), tuple(values[3]))
        worst = max(((axis, value) for axis in range(4) for value in values[axis]),
                    key=lambda av: sum(run[av[0]] == av[1] for run in missing) * len(values[av[0]]) / len(grid))
        values[worst[0]].remove(worst[1])
    raise InputError("fit: the records share no grid of uniform runs (block size, cache, CK and lanes) to fit on")


def _kernel_pairs(timer: Any, kernel: str, ck: int, lanes: int, choices: Choices, algorithm: str) -> dict[tuple[int, str], float]:
    entry = algorithms.get(algorithm)
    times = {}
    for block, cache in itertools.product(choices.block_sizes, choices.caches):
        found = timer._first_ok(entry.uniform(block, cache, ck, lanes))
        if found is not None and kernel in found.kernel_ms:
            times[(block, cache)] = found.kernel_ms[kernel]
    return times


def fit(timers: Mapping[str, Any], graphs: Mapping[str, Mapping[str, Any]], algorithm: str,
        device: Mapping[str, Any] | None = None, sources: Sequence[Mapping[str, str]] = ()) -> FittedModel:
    """Fit the constants on graphs' records (`ReplayTimer` per graph name; `graphs`: their
    features, `vertices`, `mean_degree`, `degree_cv`).

    Raises:
        InputError: no graphs, or records without common uniform runs.
    """
    if not timers:
        raise InputError("fit: no records")
    entry = algorithms.get(algorithm)
    device = device or next(iter(timers.values())).records[0].device
    device = {k: str(v) for k, v in device.items()
              if k in ("name", "compute_capability", "sm_count", "max_threads_per_sm")}
    if not device.get("sm_count") or not device.get("max_threads_per_sm"):
        raise InputError("fit: the records do not say their GPU's SM count and threads per SM")
    if entry.parameters:
        raise InputError(f"fit: {algorithm}'s own parameters ({', '.join(p.name for p in entry.parameters)}) "
                         "are not fitted yet; fit the thesis's algorithms (crauser, martin)")
    choices = recorded_choices(timers)
    ck_ref = max(choices.concurrent_kernels)
    lanes_ref = min(choices.lanes, key=lambda lanes: abs(lanes - REFERENCE_LANES)) if entry.lanes_kernels else 1
    kernels = {}
    for kernel in entry.kernels:
        totals: dict[tuple[int, str], float] = {}
        for timer in timers.values():
            times = _kernel_pairs(timer, kernel, ck_ref, lanes_ref, choices, algorithm)
            for pair in itertools.product(choices.block_sizes, choices.caches):
                totals[pair] = totals.get(pair, 0.0) + (times[pair] / min(times.values()) if pair in times else MISSING)
        kernels[kernel] = min(totals, key=lambda pair: (totals[pair], pair))
    bests = {name: timer.best_price() for name, timer in timers.items()}
    candidates = []
    for a, b, s in itertools.product(LANES_SLOPES, SKEW_SLOPES if entry.lanes_kernels else (0.0,), IN_FLIGHT):
        model = FittedModel(algorithm, device, kernels, a, b, s, choices)
        slowdowns = _slowdowns(model, timers, graphs, bests)
        # ties: the larger S (more SSSPs at once on the larger graphs: the records' optimum was
        # the largest CK on every graph), then the smaller slopes
        candidates.append(((sum(slowdowns.values()), -s, a, b), slowdowns))
    (_, minus_s, a, b), slowdowns = min(candidates, key=lambda c: c[0])
    s = -minus_s
    return FittedModel(algorithm, device, kernels, a, b, s, choices, tuple(sources), slowdowns)


def _slowdowns(model: FittedModel, timers: Mapping[str, Any], graphs: Mapping[str, Mapping[str, Any]],
               bests: Mapping[str, float]) -> dict[str, float]:
    out = {}
    for name, timer in timers.items():
        config, _ = model.predict(graphs[name])
        price = timer.price(config)
        out[name] = price[0] / bests[name] - 1.0 if price is not None else MISSING
    return out


def shipped_fitted(algorithm: str, device: Any | None = None) -> FittedModel | None:
    """The shipped fitted model of an algorithm (`characterizations/fitted-*-ALGORITHM.toml`): the
    one fitted on a GPU of `device`'s compute capability and SM count if there is one, else the
    newest by name; None when none is shipped."""
    from autotune.resources import characterizations_dir

    models = [FittedModel.from_toml(path) for path in sorted(characterizations_dir().glob(f"fitted-*-{algorithm}.toml"))]
    if not models:
        return None
    if device is not None:
        for model in models:
            if (str(model.device.get("compute_capability")), str(model.device.get("sm_count"))) == \
                    (str(device.compute_capability), str(device.sm_count)):
                return model
    return models[-1]


def resolve_model(option: str, algorithm: str, device: Any | None) -> FittedModel | None:
    """The fitted model a `--model` option names: `thesis` (None: the thesis's rules), `fitted`
    (the shipped one), a TOML file, or `auto`: the shipped one for a GPU of compute capability 7.0
    or later when the algorithm has one, else None.

    Raises:
        InputError: `fitted` without a shipped model, or a file of another algorithm.
    """
    if option == "thesis":
        return None
    if option == "auto":
        if device is None or float(device.compute_capability) < 7.0:
            return None
        return shipped_fitted(algorithm, device)
    model = shipped_fitted(algorithm, device) if option == "fitted" else FittedModel.from_toml(option)
    if model is None:
        raise InputError(f"--model fitted: no fitted model of {algorithm} is shipped; fit one (autotune model fit)")
    if model.algorithm != algorithm:
        raise InputError(f"--model {option}: a model of {model.algorithm}, not of {algorithm}")
    return model


def file_digest(path: str | Path) -> str:
    return file_sha256(path)

