# Shared by scripts/test.sh and scripts/demo.sh (sourced, not run):
#   algo_install_deps     apt-get what is missing (CMake, Ninja, Catch2, range-v3, Doxygen, GCC's nvptx offload
#                         compiler for OpenACC), only as root and only when a registry answers
#   algo_find_nvcc        put the CUDA toolkit's nvcc on PATH when it is installed but not there
#   algo_fetch_cccl_next  a newer CCCL's headers (pip download of nvidia-cuda-cccl into build/deps/),
#                         for the warnings test and the examples compiled against it as well
#   algo_configure        pick the preset (cuda when nvcc is found, else host) and configure
# Settings (environment):
#   ALGO_BUILD_DIR            build directory (default: build/<preset>)
#   ALGO_PRESET               force a preset: host or cuda
#   ALGO_CUDA_ARCHITECTURES   CMAKE_CUDA_ARCHITECTURES (default: $CUDAARCHS, else 90)
#   ALGO_JOBS                 parallel build jobs (default: all cores)
#   ALGO_NO_INSTALL=1         never call apt-get, nor pip (algo_fetch_cccl_next)
#   ALGO_CCCL_NEXT_VERSION    nvidia-cuda-cccl version algo_fetch_cccl_next gets (default 13.3.5.0.6:
#                             CCCL 3.5.0); "none": do not compile against a newer CCCL

ALGO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

algo_log() { printf '[algo] %s\n' "$*" >&2; }

# ---- dependencies --------------------------------------------------------------------------------
algo_have_header() {  # algo_have_header catch2/catch.hpp ...: any of them in a system include dir
  local h d
  for h in "$@"; do
    for d in /usr/include /usr/local/include; do
      [ -e "$d/$h" ] && return 0
    done
  done
  return 1
}

# A registry host from the enabled apt sources, reached within 5 s (a configured proxy is trusted
# as is: apt-get's own timeouts then bound the wait).
algo_registry_answers() {
  if [ -n "${http_proxy:-}${https_proxy:-}" ] || apt-config dump 2>/dev/null | grep -qi '::proxy "[^"]'; then
    return 0
  fi
  local url host port
  url=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -v '^[[:space:]]*#' | grep -oE 'https?://[^/[:space:]]+' | head -1 || true)
  [ -n "$url" ] || return 1
  host=${url#*://}
  port=80
  [ "${url%%://*}" = https ] && port=443
  timeout 5 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
}

algo_install_deps() {
  local need=()
  command -v cmake >/dev/null || need+=(cmake)
  command -v ninja >/dev/null || need+=(ninja-build)
  command -v c++ >/dev/null || need+=(g++)
  algo_have_header catch2/catch.hpp catch2/catch_all.hpp || need+=(catch2)
  algo_have_header range/v3/all.hpp || need+=(librange-v3-dev)
  command -v doxygen >/dev/null || need+=(doxygen)  # the API reference and its test (scripts/apidoc.sh)
  # OpenACC offloading to NVIDIA GPUs for the C++ compiler's GCC version (ALGO_OPENACC; Debian 12:
  # gcc-12-offload-nvptx + libgomp-plugin-nvptx1), where the distribution has it
  local gcc_major
  gcc_major=$(c++ -dumpversion 2>/dev/null | cut -d. -f1 || true)
  if [ -n "$gcc_major" ] && c++ -v 2>&1 | grep -q '^gcc version' && command -v dpkg-query >/dev/null; then
    local p
    for p in "gcc-$gcc_major-offload-nvptx" libgomp-plugin-nvptx1; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
    done
  fi
  algo_apt_install "${need[@]}"
}

