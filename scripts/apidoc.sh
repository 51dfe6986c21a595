#!/usr/bin/env bash
# Builds the API reference from the public headers' comments (include/algo/*.hpp,
# include/algo/openacc/*; not include/algo/detail/) with Doxygen and docs/Doxyfile:
#
#   scripts/apidoc.sh        ->  build/apidoc/html/index.html   (open it in a browser)
#
# Fails (exit 1, the warnings printed and kept in build/apidoc/warnings.log) on any Doxygen
# warning, above all a public function, class, type or constant without a comment.
# When run as root with a reachable package registry it apt-gets doxygen if it is missing
# (Debian's package; ALGO_NO_INSTALL=1: never), as scripts/test.sh does for the test docs_api_reference.
# Environment: ALGO_APIDOC_DIR  output directory (default: build/apidoc; html/ and warnings.log
#              go under it, html/ is rebuilt from scratch every run)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

command -v doxygen >/dev/null || algo_apt_install doxygen
if ! command -v doxygen >/dev/null; then
  algo_log "doxygen is not installed (Debian/Ubuntu: apt-get install doxygen)"
  exit 1
fi

out=${ALGO_APIDOC_DIR:-$ALGO_ROOT/build/apidoc}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/html" "$out/warnings.log"
algo_log "doxygen $(doxygen --version), docs/Doxyfile -> $out/html"

cd "$ALGO_ROOT"
# The settings of docs/Doxyfile, with the output directory and the warnings log of this run.
status=0
{
  cat docs/Doxyfile
  printf 'OUTPUT_DIRECTORY = "%s"\nWARN_LOGFILE = "%s"\n' "$out" "$out/warnings.log"
} | doxygen - || status=$?

warnings=0
[ -s "$out/warnings.log" ] && warnings=$(grep -c 'warning:\|error:' "$out/warnings.log" || true)
if [ "$status" != 0 ] || [ "$warnings" != 0 ] || [ -s "$out/warnings.log" ]; then
  [ -s "$out/warnings.log" ] && cat "$out/warnings.log" >&2
  algo_log "API reference: $warnings warning(s), doxygen exit status $status (log: $out/warnings.log)"
  exit 1
fi
if [ ! -f "$out/html/index.html" ]; then
  algo_log "doxygen wrote no $out/html/index.html"
  exit 1
fi
algo_log "API reference: $out/html/index.html (no warnings)"
