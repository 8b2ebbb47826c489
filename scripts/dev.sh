#!/usr/bin/env bash
# One entry point for developers and CI. Works on a fresh Debian machine with python3.
#
#   bash scripts/dev.sh demo    # set up, then run the demo (synthesize, risk over radii, report)
#   bash scripts/dev.sh test    # set up (R, synthpop, Chromium when run as root, CmdStan), run every
#                               # test; every Stan test runs on cmdstanpy and on PyStan
#   bash scripts/dev.sh bench   # run the benchmarks and write benchmarks/results/*.json
#   bash scripts/dev.sh docs    # set up, then build the documentation site (docs/_build/html)
#   bash scripts/dev.sh setup   # only create .venv and install idrisk with its extras
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${IDRISK_VENV:-.venv}
PY="$VENV/bin/python"
export MPLBACKEND=Agg

need_system() {
  # The live oracles the tests compare with: Debian's R 4.2 with survey, MASS, sampling, rpart,
  # reticulate, testthat, and synthpop 1.9-3 + NPBayesImputeCat 0.5 from ../shared/r-packages;
  # roxygen2 for idriskR's help pages; Chromium to render the HTML report in a test.
  local shared="${IDRISK_SHARED:-$(cd .. && pwd)/shared}"
  local debs="r-cran-roxygen2 chromium"
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    local missing
    missing=$(for d in $debs; do dpkg-query -W -f='${Status}\n' "$d" 2>/dev/null | grep -q "install ok installed" || echo "$d"; done)
    if [ -n "$missing" ]; then
      echo "== apt-get install" $missing
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
    if [ -f "$shared/r-packages/install.sh" ]; then
      bash "$shared/r-packages/install.sh"
    else
      echo "== $shared/r-packages/install.sh not found: the R-side tests will skip"
    fi
  else
    echo "== not root: install R and its packages with: sudo bash $shared/r-packages/install.sh"
  fi
}

need_cmdstan() {
  # CmdStan 2.35 for the cmdstanpy variant of every Stan test (PyStan brings its own compiler):
  # ../shared/cmdstan/install.sh builds it offline the first time (about 2-17 min on 2 cores,
  # see its README), returns at once afterwards, and prints the path to export as CMDSTAN.
  local shared="${IDRISK_SHARED:-$(cd .. && pwd)/shared}"
  local script="$shared/cmdstan/install.sh"
  if [ ! -f "$script" ]; then
    echo "== $script not found: the cmdstanpy variants of the Stan tests cannot run" \
         "(they fail under CI=true)"
    return 0
  fi
  local t0 log line
  t0=$(date +%s)
  log=$(mktemp)
  echo "== CmdStan: bash $script"
  if ! nice bash "$script" >"$log" 2>&1; then
    cat "$log"; rm -f "$log"
    echo "== CmdStan install failed"; return 1
  fi
  tail -n 3 "$log"
  line=$(grep '^export CMDSTAN=' "$log" | tail -n 1)
  rm -f "$log"
  if [ -n "$line" ]; then
    eval "$line"
    echo "== CMDSTAN=$CMDSTAN ($(( $(date +%s) - t0 )) s)"
  fi
}

setup() {
  if [ ! -x "$PY" ]; then
    echo "== creating $VENV"
    python3 -m venv "$VENV"
  fi
  "$PY" -m pip install -q --disable-pip-version-check --upgrade pip
  local extras="stan,dask,parquet,dp,formats,test,docs"
  if command -v R >/dev/null 2>&1; then extras="$extras,r"; fi
  echo "== pip install -e .[$extras]"
  "$PY" -m pip install -q --disable-pip-version-check -e ".[$extras]"
}

run_r_tests() {
  # the R wrapper idriskR: help pages current, R CMD check --no-manual clean (runs testthat)
  if [ -f r-compat/run-tests.sh ] && command -v Rscript >/dev/null 2>&1; then
    echo "== R wrapper idriskR (roxygen2 help pages, R CMD check, testthat)"
    RETICULATE_PYTHON="$PWD/$PY" bash r-compat/run-tests.sh
  else
    echo "== R not found: skipping the R wrapper idriskR's R CMD check"
  fi
}

build_docs() {
  # the documentation site from a fresh environment (-E), warnings as errors; conf.py sets
  # nitpicky, so every cross-reference must resolve (docs/README.md)
  echo "== sphinx: docs/_build/html"
  "$PY" -m sphinx -b html -E -W --keep-going -q -d docs/_build/doctrees docs docs/_build/html
  echo "   built docs/_build/html/index.html"
}

run_mypy() {
  echo "== mypy idrisk (config in pyproject.toml)"
  "$PY" -m mypy idrisk
}

case "${1:-test}" in
  setup) setup ;;
  demo)
    setup
    shift || true
    "$VENV/bin/idrisk" demo "$@"
    ;;
  test)
    need_system
    setup
    need_cmdstan
    shift || true
    run_r_tests
    build_docs
    run_mypy
    echo "== pytest"
    # tests/test_docs.py checks the site just built, and runs the docs' examples
    IDRISK_DOCS_HTML="$PWD/docs/_build/html" "$PY" -m pytest "$@"
    ;;
  docs)
    setup
    build_docs
    ;;
  bench)
    setup
    mkdir -p benchmarks/results
    for f in benchmarks/bench_*.py; do
      name=$(basename "$f" .py); name=${name#bench_}
      "$PY" -m pytest "$f" --benchmark-enable --benchmark-json "benchmarks/results/$name.json" -q
    done
    ;;
  *) echo "usage: bash scripts/dev.sh {demo|test|docs|bench|setup} [args]"; exit 2 ;;
esac
