# scripts/configure-clang.sh, sourced by the sanitizer runs (sanitize.sh,
# tsan.sh): configure_clang BUILD_DIR [CMAKE_ARGS...] configures the tree
# in BUILD_DIR with clang-19 (and ccache when there is one), Debian's MLIR
# 22 and lit, /usr/bin/python3 and lld, plus the run's own arguments.
configure_clang() {
  local build=$1
  shift
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3 \
    -DLLVM_USE_LINKER=lld \
    "$@" "${launcher[@]}" > /dev/null
}
