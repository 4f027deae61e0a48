// Fused groups of the tile simulation (tile::fused, the lanes the
// CPU-simulation emitter prints for a tile.fuse run): each lane operation
// against its instruction run alone, bit for bit, on every bf16, f16 and
// special float pattern; a chain over a partial valid extent; and the
// synchronization checker, which still sees every instruction of a group.
#include <pto/runtime/tile.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace pto::runtime;
using namespace pto::runtime::tile;

namespace {

// When the lanes may go a row's sixteen columns at a time: blocks a group
// stores share no byte with the others, or address each element alike.
TEST(TileFusedApart, BlocksAreApartOrAlike) {
  float m[8 * 64];
  auto read = [&](int offset) {
    return detail::span(GmRows<const float>{m + offset, 64}, 8, 32);
  };
  auto write = [&](int offset) {
    return detail::span(GmRows<float>{m + offset, 64}, 8, 32);
  };
  // In place, and the other half of each row: apart.
  EXPECT_TRUE(detail::gm_apart({read(0), write(0)}));
  EXPECT_TRUE(detail::gm_apart({read(0), read(32), write(0), write(32)}));
  // Loads alone may overlap.
  EXPECT_TRUE(detail::gm_apart({read(0), read(16)}));
  // A store into what a load reads, shifted: not apart, either way round.
  EXPECT_FALSE(detail::gm_apart({read(0), write(16)}));
  EXPECT_FALSE(detail::gm_apart({write(16), read(0)}));
  EXPECT_FALSE(detail::gm_apart({write(0), write(8)}));
  // Another stride, or another element size at the same address: not alike.
  EXPECT_FALSE(
      detail::gm_apart({read(0), detail::span(GmRows<float>{m, 32}, 8, 32)}));
  EXPECT_FALSE(detail::gm_apart(
      {read(0),
       detail::span(GmRows<int16_t>{reinterpret_cast<int16_t *>(m), 128}, 8,
                    64)}));
  // A block past the end of another: apart.
  EXPECT_TRUE(detail::gm_apart(
      {read(0), detail::span(GmRows<float>{m + 480, 64}, 1, 32)}));
}

// The lanes exist where the simulation uses the host's vector extensions
// (PTO_TILE_X86: x86 builds, but for ThreadSanitizer's, which runs the
// portable code).
#ifdef PTO_TILE_X86

constexpr Unit V = Unit::Vector;
constexpr int kRows = 8, kCols = 48;
using F32 = Tile<Loc::Vec, float, kRows, kCols>;
using I32 = Tile<Loc::Vec, int32_t, kRows, kCols>;
using I16 = Tile<Loc::Vec, int16_t, kRows, kCols>;
using Bf16 = Tile<Loc::Vec, bf16, kRows, kCols>;
using F16 = Tile<Loc::Vec, f16, kRows, kCols>;
using I8 = Tile<Loc::Vec, int8_t, kRows, kCols>;
using ColTile = Tile<Loc::Vec, float, 1, kCols>;
using RowTile = Tile<Loc::Vec, float, kRows, 1, Layout::ColMajor>;
constexpr int kElems = kRows * kCols;

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

/// Floats the conversions and arithmetic treat specially: NaNs (quiet,
/// signalling, negative), infinities, zeros, denormals, the ties and
/// saturation bounds of the integer and half conversions, then a sweep of
/// the bit patterns.
std::vector<float> interesting_floats() {
  std::vector<float> v;
  for (uint32_t b :
       {0x7fc00000u, 0xffc12345u, 0x7f800001u, 0x7f800000u, 0xff800000u,
        0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu,
        0x00800000u, 0x33000000u, 0x387fc000u, 0x477fefffu, 0x477ff000u,
        0x4f000000u, 0x4effffffu, 0xcf000000u, 0xcf000001u, 0x7f7fffffu,
        0x3f808000u, 0x3f818000u, 0x3f80ffffu})
    v.push_back(from_bits(b));
  for (float f = -300.0f; f <= 300.0f; f += 0.25f)
    v.push_back(f);
  for (uint64_t u = 0; u <= 0xffffffffu; u += 1048573)
    v.push_back(from_bits(uint32_t(u)));
  return v;
}

template <typename TileT> void place(TileT &t, int64_t offset) {
  t = TileT(kRows, kCols);
  assign(t, offset);
}

/// Every byte of the tile's static extent.
template <typename TileT> std::vector<uint8_t> bytes_of(const TileT &t) {
  const auto *p = reinterpret_cast<const uint8_t *>(t.data);
  return std::vector<uint8_t>(p, p + TileT::bytes);
}
template <typename TileT> void poison(TileT &t) {
  std::memset(t.data, 0x5a, TileT::bytes);
}

/// Runs `instructions` alone and then as a fused group with `lanes` over
/// `dst`'s valid extent, from a poisoned `dst` both times: every byte of
/// dst's static extent must be the same (the valid elements computed
/// alike, the rest untouched).
template <typename D, typename Instructions, typename Lanes>
void expect_fused_is_unfused(D &dst, Instructions instructions, Lanes lanes,
                             const char *what) {
  poison(dst);
  instructions();
  std::vector<uint8_t> want = bytes_of(dst);
  poison(dst);
  fused(instructions, dst, lanes);
  std::vector<uint8_t> got = bytes_of(dst);
  for (size_t i = 0; i < want.size(); ++i)
    if (want[i] != got[i]) {
      ADD_FAILURE() << what << ": byte " << i << " (element "
                    << i / sizeof(typename D::DType) << ") is " << int(got[i])
                    << ", the instructions give " << int(want[i]);
      return;
    }
}

class TileFusedTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!detail::host_has_avx512())
      GTEST_SKIP() << "fused groups run their instructions without AVX-512";
  }
  KernelScope scope;
};

