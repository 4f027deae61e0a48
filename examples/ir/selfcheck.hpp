// What the operator self-checks (examples/ir/*.selfcheck.cpp) share: the
// form under test (the CPU-sim source is force-included before this file;
// the device form, WSP_DEVICE_FORM in scripts/check-pto-isa.sh, is called
// through the ABI header's typed calls of the AICPU entries), views of
// vectors, and bf16 values as the form stores them. The CPU-sim form and
// pto-isa's CPU simulation with std::bfloat16_t store bf16 bits; pto-isa's
// CPU simulation without it (scripts/check-pto-isa.sh then defines
// WSP_BF16_STORAGE_IS_F16) holds bfloat16_t as IEEE half, so the same
// buffers carry half bits. The self-checks draw their inputs through
// toStorage and read every value back through toFloat, so their references
// see exactly what the kernels see, in either form.
#ifndef WSP_EXAMPLES_SELFCHECK_HPP
#define WSP_EXAMPLES_SELFCHECK_HPP

#ifdef WSP_DEVICE_FORM
#include "wsp_module_abi.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

namespace selfcheck {

using wsp_gen::bf16;
using wsp_gen::MemRef;

/// A rank-1 view of a whole vector.
template <typename T> MemRef<T, 1> vec(std::vector<T> &v) {
  return MemRef<T, 1>{v.data(), {int64_t(v.size())}};
}

#ifdef WSP_BF16_STORAGE_IS_F16
/// Half the spacing of the storage format's subnormals: the most a value
/// rounded to storage can move below the normal range (2^-25 for half).
constexpr double kSubnormalRounding = 0x1p-25;
inline float toFloat(bf16 v) {
  return ::pto::runtime::f16_to_f32(::pto::runtime::f16{v.bits});
}
inline bf16 toStorage(float f) {
  bf16 v;
  v.bits = ::pto::runtime::f32_to_f16(f).bits;
  return v;
}
#else
/// Half the spacing of bf16's subnormals (2^-134).
constexpr double kSubnormalRounding = 0x1p-134;
inline float toFloat(bf16 v) {
  uint32_t bits = uint32_t(v.bits) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
/// Round to nearest even (no NaNs occur in the self-checks' values).
inline bf16 toStorage(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits += 0x7fff + ((bits >> 16) & 1);
  bf16 v;
  v.bits = uint16_t(bits >> 16);
  return v;
}
#endif

/// A NaN pattern no kernel writes: it marks outputs nothing may touch.
inline bf16 sentinel() {
  bf16 v;
  v.bits = 0x7fc1;
  return v;
}

/// Whether every value still holds the sentinel.
inline bool allSentinel(const std::vector<bf16> &values) {
  return std::all_of(values.begin(), values.end(),
                     [](bf16 v) { return v.bits == sentinel().bits; });
}

/// Names the case that runs next: the CPU simulation's plan charts (wspc
/// --run --plan-svg) carry it in their titles and file names
/// (pto/runtime/plan_svg.hpp). Nothing in the device form.
inline void nameCase(const char *name) {
#ifndef WSP_DEVICE_FORM
  ::pto::runtime::sim::set_plan_case(name);
#else
  (void)name;
#endif
}

/// The rank counts a self-check of a program with collectives runs: the
/// one `wspc --run --ranks N` asks for (WSP_RANKS), else `defaults`.
/// Returns an empty list for a malformed WSP_RANKS.
inline std::vector<int64_t> rankCounts(std::vector<int64_t> defaults) {
  const char *asked = std::getenv("WSP_RANKS");
  if (!asked)
    return defaults;
  char *end = nullptr;
  const long n = std::strtol(asked, &end, 10);
  if (end == asked || *end || n < 1 || n > 64) {
    std::printf("WSP_RANKS=%s: not a rank count from 1 to 64\n", asked);
    return {};
  }
  return {int64_t(n)};
}

/// KV data parallel over n ranks: rank r's requests [first, first +
/// count), ceil(batch / n) to a rank (the last ranks may get fewer, none).
struct RankRequests {
  int64_t first, count;
};
inline RankRequests rankRequests(int64_t batch, int64_t r, int64_t n) {
  const int64_t c = (batch + n - 1) / n, first = std::min(r * c, batch);
  return {first, std::min(c, batch - first)};
}

/// The kv_ids of a batch whose ranks keep their requests in tables of
/// their own, rows reversed: request first + j at row count - 1 - j.
inline std::vector<int32_t> reversedRankRows(int64_t batch, int64_t n) {
  std::vector<int32_t> ids(size_t(batch), 0);
  for (int64_t owner = 0; owner < n; ++owner) {
    const RankRequests part = rankRequests(batch, owner, n);
    for (int64_t j = 0; j < part.count; ++j)
      ids[size_t(part.first + j)] = int32_t(part.count - 1 - j);
  }
  return ids;
}

#ifndef WSP_BF16_STORAGE_IS_F16
/// Rows at the ends of bf16's range, for the norms' self-checks (their
/// f32 sums of squares overflow, or eps dominates them): row `kind` of
/// kExtremeKinds, `cols` values as floats (bf16 values, apart from rounding
/// to bf16 where the magnitude is random). By kind: |x| around 1e18, 1e30
/// and bf16's largest (3.39e38), 1e-30, subnormal, zero, the first half 1
/// and the second 1e30 and the other way round, one value of 3e38 among
/// ones, 4.5e17 (the sum of squares of a 1024-column chunk finite, of 2048
/// columns not), an ordinary row, and 1e19. Half storage holds none of
/// these.
constexpr int kExtremeKinds = 12;
inline std::vector<float> extremeRow(int kind, int64_t cols,
                                     std::mt19937 &rng) {
  const float bf16Max = 0x1.fep127f;
  std::uniform_real_distribution<float> mag(0.5f, 1.5f);
  std::bernoulli_distribution negative;
  std::vector<float> v(static_cast<size_t>(cols));
  for (int64_t c = 0; c < cols; ++c) {
    const float m = mag(rng) * (negative(rng) ? -1.f : 1.f);
    const bool low = c < cols / 2;
    const float values[kExtremeKinds] = {1e18f * m,
                                         1e30f * m,
                                         std::copysign(bf16Max, m),
                                         1e-30f * m,
                                         std::ldexp(std::round(m * 64), -133),
                                         0.f,
                                         low ? m : 1e30f * m,
                                         low ? 1e30f * m : m,
                                         c == 5 ? 3e38f : m,
                                         std::copysign(4.5e17f, m),
                                         4 * m,
                                         1e19f * m};
    v[size_t(c)] = values[kind];
  }
  return v;
}
#endif

/// Prints the line of a run-time error case: `what` must have returned
/// INVALID_PARAMS (3) with `outputs` untouched. Returns whether it did.
inline bool reportInvalid(const char *what, int32_t status, bool untouched,
                          const char *outputs) {
  bool ok = status == 3 && untouched;
  std::printf("%s: %s (status %d, %s %s)\n", what, ok ? "ok" : "MISMATCH",
              status, outputs, untouched ? "untouched" : "WRITTEN");
  return ok;
}

#ifndef WSP_DEVICE_FORM
/// A kernel fault (a tile load or store, or a page, outside its memory:
/// pto/runtime/sim_core.hpp) stops its core, and the thread's later
/// launches run nothing until it is cleared, which no self-check does: one
/// is still pending when the self-check ends, which then says so and fails.
struct FaultCheck {
  ~FaultCheck() {
    if (const char *fault = ::pto::runtime::sim::fault()) {
      std::fprintf(stderr, "kernel fault: %s\n", fault);
      std::fflush(stdout);
      std::_Exit(1);
    }
  }
};
inline FaultCheck faultCheck;
#endif

} // namespace selfcheck

#endif // WSP_EXAMPLES_SELFCHECK_HPP
