"""Command line: `python -m dmlgpu info` and `python -m dmlgpu bench`."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from pathlib import Path


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "bench":  # everything after it belongs to the bench's parser
        return load_bench().main(argv[1:])
    parser = argparse.ArgumentParser(prog="dmlgpu", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_info = sub.add_parser("info", help="adapter, backend, implementation, features, limits")
    p_info.add_argument("--json", action="store_true", help="print JSON")
    sub.add_parser("bench", help="run the benchmark (see `dmlgpu bench --help`)")
    args = parser.parse_args(argv)
    import dmlgpu

    try:
        info = dmlgpu.default_device().info
    except (ValueError, TypeError, ImportError, dmlgpu.DmlgpuError) as e:
        print(f"dmlgpu: error: {e}", file=sys.stderr)  # one line, as argparse's own
        return 2
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        for k, v in info.items():
            if isinstance(v, dict):
                print(f"{k}:")
                for kk, vv in v.items():
                    print(f"  {kk}: {vv}")
            else:
                print(f"{k}: {', '.join(v) if isinstance(v, list) else v}")
    return 0


def load_bench():
    """The dmlgpu.bench package: installed from bench/ by setuptools, or, in a source
    checkout on PYTHONPATH (no install), bench/ beside the dmlgpu/ directory."""
    try:
        return importlib.import_module("dmlgpu.bench")
    except ModuleNotFoundError as e:
        if e.name != "dmlgpu.bench":
            raise
        root = Path(__file__).resolve().parent.parent / "bench"
        if not (root / "__init__.py").is_file():
            raise
        spec = importlib.util.spec_from_file_location(
            "dmlgpu.bench", root / "__init__.py", submodule_search_locations=[str(root)])
        bench = importlib.util.module_from_spec(spec)
        sys.modules["dmlgpu.bench"] = bench
        try:
            spec.loader.exec_module(bench)
        except BaseException:
            del sys.modules["dmlgpu.bench"]
            raise
        sys.modules["dmlgpu"].bench = bench
    return bench


if __name__ == "__main__":
    sys.exit(main())
