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

/// `c ? a : b` by a mask, for a value computed in float: written as a
/// select, GCC moves the float operations into the branch that uses them
/// (it may not compute them where the source does not, under the default
/// -ftrapping-math) and then cannot vectorize the loop around it.
inline uint32_t select_bits(bool c, uint32_t a, uint32_t b) {
  const uint32_t m = 0u - static_cast<uint32_t>(c);
  return (a & m) | (b & ~m);
}

inline float bf16_to_f32(bf16 x) {
  uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// Round to nearest even; NaN stays NaN (quieted). No branch on the value
/// (see f32_to_f16).
inline bf16 f32_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t nan = (u >> 16) | 0x40u;
  return bf16{static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded)};
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
  u = select_bits(em >= 0x7c00u, 0x7f800000u | moved, u) | sign; // inf / NaN
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// Round to nearest even, overflow to infinity; NaN stays NaN. Every case
/// is computed and the right one selected, without a branch on the value,
/// so that a loop of conversions vectorizes (TCVT converts whole tiles).
inline f16 f32_to_f16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  // Normal halves: rebias the exponent 127 -> 15, round the 13 dropped
  // mantissa bits to nearest even (a carry may reach the exponent, and
  // from 65520 up the result is infinity's pattern).
  const uint32_t rebiased = abs - 0x38000000u;
  const uint32_t normal = (rebiased + 0xfffu + ((rebiased >> 13) & 1u)) >> 13;
  // Below 2^-14 the half is k 2^-24 with k = |f| 2^24 rounded to nearest
  // even: an exact scaling, then the add-and-subtract of 2^23 rounds it
  // (k < 2^10, so the float sum is exact up to the rounding wanted).
  // |f| is first cut to 2^-14 (by its bits: every case is computed, no
  // float value is picked by a branch), so the scaled value converts.
  const uint32_t tiny = abs < 0x38800000u ? abs : 0x38800000u;
  float a;
  std::memcpy(&a, &tiny, sizeof a);
  const float scaled = (a * 16777216.0f + 8388608.0f) - 8388608.0f;
  const uint32_t subnormal = static_cast<uint32_t>(static_cast<int32_t>(scaled));
  uint32_t h = select_bits(abs < 0x38800000u, subnormal, normal);
  h = select_bits(abs >= 0x477ff000u, 0x7c00u, h); // rounds to >= 65520: infinity
  h = select_bits(abs > 0x7f800000u, 0x7e00u, h);  // NaN
  return f16{static_cast<uint16_t>(sign | h)};
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
