"""The dmlgpu command line under Dawn instance toggles: python dawn_cli_toggles.py ENABLE
DISABLE -- bench --webgpu dawn ... (comma lists; run from the repository root)."""
import sys

from wgpudawn.backends.dawn import extras

enable, disable = sys.argv[1], sys.argv[2]
extras.set_instance_extras(
    enable_toggles=[t for t in enable.split(",") if t],
    disable_toggles=["timestamp_quantization"] + [t for t in disable.split(",") if t])
from dmlgpu.__main__ import main  # noqa: E402

sys.exit(main(sys.argv[4:]))