TEST_F(TileFusedTest, ConversionsGiveTheInstructionsBits) {
  Bf16 b;
  F16 h;
  F32 f, g;
  I32 i;
  I8 q;
  I16 s;
  place(b, 0);
  place(h, 1024);
  place(f, 2048);
  place(g, 4096);
  place(i, 6144);
  place(q, 8192);
  place(s, 9216);
  // Every bf16 and half pattern.
  for (uint32_t base = 0; base < 65536; base += kElems) {
    for (int e = 0; e < kElems; ++e) {
      b.data[e].bits = uint16_t(base + e);
      h.data[e].bits = uint16_t(base + e);
    }
    expect_fused_is_unfused(
        f, [&] { cvt(f, b); },
        [&](auto &l, int r, int c)
            PTO_TILE_FUSED { l.store(f, r, c, l.to_f32(l.load(b, r, c))); },
        "bf16 -> f32");
    expect_fused_is_unfused(
        q, [&] { cvt(q, h); },
        [&](auto &l, int r, int c)
            PTO_TILE_FUSED { l.store(q, r, c, l.to_i8(l.load(h, r, c))); },
        "f16 -> i8");
  }
  std::vector<float> floats = interesting_floats();
  for (size_t base = 0; base < floats.size(); base += kElems) {
    for (int e = 0; e < kElems; ++e) {
      g.data[e] = floats[(base + e) % floats.size()];
      // Integers across half's range and beyond, and the int32 bounds.
      i.data[e] = e % 7 == 0 ? std::numeric_limits<int32_t>::min() + e
                  : e % 11 == 0
                      ? std::numeric_limits<int32_t>::max() - e
                      : int32_t((base * 131 + e * 977) % 200003) - 100001;
    }
    expect_fused_is_unfused(
        b, [&] { cvt(b, g); },
        [&](auto &l, int r, int c)
            PTO_TILE_FUSED { l.store(b, r, c, l.to_bf16(l.load(g, r, c))); },
        "f32 -> bf16");
    expect_fused_is_unfused(
        i, [&] { cvt(i, g); },
        [&](auto &l, int r, int c)
            PTO_TILE_FUSED { l.store(i, r, c, l.to_i32(l.load(g, r, c))); },
        "f32 -> i32");
    // (i was just overwritten: refill it from the pattern above.)
    for (int e = 0; e < kElems; ++e)
      i.data[e] = int32_t((base * 131 + e * 977) % 200003) - 100001 +
                  (e % 5 == 0 ? 65504 : 0);
    expect_fused_is_unfused(
        h, [&] { cvt(h, i); },
        [&](auto &l, int r, int c)
            PTO_TILE_FUSED { l.store(h, r, c, l.to_f16(l.load(i, r, c))); },
        "i32 -> f16");
  }
  // i32 -> f16 -> i8 with the half in registers narrows the integers
  // directly: integers around every bound the two roundings have (int8's,
  // 2048 where halves stop being exact integers, half's largest finite,
  // int32's) and a sweep.
  std::vector<int32_t> ints;
  for (int32_t bound : {0, 127, 128, 2048, 4096, 65504, 65520, 1 << 24})
    for (int32_t d = -40; d <= 40; ++d) {
      ints.push_back(bound + d);
      ints.push_back(-bound + d);
    }
  for (int64_t v = std::numeric_limits<int32_t>::min();
       v <= std::numeric_limits<int32_t>::max(); v += 65537 * 131)
    ints.push_back(int32_t(v));
  ints.push_back(std::numeric_limits<int32_t>::max());
  for (size_t base = 0; base < ints.size(); base += kElems) {
    for (int e = 0; e < kElems; ++e)
      i.data[e] = ints[(base + e) % ints.size()];
    expect_fused_is_unfused(
        q,
        [&] {
          cvt(h, i);
          cvt(q, h);
        },
        [&](auto &l, int r, int c) PTO_TILE_FUSED {
          l.store(q, r, c, l.to_i8(l.to_f16(l.load(i, r, c))));
        },
        "i32 -> f16 -> i8");
  }
  // f32 -> i32 -> f16 -> i8 with the int32 and the half in registers
  // clamps and rounds the float directly: the special floats, and the
  // ties and bounds around int8's range.
  std::vector<float> near_int8 = interesting_floats();
  for (float f = -130.0f; f <= 130.0f; f += 0.125f)
    near_int8.push_back(f);
  for (size_t base = 0; base < near_int8.size(); base += kElems) {
    for (int e = 0; e < kElems; ++e)
      g.data[e] = near_int8[(base + e) % near_int8.size()];
    expect_fused_is_unfused(
        q,
        [&] {
          cvt(i, g);
          cvt(h, i);
          cvt(q, h);
        },
        [&](auto &l, int r, int c) PTO_TILE_FUSED {
          l.store(q, r, c, l.to_i8(l.to_f16(l.to_i32(l.load(g, r, c)))));
        },
        "f32 -> i32 -> f16 -> i8");
    // The quantizations' path since: through int16, whose half is one
    // conversion on A2/A3.
    expect_fused_is_unfused(
        q,
        [&] {
          cvt(s, g);
          cvt(h, s);
          cvt(q, h);
        },
        [&](auto &l, int r, int c) PTO_TILE_FUSED {
          l.store(q, r, c, l.to_i8(l.to_f16(l.to_i16(l.load(g, r, c)))));
        },
        "f32 -> i16 -> f16 -> i8");
  }
  // f32 -> i16 and i16 -> f16 each, through memory: the special floats
  // and int16's bounds (saturation), and every int16 pattern.
  std::vector<float> wide = interesting_floats();
  for (float bound : {32767.0f, 32768.0f, -32768.0f, -32769.0f, 2048.0f})
    for (float d = -2.0f; d <= 2.0f; d += 0.25f)
      wide.push_back(bound + d);
  for (size_t base = 0; base < wide.size(); base += kElems) {
    for (int e = 0; e < kElems; ++e)
      g.data[e] = wide[(base + e) % wide.size()];
    expect_fused_is_unfused(
        s, [&] { cvt(s, g); },
        [&](auto &l, int r, int c)
            PTO_TILE_FUSED { l.store(s, r, c, l.to_i16(l.load(g, r, c))); },
        "f32 -> i16");
  }
  for (uint32_t base = 0; base < 65536; base += kElems) {
    for (int e = 0; e < kElems; ++e)
      s.data[e] = int16_t(uint16_t(base + e));
    expect_fused_is_unfused(
        h, [&] { cvt(h, s); },
        [&](auto &l, int r, int c)
            PTO_TILE_FUSED { l.store(h, r, c, l.to_f16(l.load(s, r, c))); },
        "i16 -> f16");
    expect_fused_is_unfused(
        q,
        [&] {
          cvt(h, s);
          cvt(q, h);
        },
        [&](auto &l, int r, int c) PTO_TILE_FUSED {
          l.store(q, r, c, l.to_i8(l.to_f16(l.load(s, r, c))));
        },
        "i16 -> f16 -> i8");
  }
}

