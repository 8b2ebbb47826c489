#!/usr/bin/env bash
# Install the R wrapper idriskR into a temporary library and run its testthat suite.
# Needs RETICULATE_PYTHON pointing at a Python where idrisk is installed (scripts/dev.sh sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
RLIB=$(mktemp -d)
trap 'rm -rf "$RLIB"' EXIT
R CMD INSTALL --no-test-load --library="$RLIB" r-compat/idriskR >/dev/null
export IDRISK_SHARED="${IDRISK_SHARED:-$(cd .. && pwd)/shared}"
R_LIBS="$RLIB" Rscript -e 'library(idriskR); testthat::test_dir("r-compat/idriskR/tests/testthat", stop_on_failure = TRUE)'
