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
  // The exponent and mantissa moved to a float's place, then scaled by
  // 2^(127 - 15): exact for normal and subnormal halves alike (a subnormal
  // half lands on a float subnormal, which the power-of-two product makes
  // normal). Infinity and NaN keep an all-ones exponent. No branch on the
  // value: the simulation converts every element of a tile this way.
  const uint32_t sign = static_cast<uint32_t>(x.bits & 0x8000u) << 16;
  const uint32_t em = x.bits & 0x7fffu;
  const uint32_t moved = em << 13;
  float f;
  std::memcpy(&f, &moved, sizeof f);
  f *= 5.192296858534828e+33f; // 2^112
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u = em >= 0x7c00u ? 0x7f800000u | moved : u; // inf / NaN
  u |= sign;
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
