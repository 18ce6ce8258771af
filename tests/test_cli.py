"""`python -m dmlgpu info`: adapter, backend, implementation, features and limits."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

IMPLEMENTATION = {"wgpu": "wgpu-native", "dawn": "dawn"}[os.environ.get("DMLGPU_WEBGPU") or "wgpu"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "dmlgpu", *args], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ))


def test_info(dev):
    r = run("info")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    info = dev.info
    assert f"adapter: {info['adapter']}" in out
    assert f"backend: {info['backend']}" in out
    assert f"implementation: {IMPLEMENTATION}" in out
    assert "features:" in out and "limits:" in out
    for f in info["features"]:
        assert f in out
    for name, value in info["limits"].items():
        assert f"  {name}: {value}" in out
    assert "max-storage-buffer-binding-size" in out


def test_info_json(dev):
    r = run("info", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    for key in ("adapter", "backend", "implementation", "features", "limits"):
        assert key in data
    assert data["implementation"] == IMPLEMENTATION == dev.implementation
    assert data["adapter"] == dev.info["adapter"]
    assert isinstance(data["features"], list)
    assert data["limits"]["max-storage-buffer-binding-size"] > 0
    assert all(isinstance(v, int) for v in data["limits"].values())


@pytest.mark.parametrize("args", [(), ("bogus",)])
def test_bad_command(args):
    r = run(*args)
    assert r.returncode == 2
    assert "usage: dmlgpu" in r.stderr


@pytest.mark.parametrize("env, match", [
    ({"DMLGPU_WEBGPU": "vulkan"}, "DMLGPU_WEBGPU: 'vulkan' is not a WebGPU implementation"),
    ({"DMLGPU_ADAPTER": "no such adapter 42"}, "DMLGPU_ADAPTER: no adapter matches"),
])
def test_cli_errors_are_one_line(env, match):
    for args in (("info",), ("bench", "--list")):
        r = subprocess.run([sys.executable, "-m", "dmlgpu", *args], capture_output=True,
                           text=True, timeout=120, env=dict(os.environ, **env))
        if args[0] == "bench" and r.returncode == 0:
            continue  # --list needs no device
        assert r.returncode == 2, r.stderr
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and match in lines[0], r.stderr
        assert "Traceback" not in r.stderr


def test_implementation_names_any_case():
    name = os.environ.get("DMLGPU_WEBGPU") or "wgpu"
    r = subprocess.run([sys.executable, "-m", "dmlgpu", "info", "--json"], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, DMLGPU_WEBGPU=name.title()))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["implementation"] == IMPLEMENTATION
    # Dawn's two "artificially reduced" warnings are filtered at device creation
    assert "artificially reduced" not in r.stderr
