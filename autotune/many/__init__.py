"""Shortest paths from many sources (`autotune sssp --sources`): all-pairs as one SSSP per source,
in shards over every device asked for, kept so that a killed run goes on where it stopped.

* `plan`: the order of the sources and their shards (pure).
* `reductions`: one number per source (reached, eccentricity, closeness) in place of its row.
* `work`: a worker (one device, the graph loaded once, verified on the sample) and the tasks it runs.
* `executors`: who runs the workers: this process, or Dask (a local cluster, one worker per GPU,
  or `--cluster ADDRESS`).
* `store`: the run's directory (shards, checksums, manifest) and what it already holds.
* `run`: the whole run, with progress; `distances`: how distances are written (int64, -1 unreachable).
"""
