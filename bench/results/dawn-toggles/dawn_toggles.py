"""Dawn toggles A/B: python dawn_toggles.py OUT.json NAME ENABLE DISABLE (comma lists), run
from the repository root; one process a configuration (toggles are set on the instance)."""
import sys

from wgpudawn.backends.dawn import extras

out, name, enable, disable = sys.argv[1:5]
extras.set_instance_extras(
    enable_toggles=[t for t in enable.split(",") if t],
    disable_toggles=["timestamp_quantization"] + [t for t in disable.split(",") if t])

from bench import tuning_sweep  # noqa: E402 - after the instance's toggles

POINTS = [[[2, 256, 256, 1024], [1]], [[512, 512, 512], [0]], [[128, 128, 128, 64], [0, 1]],
          [[8192, 4096, 2], [0, 2]], [[2, 256, 256, 1024], [0, 1, 2, 3]],
          [[2, 4096, 8192], [1]]]
SPEC = {"grid": "argreduce", "dtypes": ["uint8", "float16"], "ops": ["argmax"],
        "check_every": 1, "torch": False, "points": POINTS}
tuning_sweep.sweep("dawn", [[name, {"REDUCE_WG": 256}]], SPEC, out)
