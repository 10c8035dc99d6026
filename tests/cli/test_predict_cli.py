"""`autotune predict` and `autotune devices`, in-process through `autotune.cli.main`."""
from __future__ import annotations

import json

import jsonschema
import pytest

from autotune.cli import main
from autotune.model import shipped_device_names
from autotune.launch import LaunchConfig
from autotune.table.format import read_table, schema


@pytest.fixture(autouse=True)
def graph_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))


def _valid(table: dict) -> dict:
    jsonschema.Draft202012Validator(schema()).validate(table)
    return table


def test_predict_writes_a_valid_table(tmp_path, capsys):
    out = tmp_path / "table.json"
    status = main(["predict", "--graph", "rmat12", "--graph", "random3000-d8", "--device", "hopper-h100", "-o", str(out),
                   "--model", "thesis"])
    assert status == 0
    text = capsys.readouterr().out
    assert "rmat12" in text and "random3000-d8" in text and "hopper-h100" in text
    assert f"wrote {out}" in text
    table = _valid(read_table(out))
    assert table["device"]["name"] == "hopper-h100" and table["algorithm"] == "crauser"
    assert [entry["graph"]["name"] for entry in table["entries"]] == ["rmat12", "random3000-d8"]
    entry = table["entries"][1]
    assert entry["graph"]["vertices"] == 3000 and entry["graph"]["mean_degree"] == 8.0
    assert len(entry["graph"]["sha256"]) == 64 and entry["graph"]["seed"] == 0
    config = LaunchConfig.from_json(entry["predicted"]["config"])
    assert config.relax.lanes == 8  # d(G) = 8
    assert entry["predicted"]["rules"]["update.block_size"] == "4.6.5 (1)i"
    assert table["characterization"]["arch"] == "sm_90"
    assert table["command"] == "autotune predict --graph rmat12 --graph random3000-d8 --device hopper-h100 --model thesis"


def test_predict_explain_shows_classes_occupancy_and_rules(capsys):
    assert main(["predict", "--graph", "random3000-d8", "--device", "hopper-h100", "--explain", "--model", "thesis"]) == 0
    text = capsys.readouterr().out
    for expected in (
        "st(G, GPU) = n / resident threads",
        "-- relax: MAp medium_coalesced, CLr low, DSr low",
        "occupancy with cache prefer_l1 (shared memory per SM: 8,192 B)",
        "(* maximizes occupancy: 256/512/1024)",
        "block_size = 256  [4.6.5 (1)ii]",
        "block_size = 384  [4.6.5 (2)]",
        "cache = prefer_l1  [4.6.5 (4)]",
        "lanes = 8  [lanes: power of two <= d(G)]",
        "solve: concurrent_kernels = 4  [4.6.4]",
        "shared_memory",
    ):
        assert expected in text, expected


def test_predict_on_the_thesis_gpus(capsys):
    assert main(["predict", "--graph", "random24k-d2", "--device", "kepler-gk104", "--json"]) == 0
    table = _valid(json.loads(capsys.readouterr().out))
    config = LaunchConfig.from_json(table["entries"][0]["predicted"]["config"])
    assert str(config) == "crauser CK4 relax=128:prefer_l1/L2 minimum=96:prefer_l1 update=128:prefer_l1"
    assert table["entries"][0]["graph"]["stress_ratio"] == 1.5


def test_predict_a_graph_file(data_dir, capsys):
    assert main(["predict", "--graph", str(data_dir / "rome99.gr.gz"), "--device", "fermi-gf100", "--json",
                 "--algorithm", "martin"]) == 0
    table = _valid(json.loads(capsys.readouterr().out))
    assert table["algorithm"] == "martin"
    assert table["entries"][0]["graph"]["name"] == "rome99.gr.gz"


