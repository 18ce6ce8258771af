import os

import pytest

import dmlgpu as dg


def pytest_report_header(config):
    dev = dg.default_device()
    i = dev.info
    return [f"dmlgpu: {i['adapter']} ({i['backend']}) via {i['implementation']} "
            f"(DMLGPU_WEBGPU={os.environ.get('DMLGPU_WEBGPU', '')})"]


@pytest.fixture(scope="session")
def dev():
    return dg.default_device()


@pytest.fixture(scope="session")
def windowed_dev():
    """A device whose storage bindings are capped at 4 KiB, so that small tensors span
    several bindings and the window arithmetic runs as it does past the real limit."""
    return dg.Device(max_binding_size=4096)
