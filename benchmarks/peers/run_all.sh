#!/usr/bin/env bash
# Regenerate everything: venvs (newest peer versions allowed by requirements/),
# the corpus, each peer's golden values, and golden/manifest.json.
#   bash benchmarks/peers/run_all.sh                 # all eight peers
#   bash benchmarks/peers/run_all.sh ranx sklearn    # some peers only
# Environment: VENVS (default /tmp/peer-venvs), PYTHON (default python3.11),
# TREC_EVAL (optional path of a trec_eval binary to cross-check pytrec_eval).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
VENVS="${VENVS:-/tmp/peer-venvs}"
peers=("$@")
if [ ${#peers[@]} -eq 0 ]; then
  peers=(trec_eval ranx sklearn recommenders recbole torchmetrics ir_measures rectools)
fi
VENVS="$VENVS" bash "$here/build_venvs.sh" "${peers[@]}"
cd "$here"
"${PYTHON:-python3.11}" gen_corpus.py
for p in "${peers[@]}"; do
  script="${p}_peer.py"; [ "$p" = trec_eval ] && script=trec_eval.py
  extra=()
  if [ "$p" = trec_eval ] && [ -n "${TREC_EVAL:-}" ]; then extra=(--binary "$TREC_EVAL"); fi
  "$VENVS/peers-$p/bin/python" "$script" "${extra[@]}"
done
"${PYTHON:-python3.11}" merge_manifest.py
