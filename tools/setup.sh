#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs (skips apt when all are present), then
# configures and builds into ./build (Release, Ninja, ccache when present).
#   tools/setup.sh            # deps + build everything
#   PS_BUILD_DIR=build-x tools/setup.sh -DPS_SANITIZE_THREAD=ON   # extra CMake arguments
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(build-essential cmake ninja-build ccache pkg-config
          libtorch-dev libeigen3-dev libtbb-dev libyaml-cpp-dev catch2
          libzstd-dev libcli11-dev nlohmann-json3-dev zlib1g-dev
          libcpp-httplib-dev  # `serve`: the HTTP server (the browser test's chromium: tools/setup_browser.sh)
          time  # GNU time: peak RSS of the soak test's processes
          # LibTorch's CPU matrix products go through the system BLAS; Debian's default is the
          # reference (netlib) one. OpenBLAS (serial: our threads are the parallelism) made the
          # medium net 9x faster at batch 1 and CPU self-play 2.3x faster (docs/BENCHMARKS.md).
          libopenblas0-serial
          clang-format)  # the format check (tools/format_check.sh, CTest format_check)

. tools/apt_packages.sh
install_missing setup "${PACKAGES[@]}"

BUILD_DIR="${PS_BUILD_DIR:-build}"
JOBS="${PS_JOBS:-$(nproc)}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$BUILD_DIR" -j "$JOBS"