# algo_apt_install PKG...: apt-get the packages (one at a time: a package this distribution lacks
# must not block the rest), only as root, only when a registry answers, never with ALGO_NO_INSTALL=1;
# says why when it does not, and always returns 0 (callers carry on with what is installed).
algo_apt_install() {
  [ $# -eq 0 ] && return 0
  local need=("$@")
  if [ "${ALGO_NO_INSTALL:-0}" = 1 ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    algo_log "missing ${need[*]}; not installing (needs root and apt-get); carrying on without"
    return 0
  fi
  if ! algo_registry_answers; then
    algo_log "missing ${need[*]}; no package registry answers; carrying on without"
    return 0
  fi
  algo_log "installing ${need[*]} with apt-get"
  local apt_opts=(-q -o Acquire::Retries=1 -o Acquire::http::Timeout=15 -o Acquire::https::Timeout=15)
  export DEBIAN_FRONTEND=noninteractive
  if ! timeout 180 apt-get "${apt_opts[@]}" update >/dev/null; then
    algo_log "apt-get update failed; carrying on with what is installed"
    return 0
  fi
  local p
  for p in "${need[@]}"; do
    timeout 600 apt-get "${apt_opts[@]}" install -y --no-install-recommends "$p" >/dev/null ||
      algo_log "could not install $p; carrying on without it"
  done
}

# ---- a newer CCCL -----------------------------------------------------------------------------------
# Sets ALGO_CCCL_NEXT_INCLUDE to the include directory (thrust/, cub/, cuda/, nv/) of the CCCL in PyPI's
# nvidia-cuda-cccl $ALGO_CCCL_NEXT_VERSION, unpacked under build/deps/ (kept there: later runs need no
# registry), or to "" with the reason printed: no registry answers, ALGO_NO_INSTALL=1, no pip. An
# ALGO_CCCL_NEXT_INCLUDE already set (environment) is kept and nothing is fetched.
# CMake's ALGO_CCCL_NEXT_INCLUDE then adds the *_cccl_next targets (CMakeLists.txt).
# PyPI (or the index pip is configured with) reached within 5 s; a proxy or another index is trusted
# as is (pip's own timeouts then bound the wait).
algo_pypi_answers() {
  if [ -n "${http_proxy:-}${https_proxy:-}${HTTPS_PROXY:-}${PIP_INDEX_URL:-}" ] ||
    python3 -m pip config list 2>/dev/null | grep -qiE 'index-url|proxy'; then
    return 0
  fi
  timeout 5 bash -c 'exec 3<>/dev/tcp/pypi.org/443' 2>/dev/null
}

algo_fetch_cccl_next() {
  if [ -n "${ALGO_CCCL_NEXT_INCLUDE:-}" ]; then  # given: used as is
    algo_log "newer CCCL: ALGO_CCCL_NEXT_INCLUDE=$ALGO_CCCL_NEXT_INCLUDE (given)"
    return 0
  fi
  ALGO_CCCL_NEXT_INCLUDE=""
  local ver=${ALGO_CCCL_NEXT_VERSION:-13.3.5.0.6}
  [ "$ver" = none ] && { algo_log "newer CCCL: ALGO_CCCL_NEXT_VERSION=none; not compiling against it"; return 0; }
  local cache="$ALGO_ROOT/build/deps/nvidia-cuda-cccl-$ver"
  local inc
  inc=$(ls -d "$cache"/nvidia/cu*/include/cccl 2>/dev/null | head -1 || true)
  if [ -n "$inc" ] && [ -e "$inc/thrust/version.h" ]; then
    ALGO_CCCL_NEXT_INCLUDE=$inc
    algo_log "newer CCCL: nvidia-cuda-cccl $ver from $cache"
    return 0
  fi
  local why=""
  if [ "${ALGO_NO_INSTALL:-0}" = 1 ]; then
    why="ALGO_NO_INSTALL=1"
  elif ! command -v python3 >/dev/null || ! python3 -m pip --version >/dev/null 2>&1; then
    why="no python3 -m pip"
  elif ! algo_pypi_answers; then
    why="PyPI does not answer"
  fi
  if [ -n "$why" ]; then
    algo_log "newer CCCL: not fetching nvidia-cuda-cccl $ver ($why); compiling against the toolkit's CCCL only"
    return 0
  fi
  algo_log "newer CCCL: pip download nvidia-cuda-cccl==$ver"
  local tmp="$cache.tmp"
  rm -rf "$tmp" && mkdir -p "$tmp"
  if ! timeout 300 python3 -m pip download --no-deps --only-binary=:all: --disable-pip-version-check \
      --timeout 20 --retries 1 -d "$tmp" "nvidia-cuda-cccl==$ver" >"$tmp.log" 2>&1; then
    algo_log "newer CCCL: the download failed (no registry answers?): $(tail -1 "$tmp.log"); compiling against the toolkit's CCCL only"
    rm -rf "$tmp" "$tmp.log"
    return 0
  fi
  local whl
  whl=$(ls "$tmp"/*.whl 2>/dev/null | head -1 || true)
  if [ -z "$whl" ] || ! python3 -m zipfile -e "$whl" "$tmp/unpacked" >/dev/null 2>&1; then
    algo_log "newer CCCL: could not unpack ${whl:-the wheel}; compiling against the toolkit's CCCL only"
    rm -rf "$tmp" "$tmp.log"
    return 0
  fi
  rm -rf "$cache" && mv "$tmp/unpacked" "$cache" && rm -rf "$tmp" "$tmp.log"
  inc=$(ls -d "$cache"/nvidia/cu*/include/cccl 2>/dev/null | head -1 || true)
  if [ -z "$inc" ] || [ ! -e "$inc/thrust/version.h" ]; then
    algo_log "newer CCCL: no include/cccl/thrust in nvidia-cuda-cccl $ver; compiling against the toolkit's CCCL only"
    return 0
  fi
  ALGO_CCCL_NEXT_INCLUDE=$inc
  algo_log "newer CCCL: nvidia-cuda-cccl $ver in $cache"
}

# ---- CUDA ------------------------------------------------------------------------------------------
algo_find_nvcc() {
  command -v nvcc >/dev/null && return 0
  local c
  for c in "${CUDACXX:-}" "${CUDA_HOME:-/nonexistent}/bin/nvcc" "${CUDA_PATH:-/nonexistent}/bin/nvcc" \
    /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
    if [ -n "$c" ] && [ -x "$c" ]; then
      export PATH="$(dirname "$c"):$PATH"
      return 0
    fi
  done
  return 1
}

# ---- configure -------------------------------------------------------------------------------------
# Sets ALGO_PRESET and ALGO_BUILD_DIR, configures the build directory; arguments go to cmake.
algo_configure() {
  command -v cmake >/dev/null || { algo_log "cmake is not installed"; return 1; }
  command -v ninja >/dev/null || { algo_log "ninja is not installed (the presets use Ninja)"; return 1; }
  if [ -z "${ALGO_PRESET:-}" ]; then
    if algo_find_nvcc; then ALGO_PRESET=cuda; else ALGO_PRESET=host; fi
  elif [ "$ALGO_PRESET" = cuda ]; then
    algo_find_nvcc || algo_log "ALGO_PRESET=cuda but no nvcc found"
  fi
  case "$ALGO_PRESET" in
    host | cuda) ;;
    *) algo_log "ALGO_PRESET must be host or cuda, not '$ALGO_PRESET'"; return 1 ;;
  esac
  ALGO_BUILD_DIR=${ALGO_BUILD_DIR:-$ALGO_ROOT/build/$ALGO_PRESET}
  ALGO_JOBS=${ALGO_JOBS:-$(nproc 2>/dev/null || echo 2)}
  export ALGO_PRESET ALGO_BUILD_DIR ALGO_JOBS

  local args=(--preset "$ALGO_PRESET" -B "$ALGO_BUILD_DIR" "$@")
  if [ "$ALGO_PRESET" = cuda ]; then
    args+=("-DCMAKE_CUDA_ARCHITECTURES=${ALGO_CUDA_ARCHITECTURES:-${CUDAARCHS:-90}}")
    algo_log "preset cuda ($(nvcc --version | grep -o 'release [0-9.]*'), sm ${ALGO_CUDA_ARCHITECTURES:-${CUDAARCHS:-90}}), build dir $ALGO_BUILD_DIR"
  else
    algo_log "preset host (no nvcc: host policies only), build dir $ALGO_BUILD_DIR"
  fi
  (cd "$ALGO_ROOT" && cmake "${args[@]}")
}
