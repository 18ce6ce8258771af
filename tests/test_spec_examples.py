"""The exact test vectors of ../shared/spec/operators.md."""

import numpy as np
import pytest
from reference import assert_same

import dmlgpu as dg

X = np.array([[1, 2, 3], [3, 0, 4], [2, 5, 2]], np.float32)


@pytest.mark.parametrize("axes, expected", [
    ((0,), [[1, 2, 1]]),
    ((1,), [[2], [2], [1]]),
    ((0, 1), [[7]]),
])
def test_argmax_examples(dev, axes, expected):
    assert_same(dg.argmax(X, axes), np.array(expected, np.uint32))


@pytest.mark.parametrize("direction, expected", [("increasing", 0), ("decreasing", 4)])
def test_argmax_direction_example(dev, direction, expected):
    x = np.array([3, 2, 1, 2, 3], np.float32)
    assert_same(dg.argmax(x, 0, axis_direction=direction), np.array([expected], np.uint32))
