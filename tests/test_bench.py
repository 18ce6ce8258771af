"""`dmlgpu bench`: runs in quick mode in-process, JSON schema, case selection, --plot, the
wrong-result path, and the pieces that the GPU machine relies on without being able to
check them there (the ONNX encoder, the TopK reference). No timing assertions."""

import dataclasses
import importlib
import json
import math
import os
import sys

import numpy as np
import pytest

from dmlgpu.__main__ import load_bench, main

bench = load_bench()  # dmlgpu.bench: installed, or bench/ of a source checkout
bcases, cli, onnx_model = bench.cases, bench.cli, bench.onnx_model
surface = importlib.import_module(f"{bench.__name__}.surface")

FAST = ["--quick", "--repeats", "3", "--warmup", "1"]

TOP_FIELDS = {"schema", "timestamp", "command", "implementation", "device", "versions",
              "sizes", "sizes_reason", "timer", "timer_note", "timestamp_quantum_s", "warmup",
              "max_repeats", "copy", "peers", "cases", "summary", "environment",
              "runs_per_pass", "clock_note"}
POSITIVE = ("gpu_s", "gpu_s_min", "host_call_s", "wall_s", "first_call_s", "gb_per_s",
            "copy_gb_per_s", "copy_fraction", "bytes", "input_bytes", "output_bytes",
            "copy_bytes")
SAMPLES = ("gpu_samples", "host_samples", "wall_samples")


