"""dmlgpu's benchmark (`dmlgpu bench`, `python -m dmlgpu bench`); ships as dmlgpu.bench.

cases.py is the registry of operators and cases (data); runner.py measures one case;
peers.py runs torch, onnxruntime and numpy on the same data; report.py prints the table
and writes the JSON and the plot; cli.py parses the command line. README.md beside this
file documents the JSON schema.
"""

from .cli import main

__all__ = ["main"]
