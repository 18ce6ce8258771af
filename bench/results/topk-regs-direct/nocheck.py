"""tuning_sweep without the numpy checks (experiments that drop work on purpose)."""
import json, sys
import bench.surface as S
orig = S.Surface.point
def point(self, grid, dtype, labels, call, check, *a, **k):
    return orig(self, grid, dtype, labels, call, lambda outs: None, *a, **k)
S.Surface.point = point
from bench import tuning_sweep
tuning_sweep.sweep(sys.argv[1], json.loads(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[2])
