#!/usr/bin/env bash
# costmodel-fixes.sh SRC DST
#
# Copies a hw-native-sys/pto-isa checkout from SRC to DST and fixes, in the
# copy, what stops its perf-sim cost model (-D__COSTMODEL
# -D__NPU_ARCH__=2201) from building and recording flags with clang++-19 at
# pto-isa 3186c381. SRC is never changed. Each edit is anchored on the text
# it changes and the script stops if an anchor is missing (pto-isa moved
# on): delete DST and look again. An existing DST is refused.
set -euo pipefail

src=${1:?usage: costmodel-fixes.sh SRC DST}
dst=${2:?usage: costmodel-fixes.sh SRC DST}
[[ -f $src/include/pto/costmodel/pto_instr.hpp ]] || {
  echo "costmodel-fixes: '$src' is not a pto-isa checkout" >&2
  exit 2
}
[[ ! -e $dst ]] || {
  echo "costmodel-fixes: '$dst' exists" >&2
  exit 2
}
mkdir -p "$(dirname "$dst")"
cp -a "$src" "$dst"
chmod -R u+w "$dst"
cm=$dst/include/pto/costmodel

# expect FILE TEXT: TEXT (a fixed string) is in FILE.
expect() {
  grep -qF -- "$2" "$1" || {
    echo "costmodel-fixes: '$2' not found in $1" >&2
    exit 1
  }
}

# 0. A generated header the cost model includes (formula_backend_compute.hpp)
#    is made by a script in the tree, as pto-isa's own cost-model tests do.
for arch in a2a3 a5; do
  python3 "$cm/$arch/formula_costmodel/gen_formula_params_header.py" >/dev/null
done

# 1. kMicrosPerSecond is used (arch_config.hpp, lightweight_costmodel.hpp)
#    and never defined; arch_config.hpp also uses <array>, <cstdlib> and
#    <limits> without including them.
f=$cm/arch_config.hpp
expect "$f" 'inline constexpr long double kMainFrequencyHz = 1.85e9L;'
expect "$f" '#include <string_view>'
sed -i -e 's|^inline constexpr long double kMainFrequencyHz = 1.85e9L;$|&\ninline constexpr long double kMicrosPerSecond = 1.0e6L; // wsp fix 1|' \
  -e 's|^#include <string_view>$|&\n#include <array>   // wsp fix 1\n#include <cstdlib> // wsp fix 1\n#include <limits>  // wsp fix 1|' "$f"

# 2. cce_costmodel_core.hpp uses the namespace alias ev without declaring it.
f=$cm/a2a3/cce_costmodel/cce_costmodel_core.hpp
expect "$f" 'inline uint64_t EstimateBandwidthCycles(uint64_t bytes, ::pto::mocker::evaluator::PipeKey key)'
sed -i 's|^inline uint64_t EstimateBandwidthCycles(uint64_t bytes, ::pto::mocker::evaluator::PipeKey key)$|namespace ev = ::pto::mocker::evaluator; // wsp fix 2\n&|' "$f"

# 3. trace.hpp reads and writes TraceState::vector_count_mode, which the
#    struct lacks (off: the normal mask mode).
f=$cm/trace.hpp
expect "$f" '    std::array<CcePipeTraceState, kPipeKeyCount> cce_pipe_traces;'
sed -i 's|^    std::array<CcePipeTraceState, kPipeKeyCount> cce_pipe_traces;$|&\n    bool vector_count_mode = false; // wsp fix 3|' "$f"

# 4. get_coreid and get_block_num are defined twice (costmodel's
#    runtime_util.hpp and common/cpu_stub.hpp); keep cpu_stub's, which follow
#    the launch's execution context.
f=$cm/common/runtime_util.hpp
expect "$f" 'inline int get_coreid() { return 0; }'
expect "$f" 'inline uint32_t get_block_num() { return 1; }'
sed -i -e 's|^inline int get_coreid() { return 0; }$|// wsp fix 4: get_coreid() is cpu_stub.hpp'"'"'s|' \
  -e 's|^inline uint32_t get_block_num() { return 1; }$|// wsp fix 4: get_block_num() is cpu_stub.hpp'"'"'s|' "$f"

# 5. The cost model's instruction header replaces pto/common/pto_instr.hpp
#    (same include guard) but not the MrgSortExecutedNumList struct the
#    a2a3 sort instructions take: declare it (four 16-bit list counts).
f=$cm/pto_instr.hpp
expect "$f" '#include "pto/common/pto_instr_impl.hpp"'
sed -i '0,/^#include "pto\/common\/pto_instr_impl.hpp"$/s||namespace pto { // wsp fix 5\nstruct MrgSortExecutedNumList {\n    uint16_t mrgSortList0, mrgSortList1, mrgSortList2, mrgSortList3;\n};\n} // namespace pto\n#include "pto/common/pto_instr_impl.hpp"|' "$f"

# 6. With __DAV_CUBE__, pto_tile.hpp calls get_ctrl/set_ctrl/sbitset0/1
#    before the a2a3 cost-model mocks that define them are included:
#    declare them first.
f=$cm/common/qualifiers.hpp
expect "$f" '#include <pto/common/cpu_stub.hpp>'
sed -i '0,/^#include <pto\/common\/cpu_stub.hpp>$/s||#if defined(__COSTMODEL) \&\& defined(__NPU_ARCH__) \&\& (__NPU_ARCH__ == 2201) // wsp fix 6\ninline int sbitset0(int val, int bit);\ninline int sbitset1(int val, int bit);\ninline int get_ctrl(...);\ninline void set_ctrl(auto ctrl);\n#endif\n#include <pto/common/cpu_stub.hpp>|' "$f"

