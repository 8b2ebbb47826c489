#!/usr/bin/env bash
# Check the R wrapper idriskR: help pages up to date with their roxygen2 comments, then
# `R CMD build` and `R CMD check --no-manual`, which installs it and runs its testthat suite.
# Fails on any ERROR or WARNING of the check. Needs RETICULATE_PYTHON pointing at a Python
# where idrisk is installed (scripts/dev.sh sets it) - otherwise the tests skip.
set -euo pipefail
cd "$(dirname "$0")/.."
PKG=r-compat/idriskR
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export IDRISK_SHARED="${IDRISK_SHARED:-$(cd .. && pwd)/shared}"

if Rscript -e 'quit(status = !requireNamespace("roxygen2", quietly = TRUE))' >/dev/null 2>&1; then
  echo "== idriskR: help pages (man/*.Rd, NAMESPACE) match the roxygen2 comments"
  cp -r "$PKG" "$WORK/regen"
  (cd "$WORK/regen" && Rscript -e 'roxygen2::roxygenise()' >/dev/null 2>&1)
  if ! diff -r "$PKG/man" "$WORK/regen/man" >/dev/null || ! diff "$PKG/NAMESPACE" "$WORK/regen/NAMESPACE" >/dev/null; then
    echo "idriskR: man/ or NAMESPACE is out of date; run: (cd $PKG && Rscript -e 'roxygen2::roxygenise()')"
    diff -r "$PKG/man" "$WORK/regen/man" || true
    exit 1
  fi
else
  echo "== roxygen2 not installed: not checking that man/ is up to date"
fi

echo "== R CMD build idriskR"
(cd "$WORK" && R CMD build --no-build-vignettes "$OLDPWD/$PKG" >/dev/null)
TARBALL=$(ls "$WORK"/idriskR_*.tar.gz)
echo "== R CMD check --no-manual $(basename "$TARBALL")"
status=0
(cd "$WORK" && _R_CHECK_FORCE_SUGGESTS_=false R CMD check --no-manual "$TARBALL") || status=$?
LOG="$WORK/idriskR.Rcheck/00check.log"
if [ -f "$WORK/idriskR.Rcheck/tests/testthat.Rout" ]; then
  echo "== testthat summary:"
  grep -E '^\[ FAIL' "$WORK/idriskR.Rcheck/tests/testthat.Rout" | tail -1 || true
fi
if [ "$status" -ne 0 ] || grep -qE '^\* .*\.\.\. (ERROR|WARNING)|^Status: .*(ERROR|WARNING)' "$LOG"; then
  echo "idriskR: R CMD check found errors or warnings (see above)"
  [ -f "$WORK/idriskR.Rcheck/tests/testthat.Rout.fail" ] && tail -40 "$WORK/idriskR.Rcheck/tests/testthat.Rout.fail"
  exit 1
fi
echo "== idriskR: R CMD check clean ($(grep '^Status:' "$LOG"))"
