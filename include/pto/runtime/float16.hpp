// pto/runtime/float16.hpp - the 16-bit floating-point types of AICore data
// (bf16 and IEEE half) as storage types for host and simulation code: the
// bits, and exact conversions to and from float (round to nearest even).
#ifndef PTO_RUNTIME_FLOAT16_HPP
#define PTO_RUNTIME_FLOAT16_HPP

#include <cstdint>
#include <cstring>

namespace pto {
namespace runtime {

/// bfloat16: the top 16 bits of an IEEE float.
struct bf16 {
  uint16_t bits;
};

/// IEEE 754 binary16.
struct f16 {
  uint16_t bits;
};

inline float bf16_to_f32(bf16 x) {
  uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// Round to nearest even; NaN stays NaN.
inline bf16 f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return bf16{static_cast<uint16_t>((u >> 16) | 0x40u)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return bf16{static_cast<uint16_t>(u >> 16)};
}

inline float f16_to_f32(f16 x) {
  const uint32_t sign = static_cast<uint32_t>(x.bits & 0x8000u) << 16;
  uint32_t exp = (x.bits >> 10) & 0x1fu, man = x.bits & 0x3ffu, u;
  if (exp == 0x1f) { // inf / NaN
    u = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) { // normal
    u = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) { // zero
    u = sign;
  } else { // subnormal: normalize
    exp = 113;
    while (!(man & 0x400u)) {
      man <<= 1;
      --exp;
    }
    u = sign | (exp << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// Round to nearest even, overflow to infinity; NaN stays NaN.
inline f16 f32_to_f16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) // NaN
    return f16{static_cast<uint16_t>(sign | 0x7e00u)};
  if (abs >= 0x477ff000u) // rounds to >= 65520: infinity
    return f16{static_cast<uint16_t>(sign | 0x7c00u)};
  if (abs < 0x38800000u) { // below 2^-14: subnormal or zero
    if (abs < 0x33000000u) // below 2^-25: rounds to zero
      return f16{sign};
    const uint32_t exp = abs >> 23, man = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp; // value = man * 2^(exp - 150) = half * 2^-24
    uint32_t half = man >> shift;
    const uint32_t rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u)))
      ++half;
    return f16{static_cast<uint16_t>(sign | half)};
  }
  uint32_t v = abs - 0x38000000u; // rebias 127 -> 15
  v += 0xfffu + ((v >> 13) & 1u);
  return f16{static_cast<uint16_t>(sign | (v >> 13))};
}

/// Whether this build stores bf16 tensors as IEEE half bits: pto-isa's CPU
/// simulation without std::bfloat16_t holds bfloat16_t as half, and
/// scripts/check-pto-isa.sh then defines WSP_BF16_STORAGE_IS_F16. Host code
/// of emitted programs converts bf16 through the two functions below, so a
/// bf16 it writes reads back right in either build.
#ifdef WSP_BF16_STORAGE_IS_F16
constexpr bool kBf16StoredAsF16 = true;
#else
constexpr bool kBf16StoredAsF16 = false;
#endif

inline float bf16_storage_to_f32(bf16 x) {
  return kBf16StoredAsF16 ? f16_to_f32(f16{x.bits}) : bf16_to_f32(x);
}
inline bf16 f32_to_bf16_storage(float f) {
  return kBf16StoredAsF16 ? bf16{f32_to_f16(f).bits} : f32_to_bf16(f);
}

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_FLOAT16_HPP
