#!/usr/bin/env bash
# Installs wsp's Debian packages, then configures and builds wsp in build/.
#
#   scripts/bootstrap.sh            # packages + configure + build
#   WSP_SKIP_APT=1 scripts/bootstrap.sh   # configure + build only
#   scripts/bootstrap.sh wspc       # ... build only these targets (and
#                                   # what they need): scripts/run.sh's
#
# Everything comes from Debian 12's archive (bookworm + security): LLVM/MLIR
# 22.1, ninja, lld, ccache, googletest, pybind11, pytest, numpy, PyTorch
# 1.13 (the package's torch interop and the tiny model's PyTorch reference;
# wsp itself runs without it), clang-19 (scripts/check-pto-isa.sh:
# pto-isa's headers need it), Open MPI (the collectives' MPI backend and its
# tests). Nothing is
# vendored or downloaded at build time.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${WSP_BUILD_DIR:-$root/build}

packages=(
  cmake ninja-build g++ lld ccache git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev libgmock-dev
  pybind11-dev python3-dev python3-pytest python3-numpy python3-torch
  clang-19 libclang-rt-19-dev
  openmpi-bin libopenmpi-dev
)

if [[ ${WSP_SKIP_APT:-0} != 1 ]]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "bootstrap: installing ${missing[*]}"
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE=/usr/bin/python3 \
  -DLLVM_USE_LINKER=lld \
  "${launcher[@]}"
# Targets named on the command line (run.sh: the driver alone), else all.
cmake --build "$build" ${1:+--target "$@"}
# compile_commands.json at the top, for clangd and clang-tidy.
ln -sf "$build/compile_commands.json" "$root/compile_commands.json"
