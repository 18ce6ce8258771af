#!/usr/bin/env bash
# Builds the wheel and the sdist with the build backend pyproject.toml declares (in an
# isolated environment, as pip does), installs the wheel into a fresh virtual environment
# and runs the README's example there, against the installed package (not this checkout).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.venv/bin/python -m pip install -q build >/dev/null
.venv/bin/python -m build -q --outdir "$work/dist" . >"$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2; echo "check-package: python -m build failed" >&2; exit 1; }
ls "$work/dist"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$work"/dist/*.whl
# the README's first example: the python block under "## Example"
"$work/venv/bin/python" - "$root/README.md" > "$work/example.py" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = text.split("## Example", 1)[1]
print(re.search(r"```python\n(.*?)```", section, re.S).group(1))
PY
(cd "$work" && "$work/venv/bin/python" example.py)
"$work/venv/bin/python" -c "import dmlgpu, importlib.resources as r; \
assert r.files('dmlgpu').joinpath('py.typed').is_file(); print('installed dmlgpu', dmlgpu.__version__)"
echo "check-package: wheel and sdist built; the README example ran against the installed wheel"
