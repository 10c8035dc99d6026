"""One sweep, from its jobs to its results.

* `jobs`: what a sweep works on: per graph and algorithm a `Job` (its space, specials and timer),
  from recorded measurements (`--replay`) or the GPU; the curve's ends (`End`).
* `specials`: the default, the baseline candidates and the model's prediction of a job.
* `plan`: `GraphPlan`, the stages a job's sweep goes through; `stages`: their names.
* `order`: the order of a sweep's studies; `opening`: when a study's timer is opened.
* `sweep`: `GraphSweep`, the one procedure, and `local`: `sweep_graph`, a study measured in this
  process; `trials`: the objective and pruning;
  `baseline`: the thesis's baseline; `transfer`: points carried between a curve's studies.
* `storage`: Optuna storages and studies; `resume`: a study taken up again; `interrupts`: SIGTERM
  as Ctrl-C; `progress`: the terminal's bars.
"""
