#!/usr/bin/env bash
# pnetviz set-up and entry points; creates/reuses the virtual environment .venv itself and
# installs pnetviz into it (editable, with the ROOT wheel and the test tools).
#   ./run.sh demo [--events N]   write the demo results tree (results/) and run the campaign on it (plots/)
#   ./run.sh test [pytest args]  run the whole test suite
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
VENV="${PNETVIZ_VENV:-.venv}"

ensure_env() {  # $1: the extras to install, e.g. root,test
  local extras="$1" stamp
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { echo "pnetviz needs Python >= 3.11 as python3" >&2; exit 2; }
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  stamp="$VENV/.pnetviz-$(cat pyproject.toml requirements.txt | sha1sum | cut -c1-12)-$extras"
  if [ ! -f "$stamp" ] || ! "$VENV/bin/python" -c 'import pnetviz' 2>/dev/null; then
    echo "[run.sh] installing pnetviz[$extras] into $VENV (first time only; ROOT is ~250 MB)" >&2
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -c requirements.txt -e ".[$extras]"
    touch "$stamp"
  fi
}

# the pinned JSROOT in the cache the campaign uses without --jsroot (live views offline); skipped without npm
ensure_jsroot() {
  local cache="${PNETVIZ_JSROOT:-$HOME/.cache/pnetviz/jsroot-7.11.2}"
  if [ ! -f "$cache/package/modules/main.mjs" ] && command -v npm >/dev/null; then
    mkdir -p "$cache" && (cd "$cache" && npm pack --silent jsroot@7.11.2 >/dev/null && tar xzf jsroot-7.11.2.tgz) \
      || echo "[run.sh] could not fetch JSROOT (npm pack jsroot@7.11.2): live views will load it from root.cern" >&2
  fi
}

demo() {
  ensure_env root
  ensure_jsroot
  local events=3000
  if [ "${1:-}" = "--events" ]; then events="$2"; fi
  "$VENV/bin/pnetviz" demo --output results --events "$events"
  "$VENV/bin/pnetviz" campaign --results-dir results --plots-dir plots --syst all --score-shift background=0.02 --mass-column m_mumu
  echo "[run.sh] demo done: the campaign summary is in plots/campaign/ (maps, LaTeX table, CSV); every model's plots under plots/results/"
  echo "[run.sh] the web report: python3 -m http.server -d plots 8000, then open http://127.0.0.1:8000/"
  echo "[run.sh] PNGs of the report's figures only; every plot as PDF for a note: $VENV/bin/pnetviz render plots --formats pdf (docs/note-figures.md)"
  echo "[run.sh] to type pnetviz yourself: source $VENV/bin/activate (docs/README.md: the user guide)"
}

case "${1:-}" in
  demo) shift; demo "$@" ;;
  test) shift; ensure_env root,test,batch; exec "$VENV/bin/python" -m pytest "$@" ;;
  *) echo "usage: ./run.sh demo [--events N] | ./run.sh test [pytest args]" >&2; exit 2 ;;
esac