// A product and a sum in the lanes round twice, as their instructions do:
// no fused multiply-add (GCC contracts plain intrinsics by default). On
// random floats a fused x * y - z * w differs in many lanes.
TEST_F(TileFusedTest, ProductsAndSumsAreNotContracted) {
  F32 a, b, p, q;
  place(a, 0);
  place(b, 2048);
  place(p, 4096);
  place(q, 6144);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-1, 1);
  for (int e = 0; e < kElems; ++e) {
    a.data[e] = d(rng);
    b.data[e] = d(rng);
  }
  expect_fused_is_unfused(
      p,
      [&] {
        mul(p, a, b);
        mul(q, b, b);
        sub(p, p, q);
        mul(q, a, a);
        add(p, p, q);
      },
      [=](auto &l, int r, int c) PTO_TILE_FUSED {
        auto x = l.load(a, r, c), y = l.load(b, r, c);
        auto v = l.sub(l.mul(x, y), l.mul(y, y));
        l.store(p, r, c, l.add(v, l.mul(x, x)));
      },
      "x * y - y * y + x * x");
}

// Both forms of the lanes convert to bf16 as TCVT does: Row16's integer
// rounding, and Row16Bf16's VCVTNEPS2BF16 with its denormals sent to the
// former (the host picks one; each is run here).
TEST_F(TileFusedTest, BothLaneFormsConvertToBf16Alike) {
  F32 g;
  Bf16 b;
  place(g, 0);
  place(b, 2048);
  std::vector<float> floats = interesting_floats();
  for (size_t base = 0; base < floats.size(); base += kElems) {
    for (int e = 0; e < kElems; ++e)
      g.data[e] = floats[(base + e) % floats.size()];
    poison(b);
    cvt(b, g);
    const std::vector<uint8_t> want = bytes_of(b);
    auto lanes = [=](auto &l, int r, int c) PTO_TILE_FUSED {
      l.store(b, r, c, l.to_bf16(l.load(g, r, c)));
    };
    poison(b);
    detail::run_lanes<detail::Row16>(kRows, kCols, lanes);
    EXPECT_EQ(bytes_of(b), want) << "Row16, from element " << base;
    if (!detail::host_has_avx512_bf16())
      continue;
    poison(b);
    detail::run_lanes<detail::Row16Bf16>(kRows, kCols, lanes);
    EXPECT_EQ(bytes_of(b), want) << "Row16Bf16, from element " << base;
  }
}