def _positive(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def _run(tmp_path, *args):
    path = tmp_path / "bench.json"
    rc = main(["bench", *FAST, "--json", str(path), *args])
    return rc, (json.loads(path.read_text()) if path.exists() else None)


def test_quick_run_writes_the_documented_json(tmp_path, capsys, monkeypatch):
    # (a sampling budget no run outlasts, so that the policy's minimum of 3 samples holds
    # on a loaded machine too: one run past the quick budget, 0.5 s, keeps 1)
    monkeypatch.setitem(cli.REPEATS, "quick", (cli.REPEATS["quick"][0], 60.0))
    names = ["argmax/rows/f32", "argmin/flat/f16"]
    rc, result = _run(tmp_path, *names)
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert TOP_FIELDS <= set(result), TOP_FIELDS - set(result)
    assert result["clock_note"] is None  # (lavapipe: no GPU clocks to hold)
    assert result["schema"] == "dmlgpu-bench/1"
    assert result["sizes"] == "quick" and result["timer"] in ("timestamp-query", "wall")
    assert result["implementation"] == result["device"]["implementation"]
    assert result["summary"] == {"cases": 2, "ok": 2, "wrong": 0, "error": 0}
    assert [c["name"] for c in result["cases"]] == names
    for copy in result["copy"]:
        assert all(_positive(copy[k]) for k in ("bytes_copied", "gpu_s", "gb_per_s"))
        assert copy["bytes_moved"] == 2 * copy["bytes_copied"]
    for c in result["cases"]:
        assert c["status"] == "ok" and c["correct"] is True and c["error"] is None
        assert c["timer"] == result["timer"] and c["runs_per_pass"] >= 1
        for k in POSITIVE:
            assert _positive(c[k]), (c["name"], k, c[k])
        for k in SAMPLES:
            assert len(c[k]) >= 3 and all(_positive(v) for v in c[k]), (c["name"], k)
        assert math.isfinite(c["compile_s"]) and c["compile_s"] >= 0
        assert c["pipelines_built"] >= 0 and c["dispatches"] >= c["submissions"] >= 1
        assert c["bytes"] == c["input_bytes"] + c["output_bytes"]
        assert c["input_bytes"] == math.prod(c["shape"]) * np.dtype(c["dtype"]).itemsize
        assert c["copy_bytes"] in [k["bytes_copied"] for k in result["copy"]]
        assert set(c["peers"]) == {"torch", "onnxruntime", "numpy", "onnx"}
        assert _positive(c["loop_s"]) and _positive(c["loop_issue_s"]) and c["loop_calls"] >= 3
        assert _positive(c["bare_dispatch_s"]) and _positive(c["host_goal_s"])
        for name, p in c["peers"].items():
            if p["status"] == "ok" and name == "onnx":  # dmlgpu.onnx host to host
                assert _positive(p["seconds"]) and p["agrees"] is not False, p
                assert p["ratio"] is None or _positive(p["ratio"])
            elif p["status"] == "ok":
                assert _positive(p["seconds"]) and _positive(p["ratio"]), (name, p)
                assert p["versus"] in ("gpu_s", "wall_s")
            else:
                assert p["status"] in ("skipped", "error") and p["reason"], (name, p)
        assert c["peers"]["numpy"]["status"] == "ok"
        assert c["peers"]["onnx"]["status"] == "ok"
        assert c["name"] in out.out  # the table
    assert "GB/s" in out.out and "of copy" in out.out
    assert "[2/2] argmin/flat/f16" in out.err  # progress goes to stderr


def test_clock_note_names_an_nvidia_gpu_without_a_cuda_context():
    """An NVIDIA adapter with no CUDA context held in the process gets the note (its clocks
    drop between the bench's bursts); another adapter, or a held context, does not."""
    nvidia = {"adapter": "NVIDIA H100 80GB HBM3", "vendor": "NVIDIA"}
    assert "CUDA context" in cli.clock_note(nvidia, held=False)
    assert cli.clock_note(nvidia, held=True) is None
    assert cli.clock_note({"adapter": "llvmpipe (LLVM 15.0.6, 256 bits)",
                           "vendor": "llvmpipe"}, held=False) is None
    assert cli.clock_note({"adapter": "AMD Radeon RX 7900 XTX", "vendor": "AMD"},
                          held=False) is None


def test_clocks_hold_opens_a_cuda_context_once(monkeypatch):
    """hold() makes a CUDA tensor where torch has CUDA and returns torch, once a process;
    without torch, or where CUDA fails, None."""
    clocks = importlib.import_module(f"{bench.__name__}.clocks")
    made = []

    class Tensor:
        def cuda(self):
            made.append(1)
            return self

    class NoCuda(Tensor):
        def cuda(self):
            raise RuntimeError("Torch not compiled with CUDA enabled")

    for fake, opens in ((None, False), (NoCuda, False), (Tensor, True)):
        clocks.hold.cache_clear()
        torch = None if fake is None else type(sys)("torch")
        if fake is not None:
            torch.zeros = lambda n, fake=fake: fake()
        monkeypatch.setitem(sys.modules, "torch", torch)  # (None: import torch fails)
        got = clocks.hold()
        assert got is (torch if opens else None), fake
        assert clocks.hold() is got  # (tried once)
    clocks.hold.cache_clear()  # (the next caller tries the real torch again)
    assert made == [1]


def test_wall_timer(tmp_path, capsys):
    rc, result = _run(tmp_path, "--timer", "wall", "--peers", "none", "argmax/cols/f32")
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert result["timer"] == "wall" and "WALL" in result["timer_note"]
    (c,) = result["cases"]
    assert c["correct"] and _positive(c["gpu_s"]) and c["runs_per_pass"] == 1
    assert c["timer"] == "wall" and result["copy"][0]["timer"] == "wall"
    assert c["peers"] == {} and result["peers"] == {}
    assert "WALL time" in out.out


@pytest.mark.parametrize("patterns, expected", [
    (["argmax/*"], [c.name for c in bcases.CASES if c.op == "argmax"]),
    (["argmin"], [c.name for c in bcases.CASES if c.op == "argmin"]),
    (["*/rows/f16"], ["argmax/rows/f16", "argmin/rows/f16"]),
    (["argmin/cols/f32", "argmax/flat/f32"], ["argmax/flat/f32", "argmin/cols/f32"]),
    ([], [c.name for c in bcases.CASES]),
])
def test_pattern_selects_cases_in_registry_order(patterns, expected):
    selected, unmatched = cli.select(patterns)
    assert [c.name for c in selected] == expected and unmatched == []
    assert expected  # every pattern above matches something


def test_list_and_unknown_pattern(capsys):
    assert main(["bench", "--list", "*/cols/*"]) == 0
    assert capsys.readouterr().out.split() == ["argmax/cols/f32", "argmin/cols/f32"]
    assert main(["bench", "argmax/flat/f32", "no/such/case"]) == 2
    err = capsys.readouterr().err
    assert "'no/such/case'" in err and "argmax/flat/f32" in err


def test_plot_writes_a_png_or_names_what_to_install(tmp_path, capsys):
    png = tmp_path / "bench.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert main(["bench", "--plot", str(png), "argmax/flat/f32"]) == 2
        assert "pip install 'dmlgpu[plot]'" in capsys.readouterr().err
        assert not png.exists()
        return
    rc, _ = _run(tmp_path, "--peers", "none", "--plot", str(png), "argmax/flat/f32")
    assert rc == 0, capsys.readouterr().err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_fails_before_running(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    rc, result = _run(tmp_path, "--plot", str(tmp_path / "b.png"), "argmax/flat/f32")
    assert rc == 2 and result is None
    err = capsys.readouterr().err
    assert "--plot needs matplotlib" in err and "pip install 'dmlgpu[plot]'" in err


def test_wrong_result_fails_the_case_loudly(tmp_path, capsys, monkeypatch):
    good = bcases.OPS["argmax"]
    monkeypatch.setitem(bcases.OPS, "argmax", dataclasses.replace(
        good, expected=lambda x, axes=None: tuple(e + 1 for e in good.expected(x, axes))))
    rc, result = _run(tmp_path, "--peers", "none", "argmax/flat/f32")
    err = capsys.readouterr().err
    assert rc == 1
    (c,) = result["cases"]
    assert c["status"] == "wrong" and c["correct"] is False and "differ" in c["error"]
    assert "gpu_s" not in c and result["summary"]["wrong"] == 1
    assert "WRONG RESULT" in err


def test_topk_reference_matches_a_stable_sort():
    """The argpartition-based reference (fast on 16384x16384) against a full stable sort,
    on data with many ties, and on the spec's examples."""
    rng = np.random.default_rng(1)
    x = rng.integers(-3, 4, (37, 50)).astype(np.float32)
    for k in (1, 5, 50):
        vals, idx = bcases.topk_reference(x, k)
        order = np.argsort(-x, axis=-1, kind="stable")[:, :k]
        np.testing.assert_array_equal(idx, order.astype(np.uint32))
        np.testing.assert_array_equal(vals, np.take_along_axis(x, order, -1))
    ex = np.array([[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]], np.float32)
    vals, idx = bcases.topk_reference(ex, 3)
    np.testing.assert_array_equal(vals, [[3, 2, 2], [5, 5, 4], [6, 6, 6]])
    np.testing.assert_array_equal(idx, [[3, 1, 2], [2, 3, 1], [0, 1, 2]])
    vals, idx = bcases.topk_reference(ex, 2, axis=0)
    np.testing.assert_array_equal(idx, [[2, 2, 2, 2], [1, 1, 1, 1]])


def _fields(buf: bytes) -> dict:
    """A protobuf message's fields: number -> list of ints (varints) or bytes."""
    out, i = {}, 0

    def varint():
        nonlocal i
        v, shift = 0, 0
        while True:
            b = buf[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v

    while i < len(buf):
        key = varint()
        if key & 7 == 0:
            out.setdefault(key >> 3, []).append(varint())
        else:
            assert key & 7 == 2, f"unexpected wire type {key & 7}"
            n = varint()
            out.setdefault(key >> 3, []).append(bytes(buf[i:i + n]))
            i += n
    return out


def test_onnx_encoder_writes_the_model_it_describes():
    """The built-in encoder (used where the onnx package is absent, as on the GPU machine),
    decoded field by field (numbers from onnx.proto)."""
    x = np.arange(12, dtype=np.float16).reshape(3, 4)
    node = bcases.OnnxNode("TopK", {"axis": -1, "largest": 1}, consts={"k": [2]},
                           outputs=(None, "int64"))
    model = _fields(onnx_model._encode(node, x, [("y0", 10), ("y1", 7)]))
    assert model[1] == [onnx_model.IR_VERSION]
    opset = _fields(model[8][0])
    assert opset[2] == [onnx_model.OPSET] and opset.get(1, [b""]) == [b""]
    graph = _fields(model[7][0])
    (n,) = [_fields(b) for b in graph[1]]
    assert n[1] == [b"x", b"k"] and n[2] == [b"y0", b"y1"] and n[4] == [b"TopK"]
    attrs = {_fields(a)[1][0]: _fields(a) for a in n[5]}
    assert attrs[b"axis"][3] == [2**64 - 1] and attrs[b"axis"][20] == [2]  # INT, -1
    assert attrs[b"largest"][3] == [1]
    init = {_fields(t)[8][0]: _fields(t) for t in graph[5]}
    assert init[b"x"][1] == [3, 4] and init[b"x"][2] == [10]
    assert init[b"x"][9] == [x.tobytes()]
    assert init[b"k"][1] == [1] and init[b"k"][9] == [np.int64(2).tobytes()]
    outs = [_fields(v) for v in graph[12]]
    assert [o[1][0] for o in outs] == [b"y0", b"y1"]
    # ValueInfoProto.type -> TypeProto.tensor_type -> elem_type
    assert [_fields(_fields(o[2][0])[1][0])[1] for o in outs] == [[10], [7]]
    assert 11 not in graph  # no graph inputs: x is an initializer


class _QuantizedTimer:
    """GpuTimer's stand-in: `ns_per_launch` of GPU time per launch, read through Dawn's
    default quantization (multiples of 65536 ns)."""

    def __init__(self, ns_per_launch):
        self.ns = ns_per_launch

    def run(self, launches):
        return (self.ns * len(launches)) // 65536 * 65536 * 1e-9


def test_quantized_timestamps_are_read_over_several_runs_per_pass(dev):
    runner = bench.runner.Runner(dev, quick=True, timer="wall", peers=[], progress=None,
                                 policy=bench.timing.Policy(1, 5, 0.1))
    runner.gpu_timer = _QuantizedTimer(70_000)  # 70 us: one quantum and a bit
    samples, runs, timer = runner.gpu_samples([["launch"]])
    assert timer == "timestamp-query" and runs == bench.runner.MAX_RUNS_PER_PASS
    assert runner.quantum_ns == 65536
    assert abs(float(np.median(samples)) - 70e-6) < 0.01 * 70e-6  # not 65.5 us
    runner.gpu_timer = _QuantizedTimer(0)  # a timer that reads nothing: wall time instead
    samples, runs, timer = runner.gpu_samples([[]])
    assert timer == "wall (timestamps read 0)" and runs == 1
    assert all(_positive(v) for v in samples)


class _PassTimer:
    """GpuTimer's stand-in: a pass costs `fixed_ns` plus `ns_per_launch` a launch in it, and
    some nanoseconds of noise (as real timestamps: identical samples read as quantized)."""

    def __init__(self, fixed_ns, ns_per_launch):
        self.fixed, self.ns, self.passes = fixed_ns, ns_per_launch, []

    def run(self, launches):
        self.passes.append(list(launches))
        return (self.fixed + self.ns * len(launches) + 7 * (len(self.passes) % 3)) * 1e-9


def test_runs_per_pass_spread_a_pass_fixed_cost(dev, tmp_path, capsys):
    """runs_per_pass N: each timed pass holds the work N times, a sample its time over N
    (a pass's own fixed cost divided by N); the CLI's --runs-per-pass sets it, records it,
    and refuses less than 1."""
    policy = bench.timing.Policy(1, 5, 0.1)
    for n, want_ns in ((1, 4000 + 2 * 30_000), (4, 4000 // 4 + 2 * 30_000)):
        runner = bench.runner.Runner(dev, quick=True, timer="wall", peers=[],
                                     progress=None, policy=policy, runs_per_pass=n)
        runner.gpu_timer = _PassTimer(4000, 30_000)
        samples, runs, timer = runner.gpu_samples([["a", "b"]])
        assert timer == "timestamp-query" and runs == n
        assert all(p == ["a", "b"] * n for p in runner.gpu_timer.passes)
        assert all(abs(v - want_ns * 1e-9) <= 15e-9 for v in samples), samples
    out = tmp_path / "rp.json"
    assert main(["bench", "--surface", "--quick", "--peers", "none", "--grids", "hardmax",
                 "--dtypes", "float32", "--runs-per-pass", "2", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["runs_per_pass"] == 2
    if "timestamp-query" in dev.features:
        assert "2 runs of the work a pass" in res["timer_note"]
    assert main(["bench", "--quick", "--runs-per-pass", "0", "argmax/rows/f32"]) != 0
    assert "--runs-per-pass: 0; allowed: 1 or more" in capsys.readouterr().err


def test_limits_tool_runs_every_check(capsys):
    # the tool that measures inputs at the device's largest buffer (issue: limits), at 4 MiB
    from dmlgpu.bench import limits
    assert limits.main(["--max-bytes", str(1 << 22)]) == 0
    out = capsys.readouterr().out
    assert "all checks passed" in out and "WRONG" not in out
    assert out.count(": ok") >= 8
    assert "a tensor one element past max-buffer-size: ok (DeviceLimitError" in out


def test_breakdown_and_replay_tools_run(capsys):
    """The host-time breakdown and the replay/soak tools run (tiny sizes, lavapipe)."""
    bench = load_bench()
    import importlib

    breakdown = importlib.import_module("dmlgpu.bench.breakdown")
    replay = importlib.import_module("dmlgpu.bench.replay")
    assert breakdown.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "hardmax 64x1000: host" in out and "readback 16 B" in out
    assert replay.main(["--quick", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "replay" in out and "soak: 200 calls, 0 buffers created" in out
    assert bench is not None


def test_steps_and_tuning_sweep_tools_run(capsys, monkeypatch):
    """bench.steps times NonZero's passes and each dispatch of ArgMax and TopK
    points; bench.tuning_sweep runs a grid under two tunings (fresh devices), each point
    checked, and puts the tuning back (tiny sizes)."""
    import importlib
    import os

    from dmlgpu import tuning

    load_bench()
    steps = importlib.import_module("dmlgpu.bench.steps")
    sweep = importlib.import_module("dmlgpu.bench.tuning_sweep").sweep
    impl = os.environ.get("DMLGPU_WEBGPU")
    steps.nonzero(impl, True)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if " nonzero " in ln]
    # 4 dtypes x 4 densities x 3 ranks; the count and scatter passes (one tile: the scan
    # folded into the scatter), three with a scan pass of its own
    passes = 2 if tuning.NONZERO_FUSED_SCAN else 3
    assert len(lines) == 48 and all(ln.count(" + ") == passes - 1 for ln in lines), lines
    # --arg / --topk: each point's strategy (or kernels) and its dispatches' times (the
    # float16 split's merge a pass of its own: no merge in the split pass)
    monkeypatch.setattr(tuning, "TALLY_MERGE", False)
    steps.arg_points(impl, [["float16", [2, 3, 40000], [0, 2]], ["uint8", [5, 70], [1]]])
    steps.topk_points(impl, [["float32", [6, 5000], -1, 200]])
    lines = capsys.readouterr().out.splitlines()
    arg = [ln for ln in lines if " argmax " in ln]
    assert len(arg) == 2 and " row: " in arg[0] and arg[0].count(" + ") == 1, arg
    (top,) = [ln for ln in lines if " topk " in ln]
    assert "'topk_wide.wgsl.j2', 'topk_select.wgsl.j2'" in top and " + " in top, top
    before = tuning.TOPK_ROWS_CHUNK_BELOW_ROWS
    # (float16 K = 8 over 8192 contiguous positions: "regs" unless it is off)
    off = {"TOPK_ROWS_CHUNK_BELOW_ROWS": 0, "TOPK_ROWS_CHUNK_BELOW_ROWS_STRIDED": 0,
           "TOPK_REGS": False}
    pts = sweep(impl, [["off", off], ["on", {"TOPK_REGS": False}, {"axes": [-1]}]],
                {"dtypes": ["float16"], "log_n": [13], "axes": [-1, 0], "ks": [8],
                 "elements": 1 << 15})
    assert [(p["cfg"], p["axis"], p["status"]) for p in pts] == [
        ("off", -1, "ok"), ("off", 0, "ok"), ("on", -1, "ok")]
    assert [p["notes"]["strategy"] for p in pts] == ["threshold", "threshold", "rows"]
    assert pts[2]["notes"]["chunks"] == 2 and tuning.TOPK_ROWS_CHUNK_BELOW_ROWS == before
    # the rows grid, staged odd rows off and on (the default restored after)
    default = tuning.ARG_STAGE_ODD
    pts = sweep(impl, [["off", {"ARG_STAGE_ODD": False}], ["on", {"ARG_STAGE_ODD": True}]],
                {"grid": "rows", "dtypes": ["uint8"], "lengths": [10], "elements": 10 << 12,
                 "torch": False})
    assert [(p["cfg"], p["axes"], p["status"]) for p in pts] == [
        ("off", [1], "ok"), ("off", [0], "ok"), ("on", [1], "ok"), ("on", [0], "ok")]
    off, on = (p["notes"]["strategy"] for p in pts if p["axes"] == [1])
    assert off != "stage" and on == "stage", (off, on)
    assert tuning.ARG_STAGE_ODD is default


def test_surface_goals():
    """Each grid's points against the issue's goals: where a goal applies (TopK's copy
    bound at K <= 8 only, ArgMax's from 2^24 elements), which side is good, points without
    the measure (no torch) or not ok left out, the furthest point kept."""
    def pt(grid, status="ok", **kw):
        return dict(grid=grid, dtype="float32", status=status, **kw)
    pts = [pt("topk", k=8, torch_ratio=2.5, copy_time_ratio=2.1),
           pt("topk", k=32, torch_ratio=1.9, copy_time_ratio=9.0),
           pt("topk", k=1, torch_ratio=float("nan"), copy_time_ratio=1.5),
           pt("topk", "wrong", k=1, torch_ratio=0.1, copy_time_ratio=0.1),
           pt("argmax", shape=[1 << 12, 1 << 12], copy_fraction=0.9),
           pt("argmax", shape=[1 << 12, 1 << 11], copy_fraction=0.1),
           pt("argmin", shape=[1 << 24], copy_fraction=0.84),
           pt("hardmax", copy_time_ratio=1.31), pt("nonzero")]
    g = surface.goals(pts)
    top = g["topk/float32"]["at least 2x torch.topk"]
    assert (top["points"], top["met"], top["worst"]["torch_ratio"]) == (2, 1, 1.9)
    copy = g["topk/float32"]["K <= 8: at most 2x a copy's time"]
    assert (copy["points"], copy["met"], copy["worst"]["copy_time_ratio"]) == (2, 1, 2.1)
    arg = g["argmax/float32"]["2^24 elements or more: 85% of a copy's bandwidth"]
    assert (arg["points"], arg["met"]) == (1, 1)  # (the 2^23-element point not counted)
    assert g["argmin/float32"]["2^24 elements or more: 85% of a copy's bandwidth"]["met"] == 0
    assert g["hardmax/float32"]["at most 1.3x a copy's time"]["met"] == 0
    assert g["nonzero/float32"]["at least 1.5x torch.nonzero"]["points"] == 0
    text = surface.report({"worst": {}, "goals": g})
    assert "topk/float32: at least 2x torch.topk: 1/2; furthest 1.90 at k=32" in text
    assert "nonzero/float32: at least 1.5x torch.nonzero: no point measured" in text


def test_surface_dtypes(tmp_path, capsys):
    """`--dtypes` keeps each grid's points of those dtypes (a run split to fit a time
    limit); a grid with none is skipped; a dtype none of the grids has is refused."""
    out = tmp_path / "part.json"
    assert main(["bench", "--surface", "--quick", "--peers", "none", "--grids",
                 "hardmax,nonzero", "--dtypes", "float16,uint8", "--json", str(out)]) == 0
    got = {(p["grid"], p["dtype"]) for p in json.loads(out.read_text())["points"]}
    assert got == {("hardmax", "float16"), ("nonzero", "float16"), ("nonzero", "uint8")}
    assert main(["bench", "--surface", "--quick", "--peers", "none", "--grids",
                 "hardmax,nonzero", "--dtypes", "uint8", "--json", str(out)]) == 0
    got = {(p["grid"], p["dtype"]) for p in json.loads(out.read_text())["points"]}
    assert got == {("nonzero", "uint8")}  # (Hardmax has no uint8 grid: skipped)
    assert main(["bench", "--surface", "--quick", "--grids", "topk",
                 "--dtypes", "int64"]) != 0
    assert "--dtypes: int64 is not a dtype of the grids topk" in capsys.readouterr().err


def test_surface_saved_runs(tmp_path, capsys):
    """`python -m bench.surface FILE ... --plot PREFIX`: each file's summary against the
    goals, and one heatmap per grid and dtype drawn from all the files' points together
    (a grid run in parts, one a dtype)."""
    def point(dtype, n, k, ratio):
        return {"grid": "topk", "dtype": dtype, "n": n, "rows": 2 ** 20 // n, "k": k,
                "axis": -1, "direction": "increasing", "status": "ok", "checked": True,
                "gpu_s": 1e-4, "input_bytes": 2 ** 22, "output_bytes": 2 ** 16,
                "copy_fraction": 0.5, "copy_time_ratio": 1.5, "torch_s": ratio * 1e-4,
                "torch_ratio": ratio}
    files = []
    for dtype, second in (("float32", 1.5), ("float16", 3.0)):  # (the second point's ratio)
        path = tmp_path / f"{dtype}.json"
        path.write_text(json.dumps({"points": [point(dtype, 32, 1, 4.0),
                                               point(dtype, 128, 8, second)]}))
        files.append(str(path))
    surface.main([*files, "--plot", str(tmp_path / "saved.png")])
    out = capsys.readouterr().out
    assert out.count("topk/float32: at least 2x torch.topk: 1/2") == 1, out
    assert "topk/float16: at least 2x torch.topk: 2/2" in out, out
    pngs = sorted(p.name for p in tmp_path.glob("saved-*.png"))
    assert pngs == ["saved-topk-float16.png", "saved-topk-float32.png"], pngs
    assert all((tmp_path / p).read_bytes()[:4] == b"\x89PNG" for p in pngs)


def test_surface_stopped_writes_partial(tmp_path, monkeypatch, capsys):
    """A surface run stopped by SIGTERM (as `timeout` sends) mid-point writes the points it
    finished, marked partial, and fails; its handler is put back after."""
    import signal

    orig, calls = bench.runner.Runner.copy, []

    def copy(self, nbytes):
        calls.append(nbytes)
        if len(calls) == 2:  # (inside the second point's measurement)
            os.kill(os.getpid(), signal.SIGTERM)
        return orig(self, nbytes)

    monkeypatch.setattr(bench.runner.Runner, "copy", copy)
    before = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "stopped.json"
    assert main(["bench", "--surface", "--quick", "--peers", "none", "--grids", "hardmax",
                 "--dtypes", "float32", "--json", str(out)]) != 0
    res = json.loads(out.read_text())
    assert len(res["points"]) == 1 and res["points"][0]["status"] == "ok"
    assert res["partial"] == f"stopped by signal {int(signal.SIGTERM)} after 1 point(s)"
    assert "PARTIAL" in capsys.readouterr().out
    assert signal.getsignal(signal.SIGTERM) == before
    assert "PARTIAL: stopped by signal" in surface.summary([str(out)])  # (recounted too)


def test_surface_quick(tmp_path, capsys):
    """`dmlgpu bench --surface --quick`: every grid point right (checked against numpy),
    the JSON and one heatmap per operator and dtype written, the worst points quoted."""
    out = tmp_path / "surface.json"
    plot = tmp_path / "surface.png"
    assert main(["bench", "--surface", "--quick", "--peers", "none", "--json", str(out),
                 "--plot", str(plot)]) == 0
    text = capsys.readouterr().out
    assert "worst of copy" in text and "against the goals of issue 20" in text
    res = json.loads(out.read_text())
    assert all(p["status"] == "ok" for p in res["points"])
    # (every grid is held to its goals but the rows grid's, reported beside them)
    assert {k.split("/")[0] for k in res["goals"]} == \
        {p["grid"] for p in res["points"]} - {"rows", "topk-rows"}
    assert surface.summary([str(out)]).count("against the goals") == 1
    for p in res["points"]:
        # bandwidth counts the outputs (an argmax writes one 4-byte index per output; a
        # hardmax its input's bytes); the copy-time ratio is the same figure seen from
        # the input's bytes alone: fraction * ratio == (in + out) / (2 in)
        if p["grid"] in ("argmax", "argmin", "rows"):
            n = int(np.prod(p["shape"]))
            assert p["output_bytes"] == n // p["reduced"] * 4, p
        if p["grid"] == "hardmax":
            assert p["output_bytes"] == p["input_bytes"], p
        moved = (p["input_bytes"] + p["output_bytes"]) / (2 * p["input_bytes"])
        assert p["copy_fraction"] * p["copy_time_ratio"] == pytest.approx(moved, rel=1e-3), p
    grids = {(p["grid"], p["dtype"]) for p in res["points"]}
    assert ("topk", "float16") in grids and ("nonzero", "uint64") in grids
    # topk, argmax, argmin, hardmax, nonzero and rows (ArgMax, both axes, every length;
    # TopK over rows that are no power of two)
    assert {p["grid"] for p in res["points"]} == {"topk", "argmax", "argmin", "hardmax",
                                                   "nonzero", "rows", "topk-rows"}
    rows = {(p["dtype"], p["reduced"], tuple(p["axes"])) for p in res["points"]
            if p["grid"] == "rows"}
    assert rows == {(d, n, (a,)) for d in surface.ARG_DTYPES for n in surface.ROWS_LENGTHS["quick"]
                    for a in (0, 1)}
    topk_rows = {(p["dtype"], p["n"], p["k"]) for p in res["points"] if p["grid"] == "topk-rows"}
    assert topk_rows == {(d, n, k) for d in surface.TOPK_DTYPES
                         for n in surface.ROWS_TOPK_LENGTHS["quick"]
                         for k in surface.ROWS_TOPK_KS if k <= n // 2}
    assert (tmp_path / "surface-topk-float32.png").exists()
    assert len(list(tmp_path.glob("surface-*.png"))) == len(grids)