# 7. cpu_stub.hpp's no-op set_flag/wait_flag(pipe_t, pipe_t, int) are exact
#    matches for a kernel's flags under the cost model (pipe_t and event_t
#    are int there) and win over the recording templates, so the model never
#    sees a kernel's flags. Hide them under the cost model and record the
#    kernel's own flags (not those issued inside an instruction's
#    implementation, which the shipped calibration leaves out).
f=$dst/include/pto/common/cpu_stub.hpp
expect "$f" 'inline void set_flag(pipe_t, pipe_t, int) {}'
expect "$f" 'inline void wait_flag(pipe_t, pipe_t, int) {}'
sed -i -e 's|^inline void set_flag(pipe_t, pipe_t, int) {}$|#if !defined(__COSTMODEL) // wsp fix 7\n&|' \
  -e 's|^inline void wait_flag(pipe_t, pipe_t, int) {}$|&\n#endif // wsp fix 7|' "$f"
f=$cm/a2a3/cce_costmodel/cce_costmodel_sync.hpp
expect "$f" 'inline void wait_flag(auto srcPipe, auto dstPipe, auto token)'
cat >>"$f" <<'EOF'

// wsp fix 7: a kernel's own set_flag/wait_flag with an int event.
inline void set_flag(pipe_t src, pipe_t dst, int event)
{
    if (::pto::mocker::GetTrace().active_pto_stack.empty())
        set_flag<pipe_t, pipe_t, int>(src, dst, event);
}
inline void wait_flag(pipe_t src, pipe_t dst, int event)
{
    if (::pto::mocker::GetTrace().active_pto_stack.empty())
        wait_flag<pipe_t, pipe_t, int>(src, dst, event);
}
EOF

# 8. Count mode. An element-wise instruction of more than 255 repeats (a
#    [8 x 2048] f32 tile) is dispatched in count mode: set_mask_count, the
#    element count in the vector mask (SetVectorCount), the instruction with
#    a repeat field of 0, set_mask_norm. The model charges an instruction by
#    that field, so such an instruction cost its head only, whatever the
#    count. Keep the mode and the count, and charge a count-mode instruction
#    the repeats its count fills (of its destination's elements): a
#    [8 x 2048] f32 TABS goes from 17 cycles to 285, what its two
#    [8 x 1024] halves cost. (The model's own count-mode floor,
#    EstimateCountModeFloor, stays off as it was: nothing sets the mode it
#    reads, and its +16 cycles per instruction are calibrated on single
#    unaligned instructions, not on the per-row count-mode loops of the
#    broadcasts.)
f=$cm/a2a3/cce_costmodel/cce_costmodel_core.hpp
expect "$f" 'inline uint64_t EstimateLinearCycles(uint64_t repeat, uint64_t head = 6, uint64_t slope = 2, uint64_t tail = 0)'
sed -i 's|^inline uint64_t EstimateLinearCycles(uint64_t repeat, uint64_t head = 6, uint64_t slope = 2, uint64_t tail = 0)$|// wsp fix 8: whether the vector unit is in count mode, its element count,\n// and the repeats an instruction of `elementBytes` elements takes.\ninline bool \&WspCountMode()\n{\n    thread_local bool on = false;\n    return on;\n}\ninline uint64_t \&WspVectorCount()\n{\n    thread_local uint64_t count = 0;\n    return count;\n}\ninline uint64_t WspRepeats(uint64_t repeat, uint64_t elementBytes)\n{\n    if (!WspCountMode() \|\| repeat != 0)\n        return repeat;\n    return (WspVectorCount() * elementBytes + 255) / 256;\n}\n&|' "$f"
f=$cm/a2a3/cce_costmodel/cce_costmodel_sync.hpp
expect "$f" '    ::pto::mocker::RecordCceCall("set_mask_count", cycles);'
expect "$f" '    ::pto::mocker::RecordCceCall("set_mask_norm", cycles);'
expect "$f" '    ::pto::mocker::RecordCceCall("set_vector_mask", cycles, mask0, mask1);'
sed -i -e 's|^    ::pto::mocker::RecordCceCall("set_mask_count", cycles);$|    WspCountMode() = true; // wsp fix 8\n&|' \
  -e 's|^    ::pto::mocker::RecordCceCall("set_mask_norm", cycles);$|    WspCountMode() = false; // wsp fix 8\n&|' \
  -e 's|^    ::pto::mocker::RecordCceCall("set_vector_mask", cycles, mask0, mask1);$|    WspVectorCount() = static_cast<uint64_t>(mask1); // wsp fix 8\n&|' "$f"
for f in $cm/a2a3/cce_costmodel/cce_costmodel_vector_compute.hpp \
         $cm/a2a3/cce_costmodel/cce_costmodel_vector_compare.hpp; do
  expect "$f" 'EstimateLinearCycles(repeat'
  sed -i 's|EstimateLinearCycles(repeat\b|EstimateLinearCycles(WspRepeats(repeat, sizeof(*dst))|' "$f"
done

echo "costmodel-fixes: $dst"