TEST_F(TileFusedTest, ArithmeticGivesTheInstructionsBits) {
  F32 a, b, d, tmp;
  ColTile col;
  RowTile row;
  place(a, 0);
  place(b, 2048);
  place(d, 4096);
  place(tmp, 8192);
  col = ColTile(1, kCols);
  assign(col, 6144);
  row = RowTile(kRows, 1);
  assign(row, 6400);
  std::vector<float> floats = interesting_floats();
  std::mt19937 rng(7);
  for (size_t base = 0; base < floats.size(); base += kElems) {
    for (int e = 0; e < kElems; ++e) {
      a.data[e] = floats[(base + e) % floats.size()];
      b.data[e] = floats[rng() % floats.size()];
    }
    for (int c = 0; c < kCols; ++c)
      col.data[c] = floats[rng() % floats.size()];
    for (int r = 0; r < kRows; ++r)
      row.data[r] = floats[rng() % floats.size()];
    const float s = floats[rng() % floats.size()];
#define PTO_FUSED_BINARY(NAME)                                                 \
  expect_fused_is_unfused(                                                     \
      d, [&] { NAME(d, a, b); },                                               \
      [&](auto &l, int r, int c) PTO_TILE_FUSED {                              \
        l.store(d, r, c, l.NAME(l.load(a, r, c), l.load(b, r, c)));            \
      },                                                                       \
      #NAME);                                                                  \
  expect_fused_is_unfused(                                                     \
      d, [&] { NAME##s(d, a, s); },                                            \
      [&](auto &l, int r, int c) PTO_TILE_FUSED {                              \
        l.store(d, r, c, l.NAME(l.load(a, r, c), l.scalar(s)));                \
      },                                                                       \
      #NAME "s");                                                              \
  expect_fused_is_unfused(                                                     \
      d, [&] { rowexpand##NAME(d, a, row, tmp); },                             \
      [&](auto &l, int r, int c) PTO_TILE_FUSED {                              \
        l.store(d, r, c, l.NAME(l.load(a, r, c), l.row(row, r)));              \
      },                                                                       \
      "rowexpand" #NAME);                                                      \
  expect_fused_is_unfused(                                                     \
      d, [&] { colexpand##NAME(d, a, col); },                                  \
      [&](auto &l, int r, int c) PTO_TILE_FUSED {                              \
        l.store(d, r, c, l.NAME(l.load(a, r, c), l.col(col, c)));              \
      },                                                                       \
      "colexpand" #NAME)
    PTO_FUSED_BINARY(add);
    PTO_FUSED_BINARY(sub);
    PTO_FUSED_BINARY(mul);
    PTO_FUSED_BINARY(div);
    PTO_FUSED_BINARY(max);
    PTO_FUSED_BINARY(min);
#undef PTO_FUSED_BINARY
    expect_fused_is_unfused(
        d, [&] { tile::abs(d, a); },
        [&](auto &l, int r, int c)
            PTO_TILE_FUSED { l.store(d, r, c, l.abs(l.load(a, r, c))); },
        "abs");
  }
}

// scale_dynamic_quant's second pass as the emitter prints it, over a
// partial valid extent (5 of 8 rows, 40 of 48 columns: the last lanes of
// each row masked), in place on its f32 tile and with the int32 and half
// intermediates left in registers: the int8 result and the f32 tile are
// the instructions', and the intermediates' tiles are not written.
TEST_F(TileFusedTest, ChainOverAPartialExtent) {
  Bf16 xb(5, 40);
  F32 xf(5, 40), sq(5, 40);
  I32 qi(5, 40);
  F16 qh(5, 40);
  I8 q8(5, 40);
  ColTile col(1, 40);
  RowTile row(5, 1);
  assign(xb, 0);
  assign(xf, 1024);
  assign(sq, 3072);
  assign(qi, 5120);
  assign(qh, 7168);
  assign(q8, 8192);
  assign(col, 8704);
  assign(row, 8960);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-3, 3);
  for (int e = 0; e < kElems; ++e)
    xb.data[e] = f32_to_bf16(d(rng));
  for (int c = 0; c < kCols; ++c)
    col.data[c] = d(rng);
  for (int r = 0; r < kRows; ++r)
    row.data[r] = 127.0f / (1.0f + r);
  auto instructions = [&] {
    cvt(xf, xb);
    colexpandmul(xf, xf, col);
    barrier(V, Pipe::V);
    rowexpandmul(xf, xf, row, sq);
    cvt(qi, xf);
    cvt(qh, qi);
    cvt(q8, qh);
  };
  poison(xf);
  poison(q8);
  instructions();
  std::vector<uint8_t> want_f = bytes_of(xf), want_q = bytes_of(q8);
  poison(xf);
  poison(q8);
  poison(qi);
  poison(qh);
  fused(instructions, xf, [&](auto &l, int r, int c) PTO_TILE_FUSED {
    auto x = l.mul(l.to_f32(l.load(xb, r, c)), l.col(col, c));
    x = l.mul(x, l.row(row, r));
    l.store(xf, r, c, x);
    l.store(q8, r, c, l.to_i8(l.to_f16(l.to_i32(x))));
  });
  EXPECT_EQ(bytes_of(xf), want_f);
  EXPECT_EQ(bytes_of(q8), want_q);
  std::vector<uint8_t> poisoned(I32::bytes, 0x5a);
  EXPECT_EQ(bytes_of(qi), poisoned);
}

// Row reductions in a group keep each row's state across its groups of
// sixteen and give the instruction's bits: sums in TROWSUM's order (eight
// lanes, their tree, the tail; a NaN's payload aside), extremes with the
// fold's rules for NaNs
// (only what follows the last counts) and zeros (the last one's sign), on
// every valid width from 1 to 48 columns, over random rows and rows with
// NaNs, zeros and infinities placed at group boundaries.
TEST_F(TileFusedTest, RowReductionsGiveTheInstructionsBits) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-100, 100);
  const float specials[] = {
      NAN, -0.0f, 0.0f, INFINITY, -INFINITY, from_bits(0xffc12345u), 1e-40f};
  for (int cols = 1; cols <= kCols; ++cols) {
    F32 x(kRows, cols), tmp(kRows, cols);
    RowTile sum(kRows, 1), mx(kRows, 1), mn(kRows, 1);
    assign(x, 0);
    assign(tmp, 2048);
    assign(sum, 4096);
    assign(mx, 4128);
    assign(mn, 4160);
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kCols; ++c) {
        float v = d(rng);
        // Rows 0-2 random; the others with specials at chosen places.
        if (r >= 3 &&
            (c == cols - 1 || c % 16 == 15 || c % 16 == 0 || rng() % 5 == 0))
          v = specials[rng() % (r == 3 ? 3 : 7)];
        x.at(r, c) = v;
      }
    auto instructions = [&] {
      rowsum(sum, x, tmp);
      rowmax(mx, x, tmp);
      rowmin(mn, x, tmp);
    };
    poison(sum);
    poison(mx);
    poison(mn);
    instructions();
    const std::vector<uint8_t> want_sum = bytes_of(sum),
                               want_max = bytes_of(mx), want_min = bytes_of(mn);
    poison(sum);
    poison(mx);
    poison(mn);
    fused(instructions, x, [=](auto &l, int r, int c) PTO_TILE_FUSED {
      auto v = l.load(x, r, c);
      l.rowsum(sum, r, 0, v);
      l.rowmax(mx, r, 1, v);
      l.rowmin(mn, r, 2, v);
    });
    // A sum with NaNs of two payloads is a NaN whose payload depends on
    // which operand the host adds first, which the compiler may swap in the
    // instruction's loop (IEEE leaves it open): any NaN then.
    for (int r = 0; r < kRows; ++r) {
      float w;
      std::memcpy(&w, want_sum.data() + r * sizeof(float), sizeof w);
      if (std::isnan(w) && std::isnan(sum.at(r, 0)))
        std::memcpy(sum.data + r, &w, sizeof w);
    }
    EXPECT_EQ(bytes_of(sum), want_sum) << cols << " columns";
    EXPECT_EQ(bytes_of(mx), want_max) << cols << " columns";
    EXPECT_EQ(bytes_of(mn), want_min) << cols << " columns";
  }
}

// A row reduction in pieces (tile-fold-row-reductions' two steps) in a
// group gives the two instructions' bits: each piece of a row reduced as a
// row of the pieces' view into the partials, then each row's partials as a
// row of the [rows x k] view. Rows of 128 in 8 pieces of 16 and in 2 of 64,
// 5 valid rows of 8, random and with NaNs, zeros and infinities at piece
// boundaries.
template <int K> void checkPieces(std::mt19937 &rng) {
  constexpr int kR = 8, kC = 128, kPiece = kC / K, kValid = 5;
  using Row = Tile<Loc::Vec, float, kR, kC>;
  using Pieces = Tile<Loc::Vec, float, K * kR, kPiece>;
  using Partials = Tile<Loc::Vec, float, K * kR, 1, Layout::ColMajor>;
  using Flat = Tile<Loc::Vec, float, 1, K * kR>;
  using ByRow = Tile<Loc::Vec, float, kR, K>;
  using Reduced = Tile<Loc::Vec, float, kR, 1, Layout::ColMajor>;
  std::uniform_real_distribution<float> d(-100, 100);
  const float specials[] = {
      NAN, -0.0f, 0.0f, INFINITY, -INFINITY, from_bits(0xffc12345u), 1e-40f};
  Row x(kValid, kC);
  assign(x, 0);
  Partials part[3] = {Partials(K * kValid, 1), Partials(K * kValid, 1),
                      Partials(K * kValid, 1)};
  Reduced out[3] = {Reduced(kValid, 1), Reduced(kValid, 1), Reduced(kValid, 1)};
  for (int i = 0; i < 3; ++i) {
    assign(part[i], Row::bytes + i * 512);
    assign(out[i], Row::bytes + 2048 + i * 64);
  }
  for (int r = 0; r < kR; ++r)
    for (int c = 0; c < kC; ++c)
      x.at(r, c) = r >= 2 && (c % kPiece == 0 || c % kPiece == kPiece - 1 ||
                              rng() % 7 == 0)
                       ? specials[rng() % (r == 2 ? 3 : 7)]
                       : d(rng);
  const Pieces pieces =
      subview<Pieces>(reshape<Pieces>(x), 0, 0, K * kValid, kPiece);
  ByRow by[3];
  for (int i = 0; i < 3; ++i)
    by[i] =
        subview<ByRow>(reshape<ByRow>(reshape<Flat>(part[i])), 0, 0, kValid, K);
  auto instructions = [&] {
    // (Each step writes its source as scratch: a barrier before the next
    // reads it.)
    rowsum(part[0], pieces, pieces);
    barrier(V, Pipe::V);
    rowmax(part[1], pieces, pieces);
    barrier(V, Pipe::V);
    rowmin(part[2], pieces, pieces);
    barrier(V, Pipe::V);
    rowsum(out[0], by[0], by[0]);
    rowmax(out[1], by[1], by[1]);
    rowmin(out[2], by[2], by[2]);
  };
  std::vector<uint8_t> want[3];
  for (Reduced &o : out)
    poison(o);
  instructions();
  for (int i = 0; i < 3; ++i) {
    want[i] = bytes_of(out[i]);
    poison(out[i]);
    poison(part[i]);
  }
  const Partials ps = part[0], pm = part[1], pn = part[2];
  const Reduced sum = out[0], mx = out[1], mn = out[2];
  fused(instructions, x, [=](auto &l, int r, int c) PTO_TILE_FUSED {
    auto v = l.load(x, r, c);
    l.rowsum_pieces(ps, r, 0, v, K, kPiece);
    l.rowmax_pieces(pm, r, 1, v, K, kPiece);
    l.rowmin_pieces(pn, r, 2, v, K, kPiece);
    l.rowsum_of_pieces(sum, r, ps, K);
    l.rowmax_of_pieces(mx, r, pm, K);
    l.rowmin_of_pieces(mn, r, pn, K);
  });
  // (A sum of NaNs of two payloads: any NaN, as in the test above.)
  for (int r = 0; r < kValid; ++r) {
    float w;
    std::memcpy(&w, want[0].data() + r * sizeof(float), sizeof w);
    if (std::isnan(w) && std::isnan(sum.at(r, 0)))
      std::memcpy(sum.data + r, &w, sizeof w);
  }
  EXPECT_EQ(bytes_of(sum), want[0]) << K << " pieces";
  EXPECT_EQ(bytes_of(mx), want[1]) << K << " pieces";
  EXPECT_EQ(bytes_of(mn), want[2]) << K << " pieces";
}

TEST_F(TileFusedTest, RowReductionsInPiecesGiveTheInstructionsBits) {
  std::mt19937 rng(12);
  for (int round = 0; round < 20; ++round) {
    checkPieces<8>(rng);
    checkPieces<2>(rng);
  }
}

// Loads and stores of global memory in a group, done by the lanes: over a
// partial extent (5 rows of 40 columns) of rows exactly that long in
// memory, so a lane reading or writing past a row's end would touch the
// next row or, in the last, beyond the allocation (AddressSanitizer's
// builds see it). The loaded tile is not written on chip.
TEST_F(TileFusedTest, LoadsAndStoresOfGlobalMemory) {
  constexpr int kR = 5, kC = 40;
  std::vector<bf16> x(kR * kC), y(kR * kC), want(kR * kC);
  std::vector<float> s(kC);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-3, 3);
  for (bf16 &v : x)
    v = f32_to_bf16(d(rng));
  for (float &v : s)
    v = d(rng);
  Bf16 xb(kR, kC);
  F32 xf(kR, kC);
  ColTile col(1, kC);
  assign(xb, 0);
  assign(xf, 1024);
  assign(col, 3072);
  load(col, s.data(), 0);
  barrier(V, Pipe::V); // (the loaded column is read below)
  auto instructions = [&](bf16 *out) {
    return [&, out] {
      load(xb, x.data(), kC);
      set_flag(V, Pipe::MTE2, Pipe::V, 0);
      wait_flag(V, Pipe::MTE2, Pipe::V, 0);
      cvt(xf, xb);
      colexpandmul(xf, xf, col);
      cvt(xb, xf);
      set_flag(V, Pipe::V, Pipe::MTE3, 0);
      wait_flag(V, Pipe::V, Pipe::MTE3, 0);
      store(out, kC, xb);
    };
  };
  instructions(want.data())();
  barrier_all(V);
  poison(xb);
  const GmRows<const bf16> in{x.data(), kC};
  const GmRows<bf16> out{y.data(), kC};
  fused(
      instructions(y.data()), xb,
      [=](auto &l, int r, int c) PTO_TILE_FUSED {
        auto v = l.mul(l.to_f32(l.load(in, r, c)), l.col(col, c));
        l.store(out, r, c, l.to_bf16(v));
      },
      in, out);
  for (int i = 0; i < kR * kC; ++i)
    ASSERT_EQ(y[size_t(i)].bits, want[size_t(i)].bits) << "element " << i;
  EXPECT_EQ(bytes_of(xb), std::vector<uint8_t>(Bf16::bytes, 0x5a));
}

// The group's instructions still run for their checks: a broadcast read
// right after its tile was written needs pipe_barrier(V) in a group too.
TEST_F(TileFusedTest, TheCheckerSeesEveryInstruction) {
  F32 a, d;
  ColTile col(1, kCols);
  place(a, 0);
  place(d, 2048);
  assign(col, 4096);
  auto missing_barrier = [&] {
    colexpandmul(col, col, col); // (a [1 x 48] write of the column)
    colexpandmul(d, a, col);
  };
  EXPECT_DEATH(fused(missing_barrier, d,
                     [&](auto &l, int r, int c) PTO_TILE_FUSED {
                       l.store(d, r, c, l.mul(l.load(a, r, c), l.col(col, c)));
                     }),
               "pipe_barrier\\(V\\)");
}

#endif // PTO_TILE_X86

} // namespace
