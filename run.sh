#!/usr/bin/env bash
# pnetviz set-up and entry points; creates/reuses the virtual environment .venv itself.
#   ./run.sh demo [--events N]   generate the demo ntuples and run every visualize script on them
#   ./run.sh test [pytest args]  run the whole test suite
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
VENV="${PNETVIZ_VENV:-.venv}"

ensure_env() {  # $1: requirements file
  local req="$1" stamp
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { echo "pnetviz needs Python >= 3.11 as python3" >&2; exit 2; }
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  stamp="$VENV/.pnetviz-$(cat requirements*.txt | sha1sum | cut -c1-12)-$(basename "$req")"
  if [ ! -f "$stamp" ]; then
    echo "[run.sh] installing $req into $VENV (first time only; ROOT is ~250 MB)" >&2
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -r "$req"
    touch "$stamp"
  fi
}

demo() {
  ensure_env requirements.txt
  local events=20000
  if [ "${1:-}" = "--events" ]; then events="$2"; fi
  "$VENV/bin/python" python/makeDemo.py --output results --events "$events"
  local bkg
  for bkg in nonprompt diboson ttZ; do
    "$VENV/bin/python" python/visualizeBinary.py --results-dir results --background "$bkg" --fold all
  done
  "$VENV/bin/python" python/visualizeMultiClass.py --results-dir results --fold all
  "$VENV/bin/python" python/visualizeComparison.py --results-dir results --fold all
  echo "[run.sh] demo done: plots in plots/Run1E2Mu/ (PNG, PDF, plots.root, summary_report.json/.txt per fold)"
}

case "${1:-}" in
  demo) shift; demo "$@" ;;
  test) shift; ensure_env requirements-test.txt; exec "$VENV/bin/python" -m pytest "$@" ;;
  *) echo "usage: ./run.sh demo [--events N] | ./run.sh test [pytest args]" >&2; exit 2 ;;
esac
