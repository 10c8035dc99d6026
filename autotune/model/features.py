"""Graph-dependent parameters of the model (thesis 4.4): the stressing ratio st(G, GPU) and the
mean out-degree d(G), and their classes.

st(G, GPU) is launched threads / (SMs x max threads per SM). Following the thesis (4.4: "the number
of launched threads is equal to n ... for the minimum kernel n/2, but it still depends on this graph
feature"), the graph's stressing ratio, which the rules classify, counts one thread per vertex and
one SSSP instance: `stress_ratio(n, device)`. The threads a kernel actually launches (relax n x L,
minimum n / 2, update n, each times CK) are shown by `--explain` as the kernel's own ratio, but they
do not change the class, because:

* with minimum's n / 2, the thesis's own 98k graphs would fall in the medium class on both GPUs
  (98 304 / 2 / 23 040 = 2.1; / 16 384 = 3.0), while its Tables 4.2 and 4.4 treat them as high;
* thesis 4.6.4 found the best block size and L1 state with CK concurrent kernels equal to those
  with one, so CK must not move a graph from one class to another.

Classes (thesis 4.4; a bound belongs to the lower class): st low <= 1.5 < medium <= 3 < high;
d(G) low <= 20 < medium <= 200 < high.

Example::

    >>> from autotune.model.device import load_device
    >>> graph = GraphFeatures("random24k-d2", n_vertices=24576, n_edges=49152)
    >>> classify(graph, load_device("kepler-gk104")).stress_class
    <Level.LOW: 'low'>
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from autotune.errors import InputError
from autotune.model.characterization import Level
from autotune.model.device import DeviceProfile

if TYPE_CHECKING:
    from autotune.graphs.csr import CSRGraph

STRESS_LOW_MAX = 1.5
STRESS_MEDIUM_MAX = 3.0
DEGREE_LOW_MAX = 20.0
DEGREE_MEDIUM_MAX = 200.0


@dataclass(frozen=True)
class GraphFeatures:
    """What the model needs of a graph: its size and mean out-degree.

    Args:
        name: the spec or file name.
        n_vertices: n.
        n_edges: m (arcs).
        max_degree: the largest out-degree, when known.
        sha256: the graph's digest, when known (tables record it).
        degree_cv: the coefficient of variation of the out-degrees (their skew), when known.
        min_positive_weight, max_weight, mean_weight: the arc weights, when known (Delta's domain
            and the Delta-stepping model use them).
        lightest_weight: the mean, over the vertices with out-arcs, of each one's lightest out-arc
            weight, when known: the unit of Delta-stepping's rule 1 (`delta_rules.unit_weight`).
        level_width: the vertices a source reaches per breadth-first level (`autotune.model.shape`),
            when measured: algorithms whose rules read it (`Algorithm.reads_level_width`) get it.
    """

    name: str
    n_vertices: int
    n_edges: int
    max_degree: int | None = None
    sha256: str | None = None
    degree_cv: float | None = None
    min_positive_weight: int | None = None
    max_weight: int | None = None
    mean_weight: float | None = None
    level_width: float | None = None
    lightest_weight: float | None = None

    def __post_init__(self) -> None:
        if isinstance(self.n_vertices, bool) or not isinstance(self.n_vertices, int) or self.n_vertices < 1:
            raise InputError(f"{self.name}: a graph needs at least one vertex, found {self.n_vertices!r}")
        if isinstance(self.n_edges, bool) or not isinstance(self.n_edges, int) or self.n_edges < 0:
            raise InputError(f"{self.name}: the number of edges must be a non-negative integer")

    @property
    def mean_degree(self) -> float:
        """d(G): arcs per vertex."""
        return self.n_edges / self.n_vertices

    @classmethod
    def from_graph(cls, graph: CSRGraph) -> GraphFeatures:
        """The features of a loaded graph (its digest, degree skew and weights included)."""
        return cls(name=graph.name, n_vertices=graph.n_vertices, n_edges=graph.n_edges,
                   max_degree=graph.max_degree, sha256=graph.sha256, **graph_statistics(graph))

    @property
    def degree_ratio(self) -> float | None:
        """max / mean out-degree (another view of the skew), when the maximum is known."""
        return self.max_degree / self.mean_degree if self.max_degree is not None and self.n_edges else None

    @classmethod
    def from_mean_degree(cls, name: str, n_vertices: int, mean_degree: float) -> GraphFeatures:
        """Features of a graph known only by n and d(G) (m = round(n x d))."""
        return cls(name=name, n_vertices=n_vertices, n_edges=round(n_vertices * mean_degree))


def graph_statistics(graph: CSRGraph) -> dict[str, Any]:
    """The degree skew and weight figures of `GraphFeatures`, computed from a loaded graph."""
    degrees = graph.out_degrees
    mean = float(degrees.mean()) if graph.n_vertices else 0.0
    positive = graph.weights[graph.weights > 0]
    return {
        "degree_cv": float(degrees.std() / mean) if mean else 0.0,
        "min_positive_weight": int(positive.min()) if len(positive) else None,
        "max_weight": int(graph.weights.max()) if graph.n_edges else None,
        "mean_weight": float(graph.weights.mean()) if graph.n_edges else None,
        "lightest_weight": lightest_weight(graph),
    }


def lightest_weight(graph: CSRGraph) -> float | None:
    """The mean, over the vertices with out-arcs, of each one's lightest out-arc weight (None
    without arcs): one pass over the arcs. It follows the weight of the arcs shortest paths take
    (`scripts/study_delta_unit.py`), which a few huge weights (a power grid's) or many heavy arcs
    beside light ones (a dense graph's) leave alone where they move the mean.

    Example:
        >>> from autotune.graphs import build_csr
        >>> g = build_csr("g", 3, np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([5, 1, 7]))
        >>> lightest_weight(g)  # vertex 0: min(5, 1); vertex 1: 7
        4.0
    """
    if not graph.n_edges:
        return None
    starts = graph.row_offsets[:-1][graph.out_degrees > 0]
    return float(np.minimum.reduceat(graph.weights, starts).mean())


def stress_ratio(
    n_vertices: int,
    device: DeviceProfile,
    threads_per_vertex: float = 1.0,
    concurrent_kernels: int = 1,
) -> float:
    """st(G, GPU): launched threads over the GPU's resident-thread limit.

    Args:
        n_vertices: n.
        device: the GPU.
        threads_per_vertex: threads launched per vertex (1: the graph's ratio).
        concurrent_kernels: SSSP instances launched together.

    Example::

        >>> from autotune.model.device import load_device
        >>> stress_ratio(98304, load_device("kepler-gk104"))
        6.0
    """
    return n_vertices * threads_per_vertex * concurrent_kernels / device.max_resident_threads


def stress_class(ratio: float) -> Level:
    """low: st <= 1.5; medium: 1.5 < st <= 3; high: st > 3 (thesis 4.4)."""
    if ratio <= STRESS_LOW_MAX:
        return Level.LOW
    if ratio <= STRESS_MEDIUM_MAX:
        return Level.MEDIUM
    return Level.HIGH


def degree_class(mean_degree: float) -> Level:
    """low: d <= 20; medium: 20 < d <= 200; high: d > 200 (thesis 4.4)."""
    if mean_degree <= DEGREE_LOW_MAX:
        return Level.LOW
    if mean_degree <= DEGREE_MEDIUM_MAX:
        return Level.MEDIUM
    return Level.HIGH


@dataclass(frozen=True)
class GraphClasses:
    """A graph as the model sees it on one GPU.

    Args:
        features: the graph's size and degree.
        stress_ratio: st(G, GPU), one thread per vertex, one instance.
        stress_class: its class.
        degree_class: the class of d(G).
    """

    features: GraphFeatures
    stress_ratio: float
    stress_class: Level
    degree_class: Level

    def to_json(self) -> dict[str, Any]:
        """The `graph` object of a table entry."""
        data: dict[str, Any] = {
            "name": self.features.name,
            "vertices": self.features.n_vertices,
            "edges": self.features.n_edges,
            "mean_degree": self.features.mean_degree,
            "stress_ratio": self.stress_ratio,
            "stress_class": self.stress_class.value,
            "degree_class": self.degree_class.value,
        }
        if self.features.max_degree is not None:
            data["max_degree"] = self.features.max_degree
        if self.features.sha256 is not None:
            data["sha256"] = self.features.sha256
        if self.features.degree_cv is not None:
            data["degree_cv"] = self.features.degree_cv
        return data


def classify(features: GraphFeatures, device: DeviceProfile) -> GraphClasses:
    """st(G, GPU), d(G) and their classes for a graph on a GPU."""
    ratio = stress_ratio(features.n_vertices, device)
    return GraphClasses(features, ratio, stress_class(ratio), degree_class(features.mean_degree))
