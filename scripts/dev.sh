#!/usr/bin/env bash
# One entry point for developers and CI. Works on a fresh Debian machine with python3.
#
#   bash scripts/dev.sh demo    # set up, then run the demo (synthesize, risk over radii, report)
#   bash scripts/dev.sh test    # set up (incl. R from Debian when run as root), run every test
#   bash scripts/dev.sh bench   # run the benchmarks and write benchmarks/results/*.json
#   bash scripts/dev.sh setup   # only create .venv and install idrisk with its extras
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${IDRISK_VENV:-.venv}
PY="$VENV/bin/python"
export MPLBACKEND=Agg

need_r() {
  # R 4.2 from Debian: rpart for the CART cross-check, reticulate/testthat for the R wrapper.
  local pkgs="r-base-core r-base-dev r-cran-rpart r-cran-reticulate r-cran-testthat r-cran-jsonlite"
  if command -v Rscript >/dev/null 2>&1 && Rscript -e 'for (p in c("rpart","reticulate","testthat","jsonlite")) stopifnot(requireNamespace(p, quietly=TRUE))' >/dev/null 2>&1; then
    return 0
  fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing R from Debian ($pkgs)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
  else
    echo "== R not installed and not root: R-side tests will skip (apt-get install $pkgs)"
  fi
}

setup() {
  if [ ! -x "$PY" ]; then
    echo "== creating $VENV"
    python3 -m venv "$VENV"
  fi
  "$PY" -m pip install -q --disable-pip-version-check --upgrade pip
  local extras="stan,dask,parquet,test"
  if command -v R >/dev/null 2>&1; then extras="$extras,r"; fi
  echo "== pip install -e .[$extras]"
  "$PY" -m pip install -q --disable-pip-version-check -e ".[$extras]"
}

run_r_tests() {
  if [ -f r-compat/run-tests.sh ] && command -v Rscript >/dev/null 2>&1; then
    echo "== R wrapper tests (testthat)"
    RETICULATE_PYTHON="$PWD/$PY" bash r-compat/run-tests.sh
  fi
}

case "${1:-test}" in
  setup) setup ;;
  demo)
    setup
    shift || true
    "$VENV/bin/idrisk" demo "$@"
    ;;
  test)
    need_r
    setup
    shift || true
    run_r_tests
    echo "== pytest"
    "$PY" -m pytest "$@"
    ;;
  bench)
    setup
    mkdir -p benchmarks/results
    for f in benchmarks/bench_*.py; do
      name=$(basename "$f" .py); name=${name#bench_}
      "$PY" -m pytest "$f" --benchmark-enable --benchmark-json "benchmarks/results/$name.json" -q
    done
    ;;
  *) echo "usage: bash scripts/dev.sh {demo|test|bench|setup} [args]"; exit 2 ;;
esac
