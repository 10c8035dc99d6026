"""Prediction above the registry: which algorithm to run on a graph for K sources at once, and
that algorithm's configuration, without a GPU.

* `choice`: the choice model (a tree fitted on a table's winners, with Δ-stepping's one-query
  latency rules fitted beside it), shipped per GPU (`characterizations/choice-*.toml`).
* `auto`: `predicted` (one algorithm's configuration for a graph and K: its fitted model where one
  is shipped, else its rules), `servable` and `admitted_on` (which algorithms can serve it). The
  command line's `predict`, the sweep's specials and the benchmark suites all call these.
"""
from __future__ import annotations
