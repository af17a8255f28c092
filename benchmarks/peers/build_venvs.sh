#!/usr/bin/env bash
# Build one virtualenv per peer library, outside the repository.
#   VENVS=/tmp/peer-venvs bash benchmarks/peers/build_venvs.sh [peer ...]
# Each venv gets requirements/<peer>.txt (the newest versions that satisfy it);
# torch is pinned to 2.13.0 (CPU build) through requirements/constraints.txt and
# installed first, so that no peer pulls another torch build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
VENVS="${VENVS:-/tmp/peer-venvs}"
PYTHON="${PYTHON:-python3.11}"
peers=("$@")
if [ ${#peers[@]} -eq 0 ]; then
  peers=(trec_eval ranx sklearn recommenders recbole torchmetrics ir_measures rectools)
fi
for p in "${peers[@]}"; do
  v="$VENVS/peers-$p"
  echo "== $p -> $v"
  [ -x "$v/bin/python" ] || "$PYTHON" -m venv "$v"
  pip=("$v/bin/python" -m pip install --quiet -c "$here/requirements/constraints.txt")
  if grep -q '^torch' "$here/requirements/$p.txt"; then
    "${pip[@]}" torch==2.13.0
  fi
  # --upgrade: a venv that exists moves to the newest peer versions the
  # requirements allow (torch stays at 2.13.0 through the constraints file)
  "${pip[@]}" --upgrade -r "$here/requirements/$p.txt"
  if [ -f "$here/requirements/$p-nodeps.txt" ]; then
    "${pip[@]}" --upgrade --no-deps -r "$here/requirements/$p-nodeps.txt"
  fi
  "$v/bin/python" -m pip freeze > "$here/versions/$p.txt"
done
