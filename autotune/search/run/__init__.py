"""One sweep, from its jobs to its results.

* `jobs`: what a sweep works on: per graph and algorithm a `Job` (its space, specials and timer),
  from recorded measurements (`--replay`) or the GPU; the curve's ends (`End`).
* `specials`: the default, the baseline candidates and the model's prediction of a job.
* `plan`: `GraphPlan`, the stages a job's sweep goes through; `stages`: their names.
* `sweep`: `GraphSweep` and `sweep_graph`, the one procedure; `trials`: the objective and pruning;
  `baseline`: the thesis's baseline; `transfer`: points carried between a curve's studies.
* `storage`: Optuna storages and studies; `resume`: a study taken up again; `interrupts`: SIGTERM
  as Ctrl-C; `progress`: the terminal's bars.
"""
