"""WGSL generation and the pipeline cache: StrictUndefined templates, every kernel variant
the ArgMax/ArgMin planner emits renders and compiles, cache hits on equal variables, and
DMLGPU_PRINT_WGSL on a compile failure."""

from __future__ import annotations

import dataclasses
import re

import jinja2
import numpy as np
import pytest
from reference import ALL_DTYPES

import dmlgpu as dg
from dmlgpu import canon, codegen, dtypes, plan, tuning

TEMPLATE = "argreduce.wgsl.j2"


def plan_shapes(dtype: str | None = None) -> list[tuple]:
    """(sizes, axes) whose plans cover every strategy x source x sink (sizes derived from
    the tuning numbers, so that they keep doing so when those change); with `dtype`, rows
    it stages (ARG_STAGE_WORDS's shortest) too."""
    # (8-bit rows split by words: PACKED_ROW_CHUNK_WORDS a workgroup)
    long_row = 3 * max(tuning.MIN_ROW_CHUNK, 4 * tuning.PACKED_ROW_CHUNK_WORDS) + 5
    wide = tuning.MERGE_COL_MIN_OUT + 5
    tall = 40 * tuning.MIN_COL_CHUNK + 3
    short = 7  # not split, and too short to share rows between threads
    seg = 4 * tuning.ROWS_BYTES  # TPR threads per row (several rows per workgroup)
    return [
        ((5, short), (1,)),  # thread per output
        ((1 << 16, seg), (1,)),  # TPR threads per output (many outputs: TPR < a workgroup)
        ((3, 4, short), (0, 2)),  # thread per output, several reduced dims
        ((3, 4 * tuning.ROW_MIN_RED + 1), (1,)),  # workgroup per output (packed 8/16-bit)
        ((9, 3, tuning.ROW_MIN_RED), (0, 2)),  # workgroup per output, several reduced dims
        ((2, long_row), (1,)),  # split rows, merged by a workgroup per output
        # (columns under an outer kept dim: not rows joined at their own shift, TILECOL_JOIN)
        ((2, tall, 129), (1,)),  # split columns, merged by a workgroup per output
        ((tall, 3), (0,)),  # lanes interleaved over a small contiguous kept dim
        ((2, tall, 2), (1,)),  # the same, several blocks
        ((2, 200, wide), (1,)),  # split columns, merged by a thread per output
        ((32 * tuning.ARG_TILECOL_MIN_ROWS + 3, 128), (0,)),  # 8/16-bit: words of columns, row
        # groups ("tilecol"), split
        ((tuning.TILECOL_MIN_RED, 128), (0,)),  # the same, one row group, one pass
    ] + ([((300, tuning.ARG_STAGE_WORDS[bits][0] * 32 // bits), (1,))]  # rows staged
         if dtype is not None and (bits := np.dtype(dtype).itemsize * 8) else [])


def desc_for(cls, dtype, sizes, axes, direction, index="uint32"):
    out = tuple(1 if i in axes else n for i, n in enumerate(sizes))
    return cls(dg.TensorDesc(dtype, sizes), dg.TensorDesc(index, out), axes, direction)


def planned_steps(dev, dtype, cls, direction, index="uint32") -> list:
    """The steps the planner emits for `plan_shapes` (compiling builds their pipelines)."""
    steps = []
    for sizes, axes in plan_shapes(dtype):
        steps += dev.compile(desc_for(cls, dtype, sizes, axes, direction, index)).plan.steps
    if np.dtype(dtype).itemsize == 1:
        # (8-bit splits merge in the split pass, or packed; where the device's tally buffer
        # cannot hold that, a merge pass: word lanes of 2^25 indices planned so)
        red = canon.reduction((1 << 25, 2), (2, 1), (2, 1), (0,))
        steps += plan.argreduce(red, dtypes.lookup(dtype), "min" if cls is dg.ArgMinDesc
                                else "max", direction == "decreasing",
                                2 if np.dtype(index).itemsize == 8 else 1, tally=False).steps
    return steps


def kind(step) -> tuple:
    v = step.variables
    return v["strategy"], v["source"], v["sink"]


EXPECTED_KINDS = {("row", "input", "index"), ("col", "input", "index"),
                  ("row", "input", "partials"), ("col", "input", "partials"),
                  ("row", "partials", "index"), ("col", "partials", "index")}

COMBOS = [(d, cls, direction) for d in ALL_DTYPES for cls in (dg.ArgMaxDesc, dg.ArgMinDesc)
          for direction in ("increasing", "decreasing")]


@pytest.mark.parametrize("dtype, cls, direction", COMBOS,
                         ids=[f"{d}-{c.__name__}-{r}" for d, c, r in COMBOS])
def test_every_planned_kernel_compiles(dev, dtype, cls, direction):
    steps = planned_steps(dev, dtype, cls, direction)
    assert {kind(s) for s in steps} >= EXPECTED_KINDS | {("stage", "input", "index")}
    if np.dtype(dtype).itemsize < 4:
        assert any(s.variables.get("packed_rows") for s in steps)
        assert {kind(s) for s in steps} >= {("tilecol", "input", "index"),
                                             ("tilecol", "input", "partials")}
        assert {s.variables["ry"] for s in steps if s.variables["strategy"] == "tilecol"} \
            > {1}
        # (split merged in the pass, the partials packed with their indices: TALLY_PACK)
        assert any(s.variables.get("tally_pack") for s in steps)
    assert any(s.variables.get("interleave") for s in steps)
    for s in steps:
        v = dict(s.variables, n_in_win=1, n_out_win=1)
        assert s.template == TEMPLATE
        assert "not_wgsl" not in codegen.render(s.template, v)
        pipeline, layout = dev.pipelines.get(s.template, **v)
        assert pipeline is not None and layout is not None


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_planned_kernels_compile_with_windows_and_64bit_indices(dev, dtype):
    """Several input/output windows and 64-bit index outputs change the code too."""
    for cls, direction, index in [(dg.ArgMaxDesc, "increasing", "int64"),
                                  (dg.ArgMinDesc, "decreasing", "uint64")]:
        steps = planned_steps(dev, dtype, cls, direction, index)  # builds (1, 1) windows
        assert all(s.variables["idx_words"] == 2 for s in steps
                   if s.variables["sink"] == "index")
        if cls is dg.ArgMaxDesc:
            for s in steps:
                dev.pipelines.get(s.template, **s.variables, n_in_win=3, n_out_win=2)


# -- StrictUndefined ----------------------------------------------------------------------

def test_environment_is_strict():
    assert codegen.environment().undefined is jinja2.StrictUndefined
    with pytest.raises(jinja2.UndefinedError):
        codegen.render(TEMPLATE, {})


def test_every_variable_is_required(dev, monkeypatch):
    """Leaving out any template variable of a planned kernel raises instead of rendering
    an empty string (each is checked on a kernel variant that uses it). common.wgsl.j2 lets
    a template that declares its own bindings leave n_in_win undefined: for such a variable
    the shader rendered without it must at least fail to compile."""
    monkeypatch.delenv("DMLGPU_PRINT_WGSL", raising=False)
    sets = []
    for dtype in ("float32", "uint8", "int64"):
        for s in planned_steps(dev, dtype, dg.ArgMaxDesc, "decreasing"):
            sets.append(dict(s.variables, n_in_win=2, n_out_win=2))
    names = set().union(*sets)
    unused = []
    for name in sorted(names):
        for v in sets:
            if name not in v:
                continue
            try:
                codegen.render(TEMPLATE, {k: x for k, x in v.items() if k != name})
            except jinja2.UndefinedError as e:
                assert name in str(e)
                break
            except TypeError as e:  # range(undefined) and the like
                assert "Undefined" in str(e)
                break
        else:
            v = next(v for v in sets if name in v)
            try:
                dev.pipelines.get(TEMPLATE, **{k: x for k, x in v.items() if k != name})
            except dg.ShaderCompileError:
                continue
            unused.append(name)
    assert not unused, f"shaders build without the template variables {unused}"


def test_missing_variable_through_the_cache(dev):
    s = planned_steps(dev, "float32", dg.ArgMaxDesc, "increasing")[0]
    v = dict(s.variables, n_in_win=1, n_out_win=1)
    del v["op"]
    with pytest.raises(jinja2.UndefinedError, match="op"):
        dev.pipelines.get(s.template, **v)


# -- the pipeline cache -------------------------------------------------------------------

@pytest.fixture(scope="module")
def fresh():
    """A device of its own: cache counts start at zero, and a failed compile stays here."""
    return dg.Device()


def test_cache_hits_on_equal_variables(fresh):
    s = planned_steps(fresh, "int16", dg.ArgMinDesc, "increasing")[0]
    v = dict(s.variables, n_in_win=1, n_out_win=1)
    a = fresh.pipelines.get(s.template, **v)
    n, misses = len(fresh.pipelines), fresh.pipelines.misses
    # equal variables (a copy of the dtype entry, another dict order) hit the cache
    same = dict(reversed(list(v.items())), dt=dataclasses.replace(v["dt"]))
    assert fresh.pipelines.get(s.template, **same) is a
    assert (len(fresh.pipelines), fresh.pipelines.misses) == (n, misses)
    # a different variable is another pipeline
    b = fresh.pipelines.get(s.template, **dict(v, n_in_win=3))
    assert b is not a
    assert (len(fresh.pipelines), fresh.pipelines.misses) == (n + 1, misses + 1)
    assert fresh.pipelines.get(s.template, **dict(v, n_in_win=3)) is b
    assert len(fresh.pipelines) == n + 1


def test_sizes_are_not_template_variables(fresh, monkeypatch):
    """Shapes, strides and offsets travel in the uniform: new sizes of one plan kind
    (and views of them) reuse the pipelines."""
    rng = np.random.default_rng(7)
    monkeypatch.setattr(tuning, "TARGET_THREADS", 1)  # (rows share workgroups however few)
    # (a plan kind of its own where the kept dim is a multiple of the outputs a thread)
    monkeypatch.setattr(tuning, "COL_VOUT", {})
    # (staged rows key their pipeline on the row's words: rows of 5 to 32 words)
    monkeypatch.setattr(tuning, "ARG_STAGE_WORDS", {})
    # float32 rows of this many elements or more take a workgroup per output (the second
    # group); the third: 8 threads per row (rows of 8 to 16 times a thread's elements);
    # (rows of whole vectors are a plan kind of their own, ROW_VLOAD: none of these)
    per = max(tuning.REDUCE_UNROLL, plan.rows_bytes(dtypes.lookup("float32")) // 4)
    row = tuning.REDUCE_WG * per
    for group in ([(5, 7), (6, 9), (100, 13), (2, 3)],
                  [(3, row + 301), (4, row + 1002), (1, row + 1), (7, 2 * row - 1)],
                  [(5, 8 * per + 2), (6, 12 * per + 1), (100, 16 * per - 1),
                   (2, 8 * per + 1)]):
        x = rng.standard_normal(group[0]).astype(np.float32)
        dg.argmax(dg.asarray(x, device=fresh), 1)
        misses = fresh.pipelines.misses
        for shape in group[1:]:
            x = rng.standard_normal(shape).astype(np.float32)
            t = dg.asarray(x, device=fresh)
            assert dg.argmax(t, 1).numpy().ravel().tolist() == np.argmax(x, 1).tolist()
            assert dg.argmax(t[1:, 1:], 1).numpy().ravel().tolist() == \
                np.argmax(x[1:, 1:], 1).tolist()
        assert fresh.pipelines.misses == misses, f"new pipelines for {group}"


def test_repeated_calls_reuse_compiled_operators(fresh):
    x = dg.asarray(np.arange(12, dtype=np.uint16).reshape(3, 4), device=fresh)
    dg.argmin(x, 0, axis_direction="decreasing")
    misses = fresh.pipelines.misses
    op = fresh.compile(desc_for(dg.ArgMinDesc, "uint16", (3, 4), (0,), "decreasing"))
    for _ in range(3):
        assert dg.argmin(x, 0, axis_direction="decreasing").numpy().tolist() == [[0, 0, 0, 0]]
    assert fresh.compile(desc_for(dg.ArgMinDesc, "uint16", (3, 4), (0,), "decreasing")) is op
    assert fresh.pipelines.misses == misses


# -- compile failures ---------------------------------------------------------------------

def broken_variables(fresh) -> tuple[str, dict]:
    s = planned_steps(fresh, "int32", dg.ArgMaxDesc, "increasing")[0]
    bad = dataclasses.replace(dtypes.DTYPES["int32"], key="not_wgsl(b)")
    return s.template, dict(s.variables, dt=bad, n_in_win=1, n_out_win=1)


def test_print_wgsl_on_compile_failure(fresh, monkeypatch, capsys):
    template, v = broken_variables(fresh)
    monkeypatch.setenv("DMLGPU_PRINT_WGSL", "1")
    capsys.readouterr()
    with pytest.raises(dg.ShaderCompileError, match=re.escape(template)) as info:
        fresh.pipelines.get(template, **v)
    assert isinstance(info.value, dg.DmlgpuError)
    err = capsys.readouterr().err
    numbered = re.findall(r"^ *(\d+) \| (.*)$", err, re.M)
    assert numbered, err[:2000]
    assert [int(n) for n, _ in numbered[:3]] == [1, 2, 3]
    assert any("not_wgsl(b)" in line for _, line in numbered)
    # the source printed is the source that failed, in full
    assert len(numbered) == len(codegen.render(template, v).splitlines())


def test_compile_failure_without_print(fresh, monkeypatch, capsys):
    template, v = broken_variables(fresh)
    monkeypatch.delenv("DMLGPU_PRINT_WGSL", raising=False)
    capsys.readouterr()
    with pytest.raises(dg.ShaderCompileError, match=r"DMLGPU_PRINT_WGSL=1"):
        fresh.pipelines.get(template, **v)
    assert not re.search(r"^ *\d+ \| ", capsys.readouterr().err, re.M)
    # the device keeps working after a failed compile
    x = dg.asarray(np.array([3, 9, 1], np.int32), device=fresh)
    assert dg.argmax(x).numpy().tolist() == [1]


def test_compile_failure_is_not_cached(fresh, monkeypatch):
    template, v = broken_variables(fresh)
    monkeypatch.delenv("DMLGPU_PRINT_WGSL", raising=False)
    n = len(fresh.pipelines)
    for _ in range(2):
        with pytest.raises(dg.ShaderCompileError):
            fresh.pipelines.get(template, **v)
    assert len(fresh.pipelines) == n
