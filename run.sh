#!/usr/bin/env bash
# pnetviz set-up and entry points; creates/reuses the virtual environment .venv itself.
#   ./run.sh demo [--events N]   generate the demo results tree and run the campaign (every script) on it
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
  local events=3000
  if [ "${1:-}" = "--events" ]; then events="$2"; fi
  "$VENV/bin/python" python/makeDemo.py --output results --events "$events"
  "$VENV/bin/python" python/visualizeCampaign.py --results-dir results --output plots --syst all --score-shift background=0.02
  echo "[run.sh] demo done: the campaign summary is in plots/campaign/ (maps, LaTeX table, CSV); every model's plots under plots/results/"
}

case "${1:-}" in
  demo) shift; demo "$@" ;;
  test) shift; ensure_env requirements-test.txt; exec "$VENV/bin/python" -m pytest "$@" ;;
  *) echo "usage: ./run.sh demo [--events N] | ./run.sh test [pytest args]" >&2; exit 2 ;;
esac
