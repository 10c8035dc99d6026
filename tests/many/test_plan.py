"""The pure parts of a many-source run: the plan, the devices, the reductions."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.errors import InputError
from autotune.arguments import device_indices
from autotune.many.plan import SHARD_BYTES, ShardPlan, batches, shard_size, solve_order, verification_sample
from autotune.many.reductions import parse_reductions, reduce_summaries, summarize_rows


def test_the_sample_runs_first_and_the_last_batch_is_padded():
    sources = list(range(10))
    sample = verification_sample(sources, 3)
    assert sample == [0, 4, 9] and verification_sample(sources, 50) == sources
    order = solve_order(sources, sample)
    assert order[:3] == [0, 4, 9] and sorted(order) == sources
    plan = batches(order, 4)
    assert [real for _, real in plan] == [4, 4, 2] and plan[-1][0] == [order[8], order[9], order[8], order[8]]


def test_shards_cover_every_source_once_in_the_same_order_every_time():
    plan = ShardPlan.of(range(1000), [5, 500], 96)
    assert len(plan) == 11 and plan.shard(0)[:2] == (5, 500) and len(plan.shard(10)) == 1000 - 960
    assert sorted(s for k in range(len(plan)) for s in plan.shard(k)) == list(range(1000))
    assert plan == ShardPlan.of(range(1000), [5, 500], 96)


def test_a_shard_is_whole_batches_bounded_by_its_rows_bytes():
    assert shard_size(87_575, 87_575, 1024, rows_kept=False) == 5 * 1024  # 86 batches: 16 shards or so
    assert shard_size(100, 50, 16, rows_kept=False) == 16  # fewer batches than shards: one each
    rows = shard_size(87_575, 87_575, 64, rows_kept=True)
    assert rows % 64 == 0 and rows * 87_575 * 8 <= SHARD_BYTES
    assert shard_size(10**6, 10**6, 1024, rows_kept=True) == 1024  # never below one batch


def test_devices_are_all_or_indices():
    assert device_indices("all", lambda: 4) == (0, 1, 2, 3) and device_indices("1,0") == (1, 0)
    with pytest.raises(InputError, match="this machine has 2 GPU"):
        device_indices("0,2", lambda: 2)
    with pytest.raises(InputError, match="GPU 1 is listed twice"):
        device_indices("1,0,1")
    with pytest.raises(InputError, match="'0;1' is not a GPU index"):
        device_indices("0;1")


def test_reductions_come_in_a_fixed_order_from_the_rows_summaries():
    assert parse_reductions("closeness, reached") == ("reached", "closeness")
    with pytest.raises(InputError, match="unknown reduction 'farness'"):
        parse_reductions("farness")
    inf = 2**31 - 1
    rows = np.array([[0, 3, inf, 5], [inf, 0, inf, inf]], dtype=np.int32)
    summaries = summarize_rows(rows, inf)
    assert summaries.tolist() == [[3, 5, 8], [1, 0, 0]]
    assert reduce_summaries(summaries, ("reached", "eccentricity", "closeness")).tolist() == \
        [[3.0, 5.0, 2 / 8], [1.0, 0.0, 0.0]]


def test_a_run_started_again_removes_what_a_killed_writer_left_unfinished(tmp_path):
    """A process killed while writing the manifest or a shard leaves a temporary file beside it
    (`files.atomic_write`): never whole, removed when the run goes on."""
    from autotune.many.store import MANIFEST, ShardStore

    plan = ShardPlan(tuple(range(8)), 4)
    graph = {"name": "g", "vertices": 8, "edges": 0, "sha256": "0"}
    ShardStore(tmp_path, plan, graph, True, ())
    left = [tmp_path / f".{MANIFEST}.k1ll3d.tmp", tmp_path / ".distances-00001.npy.k1ll3d.tmp"]
    for path in left:
        path.write_text("cut short")
    store = ShardStore(tmp_path, plan, graph, True, ())
    assert not any(path.exists() for path in left) and store.pending() == [0, 1]
    assert sorted(p.name for p in tmp_path.iterdir()) == [MANIFEST, "sources.npy"]
