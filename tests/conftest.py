import os

import pytest

import dmlgpu as dg
from dmlgpu import tuning
from dmlgpu.runtime import allocator, dispatch, pipelines
from dmlgpu.runtime.device import Device


def pytest_report_header(config):
    dev = dg.default_device()
    i = dev.info
    return [f"dmlgpu: {i['adapter']} ({i['backend']}) via {i['implementation']} "
            f"(DMLGPU_WEBGPU={os.environ.get('DMLGPU_WEBGPU', '')})"]


@pytest.fixture(scope="session")
def dev():
    return dg.default_device()


@pytest.fixture
def default_limits_dev(dev):
    """A device the user requested with WebGPU's default compute limits (256 invocations a
    workgroup, 16 KiB of workgroup memory), wrapped: the plans must fit them (Dawn refuses
    a kernel that declares more; wgpu-native does not check). A fresh one a test: plans
    are cached per device, and a test may change the tuning they read."""
    adapter = dev.wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    d = dg.Device.from_wgpu(adapter.request_device_sync(required_limits={
        "max-compute-invocations-per-workgroup": 256, "max-compute-workgroup-size-x": 256,
        "max-compute-workgroup-storage-size": 16384}))
    assert d.limits["max-compute-invocations-per-workgroup"] <= 256
    assert d.limits["max-compute-workgroup-storage-size"] <= 16384
    return d


@pytest.fixture(scope="session")
def windowed_dev():
    """A device whose storage bindings are capped at 4 KiB, so that small tensors span
    several bindings and the window arithmetic runs as it does past the real limit."""
    d = dg.Device(max_binding_size=4096)
    _DEVICES["windowed_dev"] = d
    return d


# Devices whose pipeline counts the terminal summary reports (the suite keeps the number
# of distinct pipelines bounded: each costs a shader compile on a cold cache).
_DEVICES: dict = {}


def _pipeline_counts():
    """{device name: [pipelines built, seconds building them]} of this process."""
    from dmlgpu.runtime import device as devmod

    devices = dict(_DEVICES)
    if devmod._default is not None:
        devices["default"] = devmod._default
    return {name: [d.pipelines.misses, d.pipelines.compile_seconds]
            for name, d in devices.items()}


# Under pytest-xdist (scripts/test.sh runs a worker a core) each worker reports its counts
# back to the controller, which sums them: the workers build their pipelines apart.
_WORKER_COUNTS: dict = {}


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["dmlgpu_pipelines"] = _pipeline_counts()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for name, (n, s) in getattr(node, "workeroutput", {}).get("dmlgpu_pipelines", {}).items():
        total = _WORKER_COUNTS.setdefault(name, [0, 0.0])
        total[0] += n
        total[1] += s


def pytest_terminal_summary(terminalreporter):
    counts = _WORKER_COUNTS or _pipeline_counts()
    parts = [f"{name}: {n} pipelines built in {s:.1f} s" for name, (n, s) in counts.items()]
    if parts:
        workers = " (summed over the workers)" if _WORKER_COUNTS else ""
        terminalreporter.write_line("dmlgpu " + "; ".join(parts) + workers)


@pytest.fixture
def no_gpu(monkeypatch):
    """Fails the test if a pipeline is built, a buffer created or taken from the allocator,
    data uploaded or a kernel bound or launched."""
    def forbid(what):
        def f(*args, **kwargs):
            raise AssertionError(f"reached the GPU: {what}")
        return f
    monkeypatch.setattr(Device, "create_buffer", forbid("create_buffer"))
    monkeypatch.setattr(Device, "upload", forbid("upload"))
    monkeypatch.setattr(allocator.CachingAllocator, "alloc", forbid("allocator.alloc"))
    monkeypatch.setattr(pipelines.PipelineCache, "get", forbid("pipelines.get"))
    monkeypatch.setattr(dispatch, "bind", forbid("dispatch.bind"))
    monkeypatch.setattr(dispatch, "submit", forbid("dispatch.submit"))


@pytest.fixture
def tuned(monkeypatch):
    """tuned(NAME=value, ...) -> a new device whose operators are planned with those tuning
    numbers (they stay set for the test; compiled operators are cached per device)."""
    def make(**numbers):
        for name, value in numbers.items():
            assert hasattr(tuning, name), name
            monkeypatch.setattr(tuning, name, value)
        return dg.Device()
    return make
