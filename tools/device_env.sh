# Sourced by tools/device_check.sh and tools/device_teacher.sh on a larger machine (no package
# registry), from the repository root. Logs everything to $OUT/device.log ($OUT: the device
# tool's output folder, else ./device-out) and defines stamp (elapsed seconds since T0); unpacks
# the Debian packages carried in .devdeps/*.deb into $DEPS with dpkg -x; sets TORCH_PREFIX (the
# CMake prefix of the LibTorch inside the machine's Python torch), TORCH_ROOT, LD_LIBRARY_PATH
# (those libraries first), JOBS (the machine's cores) and CMAKE_COMMON (the configure flags both
# builds use: Ninja, Release, no ccache, the H200's CUDA architecture).
OUT="${OUT:-$PWD/device-out}"
mkdir -p "$OUT"
exec > >(tee "$OUT/device.log") 2>&1
T0=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }
DEPS=/tmp/psdeps
mkdir -p "$DEPS"
if ! compgen -G ".devdeps/*.deb" >/dev/null; then
  stamp "no .devdeps/*.deb here: fetch them (tools/device_check.sh's list) and carry .devdeps"
  exit 1
fi
for f in .devdeps/*.deb; do dpkg -x "$f" "$DEPS"; done
if ! TORCH_PREFIX=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)') ||
   ! TORCH_ROOT=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))'); then
  stamp "no Python torch on this machine: its LibTorch is what the build links"
  exit 1
fi
export LD_LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu:$TORCH_ROOT/lib:${LD_LIBRARY_PATH:-}"
JOBS=$(nproc)
CMAKE_COMMON=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=
              -DCMAKE_CUDA_ARCHITECTURES=90 -DTORCH_CUDA_ARCH_LIST=9.0 -Wno-dev)