def test_predict_with_a_user_profile_and_characterization(tmp_path, capsys):
    profile = tmp_path / "gpu.toml"
    profile.write_text(
        'name = "my-gpu"\ncompute_capability = "8.9"\nsm_count = 128\nwarp_size = 32\n'
        "max_threads_per_sm = 1536\nmax_blocks_per_sm = 24\nregisters_per_sm = 65536\n"
        "register_allocation_unit = 256\nmax_registers_per_thread = 255\n"
        "shared_memory_per_sm = 102400\nmax_threads_per_block = 1024\n"
    )
    characterization = tmp_path / "kernels.toml"
    kernel = 'memory_access_pattern = "coalesced"\ncomputational_load = "low"\ndata_sharing = "low"\nregisters_per_thread = 16\n'
    characterization.write_text("".join(f"[kernels.{name}]\n{kernel}" for name in ("relax", "minimum", "update")))
    assert main(["predict", "-g", "random3000-d8", "--device", str(profile), "--characterization", str(characterization), "--json"]) == 0
    table = _valid(json.loads(capsys.readouterr().out))
    assert table["device"]["name"] == "my-gpu" and table["device"]["profile"] == str(profile)
    # 1536 threads and 24 blocks: 64 threads is the smallest size that fills an SM.
    assert table["entries"][0]["predicted"]["config"]["kernels"]["update"]["block_size"] == 64
    assert "lanes" not in table["entries"][0]["predicted"]["config"]["kernels"]["relax"]  # 1 lane: not written


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--device", "pascal-gp100"], "autotune: --device: no device profile named 'pascal-gp100'"),
        (["--device", "hopper-h100", "--characterization", "missing.toml"], "autotune: missing.toml: cannot read the characterization"),
        (["--device", "nowhere/gpu.toml"], "autotune: nowhere/gpu.toml: cannot read the device profile"),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv, message, capsys):
    assert main(["predict", "--graph", "random3000-d8", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_bad_graph_spec(capsys):
    assert main(["predict", "--graph", "no-such-graph.xyz", "--device", "hopper-h100"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_auto_without_a_gpu(capsys):
    try:
        import pycuda  # noqa: F401
    except ImportError:
        assert main(["predict", "--graph", "random3000-d8", "--device", "auto"]) == 2
        assert "--device auto needs PyCUDA" in capsys.readouterr().err
    else:
        pytest.skip("PyCUDA is installed here")


def test_invalid_table_is_not_written(tmp_path, monkeypatch, capsys):
    import autotune.cli.predict as predict_cli

    original = predict_cli.prediction_table

    def broken(*args, **kwargs):
        table = original(*args, **kwargs)
        table["entries"][0]["graph"]["stress_class"] = "extreme"
        return table

    monkeypatch.setattr(predict_cli, "prediction_table", broken)
    out = tmp_path / "t.json"
    assert main(["predict", "--graph", "random3000-d8", "--device", "hopper-h100", "-o", str(out), "--model", "thesis"]) == 2
    assert not out.exists()
    assert "stress_class" in capsys.readouterr().err


def test_the_default_model_is_the_fitted_one_from_compute_capability_7(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["predict", "--graph", "rmat12", "--device", "hopper-h100", "--explain", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "fitted model of crauser" in text and "[fitted: in_flight]" in text
    table = _valid(read_table(out))
    assert table["entries"][0]["predicted"]["rules"]["concurrent_kernels"] == "fitted: in_flight"
    assert main(["predict", "--graph", "rmat12", "--device", "fermi-gf100", "--json"]) == 0
    thesis = json.loads(capsys.readouterr().out)
    assert thesis["entries"][0]["predicted"]["rules"]["concurrent_kernels"] == "4.6.4"
    assert main(["predict", "--graph", "rmat12", "--device", "fermi-gf100", "--model", "fitted"]) == 0
    captured = capsys.readouterr()
    assert "(fitted model)" in captured.out and "not on this GPU (CC 2.0, 15 SMs)" in captured.err
    assert main(["predict", "--graph", "rmat12", "--device", "hopper-h100", "--algorithm", "delta", "--model",
                 "fitted"]) == 2
    assert "no fitted model of delta is shipped" in capsys.readouterr().err


def test_devices_lists_the_shipped_profiles(capsys):
    assert main(["devices"]) == 0
    text = capsys.readouterr().out
    for name in ("fermi-gf100", "kepler-gk104", "kepler-gk110b", "volta-v100", "ampere-a100", "hopper-h100", "hopper-h200"):
        assert name in text
    assert "270,336" in text  # H100: 132 x 2048 resident threads


def test_devices_json(capsys):
    assert main(["devices", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in rows] == list(shipped_device_names())
    fermi = next(row for row in rows if row["name"] == "fermi-gf100")
    assert fermi["max_resident_threads"] == 23040


def test_predict_for_k_sources_at_once_caps_ck_and_says_so(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["predict", "--graph", "random3000-d8", "--device", "hopper-h100", "--model", "thesis", "--queries", "1",
                 "--explain", "-o", str(out)]) == 0  # the thesis's rules give it CK 4
    text = capsys.readouterr().out
    assert "solve: concurrent_kernels = 1  [4.6.4 (capped)]" in text and "for 1 source at once" in text
    table = _valid(read_table(out))
    assert table["entries"][0]["predicted"]["config"]["concurrent_kernels"] == 1
    assert table["entries"][0]["predicted"]["rules"]["concurrent_kernels"] == "4.6.4 (capped)"
    assert table["command"].endswith("--queries 1")
    assert main(["predict", "--graph", "rmat12", "--device", "hopper-h100", "--queries", "3", "--json"]) == 0
    fitted = json.loads(capsys.readouterr().out)["entries"][0]["predicted"]
    assert fitted["config"]["concurrent_kernels"] <= 2
    assert main(["predict", "--graph", "rmat12", "--device", "hopper-h100", "--algorithm", "delta", "--queries", "4096",
                 "--json"]) == 0
    batch = json.loads(capsys.readouterr().out)["entries"][0]["predicted"]
    assert "capped" not in batch["rules"]["concurrent_kernels"]  # the model's own CK is within 4096


@pytest.mark.parametrize(("argv", "message"), [
    (["--queries", "0"], "autotune: --queries: expected a number of sources of at least 1, found 0"),
    (["--algorithm", "delta_lanes", "--queries", "16"], "autotune: --queries 16: delta_lanes solves 32 sources at once"),
])
def test_predict_refuses_a_number_of_sources_in_one_line(argv, message, capsys):
    assert main(["predict", "--graph", "rmat12", "--device", "hopper-h100", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1


def test_delta_s_block_size_reads_the_level_width_and_others_never_search(tmp_path, monkeypatch, capsys):
    from autotune.predict.auto import predicted
    from autotune.graphs import load_graph
    from autotune.model.device import load_device
    from autotune.model.features import GraphFeatures
    from autotune.model.shape import level_width

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "delta.json"
    assert main(["predict", "--graph", "random3000-d8", "--device", "hopper-h100", "--algorithm", "delta",
                 "--explain", "-o", str(out)]) == 0
    width = level_width(load_graph("random3000-d8"))
    assert f"[delta 5] level width {width:,.0f}: " in capsys.readouterr().out
    predicted_json = _valid(read_table(out))["entries"][0]["predicted"]  # the ladder's constants are numbers
    assert predicted_json["constants"]["block_width_256"] > 0
    assert main(["predict", "--graph", "random3000-d8", "--device", "hopper-h100", "--algorithm", "delta",
                 "--model", "thesis", "--explain"]) == 0
    assert "[delta 5] block_size 256: the level width is unknown" in capsys.readouterr().out
    graph, asked = GraphFeatures("g", 1000, 4000, mean_weight=10.0, max_weight=20), []
    for name in ("crauser", "delta_lanes", "delta"):
        predicted(name, graph, load_device("hopper-h100"), "auto", 1024, None, lambda: asked.append(name) or 5000.0)
    assert asked == ["delta"]
