"""Command line: `python -m dmlgpu info` and `python -m dmlgpu bench`."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="dmlgpu", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_info = sub.add_parser("info", help="adapter, backend, implementation, features, limits")
    p_info.add_argument("--json", action="store_true", help="print JSON")
    sub.add_parser("bench", help="run the benchmark (see `dmlgpu bench --help`)",
                   add_help=False)
    args, rest = parser.parse_known_args(argv)
    if args.command == "info":
        import dmlgpu

        info = dmlgpu.default_device().info
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
    from .bench import main as bench_main

    return bench_main(rest)


if __name__ == "__main__":
    sys.exit(main())
