// bf16 values as the form under test stores them, for the operator
// self-checks (examples/ir/*.selfcheck.cpp). The CPU-sim form and
// pto-isa's CPU simulation with std::bfloat16_t store bf16 bits; pto-isa's
// CPU simulation without it (scripts/check-pto-isa.sh then defines
// WSP_BF16_STORAGE_IS_F16) holds bfloat16_t as IEEE half, so the same
// buffers carry half bits. The self-checks draw their inputs through
// toStorage and read every value back through toFloat, so their references
// see exactly what the kernels see, in either form.
#ifndef WSP_EXAMPLES_SELFCHECK_BF16_HPP
#define WSP_EXAMPLES_SELFCHECK_BF16_HPP

#include <cstdint>
#include <cstring>

namespace selfcheck {

using wsp_gen::bf16;

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

} // namespace selfcheck

#endif // WSP_EXAMPLES_SELFCHECK_BF16_HPP
