"""Contraction hierarchies for PHAST's one-to-all queries (`autotune.algorithms.phast`).

* `contraction`: the contraction (ranks, levels, shortcuts) and what makes a graph unsuited.
* `layout`: the hierarchy renumbered by level, as the GPU sweeps it, and the CPU's sweeps.
* `store`: hierarchies built once per graph and kept on disk.
"""
from autotune.hierarchy.contraction import Stopped, Unsuited, contract
from autotune.hierarchy.layout import Hierarchy, level_sweeps
from autotune.hierarchy.store import HierarchyStore, default_directory

__all__ = ["Hierarchy", "HierarchyStore", "Stopped", "Unsuited", "contract", "default_directory", "level_sweeps"]
