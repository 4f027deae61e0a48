// The tile simulation (pto/runtime/tile.hpp): every instruction against a
// naive loop over plain arrays, the budget and alignment checks, and the
// synchronization checker (each missing order caught, correct programs
// accepted).
#include <pto/runtime/tile.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace pto::runtime;
using namespace pto::runtime::tile;

namespace {

constexpr Unit V = Unit::Vector;
constexpr Unit C = Unit::Cube;

std::vector<float> random_floats(size_t n, unsigned seed, float lo = -1,
                                 float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

/// Expects `f` to stop with a kernel fault whose message contains `what`.
template <typename F> void expectFault(F &&f, const std::string &what) {
  try {
    f();
    ADD_FAILURE() << "no fault; expected: " << what;
  } catch (const sim::KernelFault &fault) {
    EXPECT_NE(std::string(fault.what()).find(what), std::string::npos)
        << fault.what();
  }
}

using Vec16x64 = Tile<Loc::Vec, float, 16, 64>;
using Col16 = Tile<Loc::Vec, float, 16, 1, Layout::ColMajor>;
using Row64 = Tile<Loc::Vec, float, 1, 64>;

// Loads `data` ([16 x 64], row-major) into a fresh vec tile at `offset`,
// ordered before the V pipe.
Vec16x64 vec_tile(const std::vector<float> &data, int64_t offset, int rows = 16,
                  int cols = 64) {
  Vec16x64 t(rows, cols);
  assign(t, offset);
  load(t, data.data(), 64);
  set_flag(V, Pipe::MTE2, Pipe::V, 0);
  wait_flag(V, Pipe::MTE2, Pipe::V, 0);
  return t;
}

TEST(TileSimTest, AssignChecksBudgetAndAlignment) {
  Tile<Loc::Vec, float, 16, 64> t;
  assign(t, kUbBytes - Tile<Loc::Vec, float, 16, 64>::bytes); // the last fit
  EXPECT_DEATH(assign(t, kUbBytes - 32), "overruns UB \\(196608 bytes\\)");
  EXPECT_DEATH(assign(t, 16), "not 32-byte aligned");
  Tile<Loc::Right, bf16, 128, 128> r; // 32 KiB: two copies fill L0B
  assign(r, 0, 1);
  EXPECT_DEATH(assign(r, 32, 1), "overruns L0B");
  Tile<Loc::Vec, float, 16, 64> bad(17, 64);
  EXPECT_DEATH(assign(bad, 0), "valid extent of 17x64");
}

TEST(TileSimTest, LoadStoreRoundTrip) {
  KernelScope scope;
  auto data = random_floats(16 * 64, 1);
  Vec16x64 t = vec_tile(data, 0, 13, 40);
  std::vector<float> out(16 * 64, 7.0f);
  set_flag(V, Pipe::V, Pipe::MTE3, 0);
  wait_flag(V, Pipe::V, Pipe::MTE3, 0);
  store(out.data(), 64, t);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 64; ++c)
      EXPECT_EQ(out[r * 64 + c], r < 13 && c < 40 ? data[r * 64 + c] : 7.0f);
}

TEST(TileSimTest, TransposedLoadAndStore) {
  KernelScope scope;
  auto data = random_floats(64 * 16, 2); // 64 rows of 16 in GM
  Tile<Loc::Vec, float, 16, 64, Layout::ColMajor> t(16, 50);
  assign(t, 0);
  load_t(t, data.data(), 16); // t[r, c] = gm[c * 16 + r]
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 50; ++c)
      EXPECT_EQ(t.at(r, c), data[c * 16 + r]);
  std::vector<float> out(64 * 16, 0);
  set_flag(V, Pipe::MTE2, Pipe::MTE3, 0);
  wait_flag(V, Pipe::MTE2, Pipe::MTE3, 0);
  store_t(out.data(), 16, t);
  for (int c = 0; c < 64; ++c)
    for (int r = 0; r < 16; ++r)
      EXPECT_EQ(out[c * 16 + r], c < 50 ? data[c * 16 + r] : 0.0f);
}

TEST(TileSimTest, PagedLoadsCrossPages) {
  KernelScope scope;
  // A cache [pages=6][heads=2][page_size=4][cols=32]; the sequence's pages
  // are 5, 2, 0, 3; positions 2..12 of head 1.
  const int pages = 6, heads = 2, ps = 4, cols = 32;
  auto data = random_floats(pages * heads * ps * cols, 3);
  std::vector<int32_t> table = {5, 2, 0, 3};
  Pages<float> p{data.data() + 1 * ps * cols, heads * ps * cols, cols, ps,
                 table.data(), 4};
  auto at = [&](int pos, int c) {
    return data[((table[pos / ps] * heads + 1) * ps + pos % ps) * cols + c];
  };
  Tile<Loc::Vec, float, 16, 32> rows(11, 32);
  assign(rows, 0);
  load_paged(rows, p, 2);
  Tile<Loc::Vec, float, 32, 16, Layout::ColMajor> cols_t(32, 11);
  assign(cols_t, 4096);
  load_paged_t(cols_t, p, 2);
  for (int j = 0; j < 11; ++j)
    for (int c = 0; c < 32; ++c) {
      EXPECT_EQ(rows.at(j, c), at(2 + j, c));
      EXPECT_EQ(cols_t.at(c, j), at(2 + j, c));
    }
  Tile<Loc::Vec, float, 16, 32> past(15, 32);
  assign(past, 8192);
  // Past the table, or through a page past the cache: a kernel fault
  // (the core stops, the launch reports it), never a read past memory.
  expectFault([&] { load_paged(past, p, 2); },
              "a paged load of position 16 beyond the page table (4 pages)");
  std::vector<int32_t> bad = {5, 6};
  Pages<float> q = p;
  q.table = bad.data();
  q.table_len = 2;
  q.num_pages = pages;
  expectFault([&] { load_paged(rows, q, 2); },
              "a paged load of position 4 reads page 6 of a cache of 6 pages");
}

/// A memref view as generated code's MemRef.
template <typename T, int Rank> struct View {
  T *data;
  int64_t sizes[Rank];
};

TEST(TileSimTest, PagesOfAViewCheckTheRowAndHead) {
  KernelScope scope;
  const int num_pages = 6, heads = 2, ps = 4, cols = 32;
  auto data = random_floats(num_pages * heads * ps * cols, 5);
  std::vector<int32_t> table = {5, 2, 0, 3, 1, 1, 1, 1};
  View<float, 4> cache{data.data(), {num_pages, heads, ps, cols}};
  View<int32_t, 2> rows_of{table.data(), {2, 4}};
  Pages<float> p = pages(cache, rows_of, 1, 1);
  EXPECT_EQ(p.base, data.data() + ps * cols);
  EXPECT_EQ(p.page_stride, heads * ps * cols);
  EXPECT_EQ(p.table, table.data() + 4);
  EXPECT_EQ(p.table_len, 4);
  EXPECT_EQ(p.num_pages, num_pages);
  expectFault([&] { pages(cache, rows_of, 2, 0); },
              "a paged load through row 2 of a page table of 2 rows: out of "
              "bounds");
  expectFault([&] { pages(cache, rows_of, 0, -1); },
              "a paged load of head -1 of a cache of 2 heads: out of bounds");
}

TEST(TileSimTest, LoadsAndStoresAtAViewCheckEveryDimension) {
  KernelScope scope;
  // x: [3, 8, 32]; a 4x16 tile of x[1] at row 4, column 16 is its corner.
  std::vector<float> data(3 * 8 * 32);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = float(i);
  View<float, 3> x{data.data(), {3, 8, 32}};
  Tile<Loc::Vec, float, 4, 16> t;
  assign(t, 0);
  load(t, at(x, 1, 4, 16));
  EXPECT_EQ(t.at(0, 0), float((1 * 8 + 4) * 32 + 16));
  EXPECT_EQ(t.at(3, 15), float((1 * 8 + 7) * 32 + 31));
  set_flag(V, Pipe::MTE2, Pipe::MTE3, 0);
  wait_flag(V, Pipe::MTE2, Pipe::MTE3, 0);
  store(at(x, 2, 0, 0), t);
  set_flag(V, Pipe::MTE3, Pipe::MTE2, 0);
  wait_flag(V, Pipe::MTE3, Pipe::MTE2, 0);
  EXPECT_EQ(data[(2 * 8 + 3) * 32 + 15], float((1 * 8 + 7) * 32 + 31));
  // One element past in each dimension, and negative indices.
  const std::vector<float> before = data;
  expectFault([&] { load(t, at(x, 2, 5, 16)); },
              "TLOAD of a 4x16 tile at [2, 5, 16] of a memref of sizes [3, 8, "
              "32]: out of bounds");
  expectFault([&] { load(t, at(x, 1, 4, 17)); }, "at [1, 4, 17]");
  expectFault([&] { load(t, at(x, 1, 8, 0)); }, "at [1, 8, 0]");
  expectFault([&] { store(at(x, 3, 0, 0), t); },
              "TSTORE of a 4x16 tile at [3, 0, 0]");
  expectFault([&] { store(at(x, -1, 0, 0), t); }, "at [-1, 0, 0]");
  expectFault([&] { load(t, at(x, 0, 0, -1)); }, "at [0, 0, -1]");
  EXPECT_EQ(data, before);
  // A tile's rows run on from one index of the leading dimensions into the
  // next (rows 6, 7 of x[0], then rows 0, 1 of x[1]).
  load(t, at(x, 0, 6, 16));
  EXPECT_EQ(t.at(3, 0), float((1 * 8 + 1) * 32 + 16));
  // One row is a contiguous run, which may run on past the last dimension.
  Tile<Loc::Vec, float, 1, 64> run;
  assign(run, 4096);
  load(run, at(x, 0, 7, 16));
  EXPECT_EQ(run.at(0, 63), float(8 * 32 + 47));
  expectFault([&] { load(run, at(x, 2, 7, 16)); },
              "TLOAD of a 1x64 tile at [2, 7, 16]");
  // A transposed (DN) load reads the tile's columns from the memref's rows.
  Tile<Loc::Vec, float, 16, 8, Layout::ColMajor> d(16, 8);
  assign(d, 1024);
  load_t(d, at(x, 0, 0, 16));
  EXPECT_EQ(d.at(15, 7), float(7 * 32 + 31));
  expectFault([&] { load_t(d, at(x, 2, 1, 16)); },
              "TLOAD of a 16x8 tile at [2, 1, 16]");
  // A rank-1 memref's row may repeat; its columns are checked.
  View<float, 1> w{data.data(), {16}};
  load(t, at(w, 0));
  EXPECT_EQ(t.at(3, 15), 15.f);
  expectFault([&] { load(t, at(w, 1)); }, "at [1] of a memref of sizes [16]");
  // An empty extent touches nothing, wherever it is.
  Tile<Loc::Vec, float, 4, 16> empty(0, 16);
  assign(empty, 2048);
  load(empty, at(x, 2, 8, 0));
}

TEST(TileSimTest, TrafficCountsGlobalMemoryBytes) {
  KernelScope scope;
  traffic().reset();
  const int pages = 3, ps = 4, cols = 32;
  auto data = random_floats(pages * ps * cols, 4);
  std::vector<int32_t> table = {2, 0, 1};
  Pages<float> p{data.data(), ps * cols, cols, ps, table.data(), 3};
  Tile<Loc::Vec, float, 16, 32> rows(10, 32); // positions 1..10: three pages
  assign(rows, 0);
  load_paged(rows, p, 1);
  Tile<Loc::Vec, float, 16, 32> plain(5, 7);
  assign(plain, 4096);
  load(plain, data.data(), cols);
  std::vector<bf16> out(16 * 32);
  set_flag(V, Pipe::MTE2, Pipe::MTE3, 0);
  wait_flag(V, Pipe::MTE2, Pipe::MTE3, 0);
  store(out.data(), 32, plain); // converted: counted in bf16 bytes
  EXPECT_EQ(traffic().paged, 10u * 32 * sizeof(float));
  EXPECT_EQ(traffic().loaded, (10u * 32 + 5 * 7) * sizeof(float));
  EXPECT_EQ(traffic().stored, 5u * 7 * sizeof(bf16));
  traffic().reset();
  EXPECT_EQ(traffic().loaded, 0u);
}

TEST(TileSimTest, AccStoreConvertsToBf16) {
  KernelScope scope;
  Tile<Loc::Acc, float, 16, 16> acc;
  assign(acc, 0);
  auto v = random_floats(256, 4, -100, 100);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      acc.at(r, c) = v[r * 16 + c];
  std::vector<bf16> out(256);
  store(out.data(), 16, acc);
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(out[i].bits, f32_to_bf16(v[i]).bits);
}

// matmul over bf16, f32 and int8 against a triple loop in double / int64.
template <typename T>
void check_matmul(const std::vector<float> &a, const std::vector<float> &b,
                  int m, int k, int n, double tol) {
  KernelScope scope;
  using Acc = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, float>;
  Tile<Loc::Mat, T, 32, 64> am(m, k);
  Tile<Loc::Mat, T, 64, 64, Layout::Zn> bm(k, n);
  assign(am, 0);
  assign(bm, 8192);
  std::vector<T> ga(32 * 64), gbt(64 * 64); // b transposed in GM (n rows of k)
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk)
      ga[i * 64 + kk] = convert<T>(a[i * 64 + kk]);
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk)
      gbt[j * 64 + kk] = convert<T>(b[kk * 64 + j]);
  load(am, ga.data(), 64);
  load_t(bm, gbt.data(), 64);
  set_flag(C, Pipe::MTE2, Pipe::MTE1, 0);
  wait_flag(C, Pipe::MTE2, Pipe::MTE1, 0);
  Tile<Loc::Left, T, 32, 64> l(m, k);
  Tile<Loc::Right, T, 64, 64> r(k, n);
  assign(l, 0);
  assign(r, 0);
  mov(l, am);
  mov(r, bm);
  set_flag(C, Pipe::MTE1, Pipe::M, 0);
  wait_flag(C, Pipe::MTE1, Pipe::M, 0);
  Tile<Loc::Acc, Acc, 32, 64> c(m, n);
  assign(c, 0);
  matmul(c, l, r);
  matmul_acc(c, l, r); // twice the product
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int kk = 0; kk < k; ++kk)
        ref += double(Elem<T>::to_f32(ga[i * 64 + kk])) *
               Elem<T>::to_f32(gbt[j * 64 + kk]);
      EXPECT_NEAR(double(c.at(i, j)), 2 * ref, tol) << i << "," << j;
    }
}

TEST(TileSimTest, MatmulBf16) {
  check_matmul<bf16>(random_floats(32 * 64, 5), random_floats(64 * 64, 6), 27,
                     61, 45, 1e-4);
}
TEST(TileSimTest, MatmulF32) {
  check_matmul<float>(random_floats(32 * 64, 7), random_floats(64 * 64, 8), 32,
                      64, 64, 1e-4);
}
TEST(TileSimTest, MatmulInt8IsExact) {
  check_matmul<int8_t>(random_floats(32 * 64, 9, -127, 127),
                       random_floats(64 * 64, 10, -127, 127), 17, 64, 33, 0);
}

// The cube's sums have one order (tile.hpp, "The cube's arithmetic on the
// host"): lane l of eight partial sums takes the products at l mod 8, the
// lanes are added in a fixed tree, then the tail. The AVX form, used where
// the host has it, and the portable form give those bits exactly.
TEST(TileSimTest, MatmulSumsInOneOrderOnEveryHost) {
  for (auto [m, k, n] : {std::tuple{8, 128, 128}, {7, 61, 45}, {4, 8, 2},
                         {1, 5, 3}, {13, 200, 9}}) {
    const std::vector<float> a = random_floats(size_t(m) * k, 21 + m),
                             b = random_floats(size_t(n) * k, 22 + n);
    std::vector<float> fast(size_t(m) * n), portable(fast.size());
    detail::dot_all_fast(a.data(), m, b.data(), n, k, fast.data());
    detail::dot_all_portable(a.data(), m, b.data(), n, k, portable.data());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const float *row = &a[size_t(i) * k], *col = &b[size_t(j) * k];
        float part[8] = {};
        int kk = 0;
        for (; kk + 8 <= k; kk += 8)
          for (int l = 0; l < 8; ++l)
            part[l] += row[kk + l] * col[kk + l];
        float want = ((part[0] + part[1]) + (part[2] + part[3])) +
                     ((part[4] + part[5]) + (part[6] + part[7]));
        for (; kk < k; ++kk)
          want += row[kk] * col[kk];
        const size_t at = size_t(i) * n + j;
        EXPECT_EQ(fast[at], want) << m << "x" << k << "x" << n << " at " << i
                                  << "," << j;
        EXPECT_EQ(portable[at], want) << m << "x" << k << "x" << n << " at "
                                      << i << "," << j;
      }
  }
}

// The sums of 16-bit float operands are fused (tile.hpp, "The cube's sums
// for 16-bit float operands"): lane l is fma(row, col, lane) over the
// positions l mod 8, the lanes go through the fixed tree, the tail is
// fused. Written out here naively; every form the host can run (AVX-512,
// AVX2 with FMA, portable) gives exactly these bits, for bf16, half and
// float columns stored with padding between them, and for products that
// leave float's range (compared as bits: a NaN is one too).
template <typename BT>
float naive_fused_dot(const float *row, const BT *col, int k) {
  float lanes[8] = {};
  int kk = 0;
  for (; kk + 8 <= k; kk += 8)
    for (int l = 0; l < 8; ++l)
      lanes[l] = std::fma(row[kk + l], Elem<BT>::to_f32(col[kk + l]), lanes[l]);
  float sum = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
              ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
  for (; kk < k; ++kk)
    sum = std::fma(row[kk], Elem<BT>::to_f32(col[kk]), sum);
  return sum;
}

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

template <typename BT> void check_fused_sums(unsigned seed) {
  const std::tuple<int, int, int> shapes[] = {
      {8, 128, 128}, {7, 61, 45},  {9, 133, 7}, {4, 8, 4},
      {1, 5, 3},     {13, 200, 9}, {16, 64, 8}, {12, 16, 6}};
  for (const auto &shape : shapes) {
    const int m = std::get<0>(shape), k = std::get<1>(shape),
              n = std::get<2>(shape);
    const int ldb = k + 3; // columns not back to back
    std::vector<float> a = random_floats(size_t(m) * k, seed + m, -2, 2);
    const std::vector<float> bf = random_floats(size_t(n) * ldb, seed + n);
    std::vector<BT> b(bf.size());
    for (size_t x = 0; x < b.size(); ++x)
      b[x] = Elem<BT>::from_f32(bf[x]);
    if (m > 3 && k > 9 && n > 2 && !std::is_same_v<BT, f16>) {
      // Products beyond float's range: an infinity, and a NaN from +inf
      // and -inf in one lane.
      a[0] = 1e30f;
      b[0] = Elem<BT>::from_f32(1e30f);
      a[size_t(2) * k + 1] = 1e30f;
      a[size_t(2) * k + 9] = 1e30f;
      b[size_t(2) * ldb + 1] = Elem<BT>::from_f32(1e30f);
      b[size_t(2) * ldb + 9] = Elem<BT>::from_f32(-1e30f);
    }
    std::vector<float> want(size_t(m) * n);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        want[size_t(i) * n + j] =
            naive_fused_dot(&a[size_t(i) * k], &b[size_t(j) * ldb], k);
    auto expect = [&](const char *form, const std::vector<float> &got) {
      for (size_t x = 0; x < got.size(); ++x)
        ASSERT_EQ(float_bits(got[x]), float_bits(want[x]))
            << form << " " << m << "x" << k << "x" << n << " at " << x / n
            << "," << x % n << ": " << got[x] << " vs " << want[x];
    };
    std::vector<float> out(want.size());
    detail::dot_all_fused(a.data(), m, b.data(), ldb, n, k, out.data());
    expect("dispatched", out);
    detail::dot_all_fused_portable(a.data(), m, b.data(), ldb, n, k,
                                   out.data());
    expect("portable", out);
#ifdef PTO_TILE_X86
    if (detail::host_has_fma()) {
      detail::dot_all_fused_avx2(a.data(), m, b.data(), ldb, n, k, out.data());
      expect("AVX2", out);
    }
    if (detail::host_has_avx512()) {
      detail::dot_all_fused_avx512(a.data(), m, b.data(), ldb, n, k,
                                   out.data());
      expect("AVX-512", out);
    }
#endif
  }
}

TEST(TileSimTest, FusedSumsInOneOrderOnEveryHost) {
  check_fused_sums<bf16>(31);
  check_fused_sums<f16>(41);
  check_fused_sums<float>(51);
}

// TMATMUL of bf16 tiles reads the right tile's columns where they are
// stored (column storage, R elements apart) and gives the fused sums; a
// right tile in row storage goes through a converted copy, with the same
// bits.
TEST(TileSimTest, MatmulOfBf16TilesIsTheFusedSum) {
  const int m = 8, k = 40, n = 24;
  const std::vector<float> af = random_floats(32 * 64, 61),
                           bf = random_floats(64 * 64, 62);
  KernelScope scope;
  Tile<Loc::Left, bf16, 32, 64> l(m, k);
  Tile<Loc::Right, bf16, 64, 64> r(k, n);                    // Zn: columns
  Tile<Loc::Right, bf16, 64, 64, Layout::RowMajor> rr(k, n); // rows
  Tile<Loc::Acc, float, 32, 64> c(m, n), cr(m, n);
  assign(l, 0);
  assign(r, 0);
  assign(rr, 8192);
  assign(c, 0);
  assign(cr, 8192);
  std::vector<float> arow(size_t(m) * k);
  std::vector<bf16> bcol(size_t(n) * k);
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk) {
      l.at(i, kk) = f32_to_bf16(af[i * 64 + kk]);
      arow[size_t(i) * k + kk] = bf16_to_f32(l.at(i, kk));
    }
  for (int kk = 0; kk < k; ++kk)
    for (int j = 0; j < n; ++j) {
      r.at(kk, j) = rr.at(kk, j) = f32_to_bf16(bf[kk * 64 + j]);
      bcol[size_t(j) * k + kk] = r.at(kk, j);
    }
  matmul(c, l, r);
  matmul(cr, l, rr);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const float want =
          naive_fused_dot(&arow[size_t(i) * k], &bcol[size_t(j) * k], k);
      EXPECT_EQ(float_bits(c.at(i, j)), float_bits(want)) << i << "," << j;
      EXPECT_EQ(float_bits(cr.at(i, j)), float_bits(want)) << i << "," << j;
    }
}

// TEXP is exp(x) computed in double and rounded to float once: against the
// C library's double exp rounded to float (correctly rounded but for rare
// near-ties, an independent reference), at most one ulp apart everywhere,
// and equal on all but a few of ~2 million arguments spread over the
// range where exp(x) is a finite, nonzero float, plus the edges: NaN, the
// infinities, overflow, and the subnormal results. A tile's TEXP gives
// the scalar function's bits (the vectorized loop changes nothing).
TEST(TileSimTest, ExpIsRoundedOnceFromDouble) {
  auto reference = [](float x) {
    return static_cast<float>(std::exp(static_cast<double>(x)));
  };
  auto ulps = [](float x, float y) {
    const int64_t a = float_bits(x), b = float_bits(y);
    return a > b ? a - b : b - a;
  };
  int64_t checked = 0, off = 0;
  auto check = [&](float x) {
    const float got = detail::exp_f32(x), want = reference(x);
    ++checked;
    if (got != want) {
      ++off;
      ASSERT_LE(ulps(got, want), 1)
          << "exp(" << x << ") = " << got << ", the reference " << want;
    }
  };
  for (uint32_t u = float_bits(-104.0f); u > float_bits(-0.0f); u -= 997) {
    float x;
    std::memcpy(&x, &u, sizeof x);
    check(x);
  }
  for (uint32_t u = 0; u < float_bits(89.0f); u += 997) {
    float x;
    std::memcpy(&x, &u, sizeof x);
    check(x);
  }
  for (float x :
       {0.0f, -0.0f, 1.0f, -1.0f, 88.72283f, 88.72284f, 88.8f, -87.33654f,
        -87.4f, -100.0f, -103.97f, -103.98f, -104.0f, 1e-30f, -1e-30f})
    check(x);
  EXPECT_GT(checked, 2000000);
  EXPECT_LT(off, checked / 100000) << off << " of " << checked;
  EXPECT_TRUE(std::isnan(detail::exp_f32(std::nanf(""))));
  EXPECT_EQ(detail::exp_f32(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(detail::exp_f32(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(detail::exp_f32(1000.0f), std::numeric_limits<float>::infinity());
  EXPECT_EQ(detail::exp_f32(-1000.0f), 0.0f);

  // Every form a tile's TEXP may take gives the scalar function's bits:
  // AVX-512 registers where the host has them (rows of 61 end in a masked
  // part), else the element-wise loop, compiled for AVX2 from 1024
  // elements (16 x 64) and for the baseline below (8 x 61). Specials
  // included.
  for (auto shape : {std::pair{16, 64}, {8, 61}}) {
    const int rows = shape.first, cols = shape.second;
    KernelScope scope;
    std::vector<float> data = random_floats(16 * 64, 71 + rows, -90, 90);
    data[3] = std::nanf("");
    data[5] = std::numeric_limits<float>::infinity();
    data[64 + 7] = -std::numeric_limits<float>::infinity();
    data[2 * 64 + 60] = -104.5f;
    // (Away from the bytes other tests expect untouched.)
    Vec16x64 t = vec_tile(data, 65536, rows, cols), d(rows, cols);
    assign(d, 65536 + 8192);
    auto expect = [&](const char *form) {
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          const float want = detail::exp_f32(data[r * 64 + c]);
          if (std::isnan(want))
            EXPECT_TRUE(std::isnan(d.at(r, c))) << form;
          else
            EXPECT_EQ(float_bits(d.at(r, c)), float_bits(want))
                << form << " " << rows << "x" << cols << " at " << r << ","
                << c;
        }
    };
    tile::exp(d, t);
    expect("TEXP");
    detail::elementwise_loop(
        d, [](float x) -> float { return detail::exp_f32(x); }, t);
    expect("element-wise loop");
#ifdef PTO_TILE_X86
    if (detail::host_has_avx512()) {
      detail::exp_rows_avx512(d, t);
      expect("AVX-512");
    }
#endif
  }
}

// TMOV between row and column storage of 16-bit elements moves whole 8 x 8
// blocks as registers and the rest one by one: every element lands where a
// naive loop puts it, for full and partial valid extents, both ways.
TEST(TileSimTest, MovTransposesBetweenLayouts) {
  for (auto [rows, cols] : {std::pair{48, 48}, {45, 37}, {16, 48}, {3, 17}}) {
    KernelScope scope;
    Tile<Loc::Mat, bf16, 48, 48> src_rows(rows, cols);
    Tile<Loc::Mat, bf16, 48, 48, Layout::Zn> src_cols(rows, cols);
    assign(src_rows, 0);
    assign(src_cols, 8192);
    for (int r = 0; r < 48; ++r)
      for (int c = 0; c < 48; ++c) {
        src_rows.at(r, c).bits = uint16_t(r * 48 + c);
        src_cols.at(r, c).bits = uint16_t(30000 + r * 48 + c);
      }
    Tile<Loc::Right, bf16, 48, 48> right(rows, cols); // column storage
    Tile<Loc::Left, bf16, 48, 48> left(rows, cols);   // row storage
    assign(right, 0);
    assign(left, 0);
    mov(right, src_rows);
    mov(left, src_cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        EXPECT_EQ(right.at(r, c).bits, uint16_t(r * 48 + c))
            << rows << "x" << cols << " at " << r << "," << c;
        EXPECT_EQ(left.at(r, c).bits, uint16_t(30000 + r * 48 + c))
            << rows << "x" << cols << " at " << r << "," << c;
      }
  }
}

// TCVT through half and bf16 and to integers in AVX2 registers (where the
// host has AVX2, FMA and F16C) gives `convert`'s bits for every input: all
// 65536 halves and bf16s, a spread of a million float bit patterns and the
// edges (NaNs with payloads, infinities, subnormals, the half and integer
// limits, ties), and integers around float's and half's exact ranges.
// Rows of 1003 elements: eight at a time, then the rest one by one.
template <typename DT, typename ST>
void check_f16c_cvt(const std::vector<ST> &in, const char *what) {
#ifdef PTO_TILE_X86
  if (!detail::host_has_fma())
    return;
  std::vector<DT> got(in.size()), want(in.size());
  for (size_t i = 0; i < in.size(); i += 1003) {
    const int n = int(std::min<size_t>(1003, in.size() - i));
    detail::cvt_row_f16c(&got[i], &in[i], n);
    for (int k = 0; k < n; ++k)
      want[i + k] = convert<DT>(in[i + k]);
  }
  for (size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(DT)), 0)
        << what << " at " << i;
#else
  (void)in;
  (void)what;
#endif
}

TEST(TileSimTest, F16cConversionsGiveConvertsBits) {
  std::vector<float> floats;
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4099) {
    float f;
    const uint32_t b = uint32_t(u);
    std::memcpy(&f, &b, sizeof f);
    floats.push_back(f);
  }
  for (uint32_t b :
       {0x7fc00001u, 0xffc12345u, 0x7f800001u, 0x7f800000u, 0xff800000u,
        0x00000001u, 0x80000001u, 0x33000000u, 0x33000001u, 0x387fc000u,
        0x38800000u, 0x477fefffu, 0x477ff000u, 0x4f000000u, 0x4effffffu,
        0xcf000000u, 0xcf000001u}) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    floats.push_back(f);
  }
  for (float f = -300.0f; f <= 300.0f; f += 0.25f)
    floats.push_back(f); // ties at .5, the int8 limits
  std::vector<f16> halves(65536);
  for (uint32_t b = 0; b < 65536; ++b)
    halves[b].bits = uint16_t(b);
  std::vector<int32_t> ints;
  for (int32_t v = -70000; v <= 70000; v += 7)
    ints.push_back(v);
  for (int32_t v : {std::numeric_limits<int32_t>::min(),
                    std::numeric_limits<int32_t>::max(), 16777217, -16777217,
                    65504, 65519, 65520, -65520})
    ints.push_back(v);
  check_f16c_cvt<f16, float>(floats, "f32 -> f16");
  check_f16c_cvt<f16, int32_t>(ints, "i32 -> f16");
  check_f16c_cvt<int8_t, float>(floats, "f32 -> i8");
  check_f16c_cvt<int8_t, f16>(halves, "f16 -> i8");
  check_f16c_cvt<int32_t, float>(floats, "f32 -> i32");
  check_f16c_cvt<int32_t, f16>(halves, "f16 -> i32");
  check_f16c_cvt<bf16, float>(floats, "f32 -> bf16");
  std::vector<bf16> bf16s(65536);
  for (uint32_t b = 0; b < 65536; ++b)
    bf16s[b].bits = uint16_t(b);
  check_f16c_cvt<float, bf16>(bf16s, "bf16 -> f32");
}

// The register transposes TMOV uses, each against the naive one, with
// lines further apart than they are long: 8 x 8 in SSE2, 16 x 16 in AVX2
// (where the host has it, TMOV takes the second).
TEST(TileSimTest, RegisterTransposesMoveEveryElement) {
  std::vector<bf16> in(16 * 24);
  for (size_t i = 0; i < in.size(); ++i)
    in[i].bits = uint16_t(i * 7 + 3);
  auto check = [&](int n, auto transpose) {
    std::vector<bf16> out(16 * 20, bf16{0xffff});
    transpose(in.data(), int64_t(24), out.data(), int64_t(20));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        ASSERT_EQ(out[j * 20 + i].bits, in[i * 24 + j].bits)
            << n << "x" << n << " at " << i << "," << j;
    EXPECT_EQ(out[n].bits, 0xffff); // nothing past a line
  };
#ifdef __SSE2__
  check(8, [](const bf16 *i, int64_t is, bf16 *o, int64_t os) {
    detail::transpose8x8_16(i, is, o, os);
  });
#endif
#ifdef PTO_TILE_X86
  if (detail::host_has_avx2())
    check(16, [](const bf16 *i, int64_t is, bf16 *o, int64_t os) {
      detail::transpose16x16_16(i, is, o, os);
    });
#endif
}

TEST(TileSimTest, ExtractTakesABlock) {
  KernelScope scope;
  Tile<Loc::Mat, float, 32, 64> m;
  assign(m, 0);
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c)
      m.at(r, c) = float(r * 100 + c);
  Tile<Loc::Left, float, 16, 32> l;
  assign(l, 0);
  extract(l, m, 16, 32);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 32; ++c)
      EXPECT_EQ(l.at(r, c), float((16 + r) * 100 + 32 + c));
  EXPECT_DEATH(extract(l, m, 16, 40), "TEXTRACT of 16x32 at \\(16, 40\\)");
}

TEST(TileSimTest, ElementwiseAndScalarOps) {
  KernelScope scope;
  auto a = random_floats(16 * 64, 11, 0.5f, 2.0f);
  auto b = random_floats(16 * 64, 12, 0.5f, 2.0f);
  Vec16x64 ta = vec_tile(a, 0, 10, 48), tb = vec_tile(b, 4096, 10, 48);
  Vec16x64 d(10, 48);
  assign(d, 8192);
  auto check = [&](auto f) {
    for (int r = 0; r < 10; ++r)
      for (int c = 0; c < 48; ++c)
        EXPECT_FLOAT_EQ(d.at(r, c), f(a[r * 64 + c], b[r * 64 + c]));
  };
  add(d, ta, tb);
  check([](float x, float y) { return x + y; });
  sub(d, ta, tb);
  check([](float x, float y) { return x - y; });
  mul(d, ta, tb);
  check([](float x, float y) { return x * y; });
  div(d, ta, tb);
  check([](float x, float y) { return x / y; });
  max(d, ta, tb);
  check([](float x, float y) { return std::max(x, y); });
  min(d, ta, tb);
  check([](float x, float y) { return std::min(x, y); });
  tile::exp(d, ta);
  check([](float x, float) { return std::exp(x); });
  tile::log(d, ta);
  check([](float x, float) { return std::log(x); });
  tile::sqrt(d, ta);
  check([](float x, float) { return std::sqrt(x); });
  rsqrt(d, ta);
  check([](float x, float) { return 1.0f / std::sqrt(x); });
  tile::abs(d, tb);
  check([](float, float y) { return std::fabs(y); });
  adds(d, ta, 3.0f);
  check([](float x, float) { return x + 3.0f; });
  subs(d, ta, 3.0f);
  check([](float x, float) { return x - 3.0f; });
  muls(d, ta, 3.0f);
  check([](float x, float) { return x * 3.0f; });
  divs(d, ta, 3.0f);
  check([](float x, float) { return x / 3.0f; });
  maxs(d, ta, 1.0f);
  check([](float x, float) { return std::max(x, 1.0f); });
  mins(d, ta, 1.0f);
  check([](float x, float) { return std::min(x, 1.0f); });
  expands(d, 2.5f);
  check([](float, float) { return 2.5f; });
  // Outside the valid extent nothing was written.
  EXPECT_EQ(d.data[10 * 64], 0.0f);
}

TEST(TileSimTest, ReductionsAndBroadcasts) {
  KernelScope scope;
  auto a = random_floats(16 * 64, 13);
  Vec16x64 t = vec_tile(a, 0, 12, 50);
  Vec16x64 tmp(12, 50), d(12, 50);
  Col16 m(12, 1);
  Row64 v(1, 50);
  assign(tmp, 4096);
  assign(d, 8192);
  assign(m, 12288);
  assign(v, 12288 + 64);
  auto row_ref = [&](int r, auto f) {
    float acc = a[r * 64];
    for (int c = 1; c < 50; ++c)
      acc = f(acc, a[r * 64 + c]);
    return acc;
  };
  auto col_ref = [&](int c, auto f) {
    float acc = a[c];
    for (int r = 1; r < 12; ++r)
      acc = f(acc, a[r * 64 + c]);
    return acc;
  };
  auto fmax = [](float x, float y) { return std::max(x, y); };
  auto fmin = [](float x, float y) { return std::min(x, y); };
  auto fsum = [](float x, float y) { return x + y; };
  rowmax(m, t, tmp);
  for (int r = 0; r < 12; ++r)
    EXPECT_EQ(m.at(r, 0), row_ref(r, fmax));
  rowmin(m, t, tmp);
  for (int r = 0; r < 12; ++r)
    EXPECT_EQ(m.at(r, 0), row_ref(r, fmin));
  rowsum(m, t, tmp);
  for (int r = 0; r < 12; ++r)
    EXPECT_NEAR(m.at(r, 0), row_ref(r, fsum), 1e-5);
  colmax(v, t);
  for (int c = 0; c < 50; ++c)
    EXPECT_EQ(v.at(0, c), col_ref(c, fmax));
  colmin(v, t);
  for (int c = 0; c < 50; ++c)
    EXPECT_EQ(v.at(0, c), col_ref(c, fmin));
  colsum(v, t);
  for (int c = 0; c < 50; ++c)
    EXPECT_NEAR(v.at(0, c), col_ref(c, fsum), 1e-5);
  barrier(V, Pipe::V);
  rowexpand(d, m);
  rowexpandsub(tmp, t, m, d);
  for (int r = 0; r < 12; ++r)
    for (int c = 0; c < 50; ++c)
      EXPECT_FLOAT_EQ(tmp.at(r, c), a[r * 64 + c] - m.at(r, 0));
  rowexpanddiv(tmp, t, m, d);
  for (int r = 0; r < 12; ++r)
    for (int c = 0; c < 50; ++c)
      EXPECT_FLOAT_EQ(tmp.at(r, c), a[r * 64 + c] / m.at(r, 0));
  colexpandmul(tmp, t, v);
  for (int r = 0; r < 12; ++r)
    for (int c = 0; c < 50; ++c)
      EXPECT_FLOAT_EQ(tmp.at(r, c), a[r * 64 + c] * v.at(0, c));
  colexpand(d, v);
  for (int r = 0; r < 12; ++r)
    for (int c = 0; c < 50; ++c)
      EXPECT_EQ(d.at(r, c), v.at(0, c));
}

TEST(TileSimTest, ConversionsRoundAndSaturate) {
  KernelScope scope;
  Tile<Loc::Vec, float, 8, 32> f;
  Tile<Loc::Vec, bf16, 8, 32> h;
  Tile<Loc::Vec, f16, 8, 32> h16;
  Tile<Loc::Vec, int8_t, 8, 32> q;
  assign(f, 0);
  assign(h, 1024);
  assign(h16, 2048);
  assign(q, 3072);
  auto v = random_floats(8 * 32, 14, -300, 300);
  v[0] = 2.5f; // rint: 2
  v[1] = -3.5f; // rint: -4
  for (int i = 0; i < 256; ++i)
    f.data[i] = v[i];
  cvt(h, f);
  cvt(h16, f);
  for (int i = 0; i < 256; ++i) {
    EXPECT_EQ(h.data[i].bits, f32_to_bf16(v[i]).bits);
    EXPECT_EQ(h16.data[i].bits, f32_to_f16(v[i]).bits);
  }
  cvt(q, h16);
  EXPECT_EQ(q.data[0], 2);
  EXPECT_EQ(q.data[1], -4);
  for (int i = 2; i < 256; ++i) {
    const float x = f16_to_f32(h16.data[i]);
    EXPECT_EQ(q.data[i], x >= 127 ? 127 : x <= -128 ? -128 : int(std::nearbyint(x)));
  }
  cvt(h16, q); // i8 -> f16 is exact
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(f16_to_f32(h16.data[i]), float(q.data[i]));
}

TEST(TileSimTest, QuantAndDequant) {
  KernelScope scope;
  Tile<Loc::Vec, float, 8, 32> x, y;
  Tile<Loc::Vec, int8_t, 8, 32> q;
  Tile<Loc::Vec, float, 8, 1, Layout::ColMajor> s, z;
  assign(x, 0);
  assign(y, 1024);
  assign(q, 2048);
  assign(s, 3072);
  assign(z, 3104);
  auto v = random_floats(8 * 32, 15, -4, 4);
  for (int i = 0; i < 256; ++i)
    x.data[i] = v[i];
  for (int r = 0; r < 8; ++r) {
    s.at(r, 0) = 127.0f / 4 * (r + 1); // row r saturates for r > 0 near +-4
    z.at(r, 0) = float(r);
  }
  quant(q, x, s);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 32; ++c) {
      const float scaled = v[r * 32 + c] * s.at(r, 0);
      const int want = scaled >= 127 ? 127 : scaled <= -128 ? -128 : int(std::nearbyint(scaled));
      EXPECT_EQ(q.at(r, c), want);
    }
  dequant(y, q, s, z);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 32; ++c)
      EXPECT_FLOAT_EQ(y.at(r, c), (float(q.at(r, c)) - z.at(r, 0)) * s.at(r, 0));
}

TEST(TileSimTest, IndicesTrianglesMasksAndSelect) {
  KernelScope scope;
  Tile<Loc::Vec, int32_t, 4, 8> idx;
  assign(idx, 0);
  ci(idx, int32_t(100));
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(idx.data[i], 100 + i);
  ci(idx, int32_t(100), /*descending=*/true);
  EXPECT_EQ(idx.data[31], 69);
  Tile<Loc::Vec, float, 4, 8> t, a, b, d;
  assign(t, 256);
  assign(a, 512);
  assign(b, 768);
  assign(d, 1024);
  tri(t, 2);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c)
      EXPECT_EQ(t.at(r, c), c <= r + 2 ? 1.0f : 0.0f);
  tri(t, 2, /*upper=*/true);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c)
      EXPECT_EQ(t.at(r, c), c < r + 2 ? 0.0f : 1.0f);
  for (int i = 0; i < 32; ++i) {
    a.data[i] = float(i);
    b.data[i] = -1.0f;
  }
  Tile<Loc::Vec, int8_t, 4, 32> mask;
  Tile<Loc::Vec, int32_t, 1, 16> tmp;
  assign(mask, 1280);
  assign(tmp, 1408);
  cmps(mask, a, 10.0f, Cmp::GE);
  barrier(V, Pipe::V);
  sel(d, mask, a, b, tmp);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(d.data[i], i >= 10 ? float(i) : -1.0f);
  set_flag(V, Pipe::V, Pipe::S, 0); // the scalar unit after the vector's write
  wait_flag(V, Pipe::V, Pipe::S, 0);
  setval(d, 3, 7, 42.0f);
  EXPECT_EQ(getval(d, 3, 7), 42.0f);
  EXPECT_DEATH(getval(d, 4, 0), "GetValue at \\(4, 0\\)");
}

//===----------------------------------------------------------------------===//
// The synchronization checker
//===----------------------------------------------------------------------===//

TEST(TileSimTest, MissingFlagBetweenPipesIsCaught) {
  auto data = random_floats(16 * 64, 16);
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        Vec16x64 t(16, 64);
        assign(t, 0);
        load(t, data.data(), 64);
        muls(t, t, 2.0f); // no MTE2 -> V flag
      }()),
      "TMULS on vector V reads UB bytes \\[0, 0x1000\\) that TLOAD on vector "
      "MTE2 wrote with no set_flag/wait_flag ordering them");
}

TEST(TileSimTest, FloatToIntegerRoundsByMode) {
  KernelScope scope;
  Tile<Loc::Vec, float, 1, 8> f;
  Tile<Loc::Vec, int32_t, 1, 8> q;
  assign(f, 0);
  assign(q, 64);
  const float in[8] = {1.7f, -1.7f, 2.5f, -2.5f, 1.2f, -1.2f, 3e9f, -3e9f};
  for (int i = 0; i < 8; ++i)
    f.data[i] = in[i];
  // Against std's rounding functions, then saturated to int32.
  for (Round mode : {Round::Rint, Round::Round, Round::Floor, Round::Ceil,
                     Round::Trunc}) {
    cvt(q, f, mode);
    for (int i = 0; i < 8; ++i) {
      const double x = in[i];
      const double r = mode == Round::Round   ? std::round(x)
                       : mode == Round::Floor ? std::floor(x)
                       : mode == Round::Ceil  ? std::ceil(x)
                       : mode == Round::Trunc ? std::trunc(x)
                                              : std::nearbyint(x);
      const double sat = std::min(std::max(r, -2147483648.0), 2147483647.0);
      EXPECT_EQ(q.data[i], static_cast<int32_t>(sat)) << "element " << i;
    }
  }
}

// A store to global memory the kernel has only read so far is ordered after
// the read, as on chip.
TEST(TileSimTest, WriteAfterReadOfGlobalMemoryIsCaught) {
  std::vector<float> data = random_floats(16 * 64, 18);
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        Vec16x64 t(16, 64), u(16, 64);
        assign(t, 0);
        assign(u, 8192);
        expands(u, 1.0f);
        set_flag(V, Pipe::V, Pipe::MTE3, 0);
        wait_flag(V, Pipe::V, Pipe::MTE3, 0);
        load(t, data.data(), 64);  // MTE2 reads data, never written here
        store(data.data(), 64, u); // MTE3 overwrites it, nothing between
      }()),
      "TSTORE on vector MTE3 writes global memory .* that TLOAD on vector "
      "MTE2 read \\(write after read\\)");
}

TEST(TileSimTest, WriteAfterReadIsCaught) {
  auto data = random_floats(16 * 64, 17);
  std::vector<float> out(16 * 64);
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        Vec16x64 t = vec_tile(data, 0);
        set_flag(V, Pipe::V, Pipe::MTE3, 0);
        wait_flag(V, Pipe::V, Pipe::MTE3, 0);
        store(out.data(), 64, t);
        load(t, data.data(), 64); // overwrites what MTE3 may still read
      }()),
      "TLOAD on vector MTE2 writes UB .* that TSTORE on vector MTE3 read "
      "\\(write after read\\)");
}

TEST(TileSimTest, VectorChainsNeedBarriersOnlyAcrossShapes) {
  auto data = random_floats(16 * 64, 18);
  {
    // Element-wise in place: ordered by the pipe.
    KernelScope scope;
    Vec16x64 t = vec_tile(data, 0);
    muls(t, t, 2.0f);
    adds(t, t, 1.0f);
    tile::exp(t, t);
  }
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        Vec16x64 t = vec_tile(data, 0), tmp(16, 64);
        Col16 m(16, 1);
        assign(tmp, 4096);
        assign(m, 8192);
        tile::exp(t, t);
        rowsum(m, t, tmp); // a reduction over what exp wrote
      }()),
      "TROWSUM on vector V reads UB .* that TEXP on vector V wrote with no "
      "pipe_barrier\\(V\\)");
  {
    KernelScope scope;
    Vec16x64 t = vec_tile(data, 0), tmp(16, 64);
    Col16 m(16, 1);
    assign(tmp, 4096);
    assign(m, 8192);
    tile::exp(t, t);
    barrier(V, Pipe::V);
    rowsum(m, t, tmp);
  }
}

void cross_core_exchange(bool synced) {
  std::vector<float> ws(16 * 64);
  {
    KernelScope scope;
    Tile<Loc::Acc, float, 16, 64> acc;
    assign(acc, 0);
    store(ws.data(), 64, acc); // cube FIX
    if (synced) {
      sync_set(C, Pipe::FIX, 3);
      sync_wait(V, 3);
    }
    Vec16x64 t(16, 64);
    assign(t, 0);
    load(t, ws.data(), 64); // vector MTE2
  }
}

TEST(TileSimTest, CrossCoreNeedsSync) {
  cross_core_exchange(true);
  EXPECT_DEATH(cross_core_exchange(false), "TLOAD on vector MTE2 reads global memory .* that "
                            "TSTORE on cube FIX wrote with no "
                            "sync_set/sync_wait");
}

// Global memory's table holds a region per separate store: every other row
// stored in decreasing address order (as a KV store into shuffled pages),
// then a load across stored rows and the gaps between them. Unsynced, the
// load is caught against a stored row; synced, a later store into a gap the
// load read is caught against the load.
void reversed_rows(bool synced, bool store_into_gap) {
  std::vector<float> ws(64 * 64);
  KernelScope scope;
  Tile<Loc::Vec, float, 1, 64> row(1, 64);
  assign(row, 0);
  expands(row, 2.0f);
  set_flag(V, Pipe::V, Pipe::MTE3, 0);
  wait_flag(V, Pipe::V, Pipe::MTE3, 0);
  for (int r = 63; r >= 1; r -= 2)
    store(ws.data() + r * 64, 64, row);
  if (synced) {
    set_flag(V, Pipe::MTE3, Pipe::MTE2, 1);
    wait_flag(V, Pipe::MTE3, Pipe::MTE2, 1);
  }
  Vec16x64 t(16, 64);
  assign(t, 4096);
  load(t, ws.data() + 20 * 64, 64); // rows 20 to 35
  if (store_into_gap)
    store(ws.data() + 22 * 64, 64, row);
}

TEST(TileSimTest, GlobalMemoryRowsInAnyOrderAreChecked) {
  reversed_rows(true, false);
  EXPECT_DEATH(reversed_rows(false, false),
               "TLOAD on vector MTE2 reads global memory .* that TSTORE on "
               "vector MTE3 wrote with no set_flag/wait_flag");
  EXPECT_DEATH(reversed_rows(true, true),
               "TSTORE on vector MTE3 writes global memory .* that TLOAD on "
               "vector MTE2 read \\(write after read\\)");
}

TEST(TileSimTest, UnmatchedFlagsAreCaught) {
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        wait_flag(V, Pipe::MTE2, Pipe::V, 1);
      }()),
      "wait_flag\\(MTE2 -> V, event 1\\) on the vector core has no set_flag");
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        set_flag(C, Pipe::M, Pipe::FIX, 2);
      }()),
      "ends with set_flag\\(M -> FIX, event 2\\) of the cube core never "
      "waited on");
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        sync_wait(C, 5);
      }()),
      "sync_wait\\(event 5\\) on the cube core has no sync_set of the vector "
      "core");
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        sync_set(V, Pipe::MTE3, 3);
      }()),
      "ends with cross-core flag 3 of the vector core never waited on");
  // A flag's counter holds 15 sets: the 16th before a wait is a hang or a
  // lost signal on the device. 15 are fine.
  EXPECT_DEATH(
      ([&] {
        KernelScope scope;
        for (int i = 0; i < 16; ++i)
          sync_set(C, Pipe::FIX, 1);
      }()),
      "sync_set\\(event 1\\) on the cube core: 15 sets wait for their "
      "sync_wait already");
  {
    KernelScope scope;
    for (int i = 0; i < 15; ++i)
      sync_set(C, Pipe::FIX, 1);
    for (int i = 0; i < 15; ++i)
      sync_wait(V, 1);
  }
  // A flag set and waited in one invocation leaves nothing for the next.
  {
    KernelScope scope;
    set_flag(V, Pipe::MTE2, Pipe::V, 4);
    wait_flag(V, Pipe::MTE2, Pipe::V, 4);
    sync_set(C, Pipe::FIX, 2);
    sync_wait(V, 2);
  }
  EXPECT_EQ(detail::checker().pending, 0);
}

TEST(TileSimTest, DoubleBufferedPipelineIsOrdered) {
  // The double-buffered load/compute/store loop a tile kernel runs: slot
  // j % 2 reloaded once the store of iteration j - 2 finished.
  auto data = random_floats(8 * 16 * 64, 19);
  std::vector<float> out(8 * 16 * 64);
  KernelScope scope;
  set_flag(V, Pipe::MTE3, Pipe::MTE2, 0);
  set_flag(V, Pipe::MTE3, Pipe::MTE2, 1);
  for (int j = 0; j < 8; ++j) {
    const int slot = j % 2;
    Vec16x64 t(16, 64);
    assign(t, 0, slot);
    wait_flag(V, Pipe::MTE3, Pipe::MTE2, slot);
    load(t, data.data() + j * 1024, 64);
    set_flag(V, Pipe::MTE2, Pipe::V, slot);
    wait_flag(V, Pipe::MTE2, Pipe::V, slot);
    muls(t, t, 2.0f);
    set_flag(V, Pipe::V, Pipe::MTE3, slot);
    wait_flag(V, Pipe::V, Pipe::MTE3, slot);
    store(out.data() + j * 1024, 64, t);
    set_flag(V, Pipe::MTE3, Pipe::MTE2, slot);
  }
  wait_flag(V, Pipe::MTE3, Pipe::MTE2, 0);
  wait_flag(V, Pipe::MTE3, Pipe::MTE2, 1);
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], 2 * data[i]);
}

} // namespace

// round_even (TCVT's default rounding) against std::nearbyint: every 997th
// float bit pattern (sign, every exponent, NaNs and infinities included)
// and the ties and limits where an add-and-subtract rounding goes wrong
// first.
TEST(TileSim, RoundEvenIsNearbyint) {
  auto same = [](float f) {
    const float got = pto::runtime::tile::round_even(f);
    const float want = std::nearbyint(f);
    if (want != want)
      return got != got;
    return std::memcmp(&got, &want, sizeof got) == 0; // -0 stays -0
  };
  for (uint64_t u = 0; u <= 0xffffffffull; u += 997) {
    const uint32_t bits = static_cast<uint32_t>(u);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    ASSERT_TRUE(same(f)) << "bits 0x" << std::hex << bits;
  }
  for (float f : {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 0.49999997f, 4194304.5f,
                  4194305.5f, 8388607.5f, -8388607.5f, 8388608.0f,
                  16777217.0f, 1e30f, -0.0f, 0.0f})
    EXPECT_TRUE(same(f)) << f;
}

// TCVT's default float -> int8 / int16 / int32 (branch-free, clamped as
// floats) against a naive reading: nearbyint in double, then saturate; NaN
// to 0. Every 997th bit pattern and the values around each type's limits.
template <typename To> void expectSaturatingRint(float f) {
  long long want = 0;
  if (f == f) {
    const double n = std::nearbyint(double(f));
    want = n <= double(std::numeric_limits<To>::min())
               ? std::numeric_limits<To>::min()
           : n >= double(std::numeric_limits<To>::max())
               ? std::numeric_limits<To>::max()
               : static_cast<long long>(n);
  }
  const To got = pto::runtime::tile::saturate_round<To>(f);
  ASSERT_EQ(static_cast<long long>(got), want) << std::hexfloat << f;
}
TEST(TileSim, SaturatingRintIsClampedNearbyint) {
  std::vector<float> values;
  for (uint64_t u = 0; u <= 0xffffffffull; u += 997) {
    const uint32_t bits = static_cast<uint32_t>(u);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    values.push_back(f);
  }
  for (double edge : {127.0, 128.0, 32767.0, 32768.0, 2147483520.0,
                      2147483648.0, 8388608.0})
    for (double sign : {1.0, -1.0})
      for (int step = -3; step <= 3; ++step) {
        const float e = static_cast<float>(sign * edge);
        values.push_back(std::nextafter(e, step < 0 ? -INFINITY : INFINITY));
        values.push_back(e + 0.5f * float(step));
      }
  values.push_back(INFINITY);
  values.push_back(-INFINITY);
  values.push_back(NAN);
  for (float f : values) {
    expectSaturatingRint<int8_t>(f);
    expectSaturatingRint<int16_t>(f);
    expectSaturatingRint<int32_t>(f);
  }
}

// Tiles of 1024 elements and more run their vector loops compiled for the
// host's AVX2 when it has one (tile.hpp: detail::vector_loop). The bits
// must be those of the element-wise definition, computed here one element
// at a time, special values included.
TEST(TileSimTest, WideTilesComputeTheSameBits) {
  KernelScope scope;
  constexpr int R = 8, N = 256;
  using F = Tile<Loc::Vec, float, R, N>;
  F x, y, out;
  Tile<Loc::Vec, int32_t, R, N> i32;
  Tile<Loc::Vec, f16, R, N> h16;
  Tile<Loc::Vec, int8_t, R, N> q;
  Tile<Loc::Vec, float, 1, N> colv;
  Tile<Loc::Vec, float, R, 1, Layout::ColMajor> rowv;
  assign(x, 0);
  assign(y, 8192);
  assign(out, 16384);
  assign(i32, 24576);
  assign(h16, 32768);
  assign(q, 36864);
  assign(colv, 40960);
  assign(rowv, 41984);
  std::vector<float> a = random_floats(R * N, 31, -70000, 70000);
  std::vector<float> b = random_floats(R * N, 32, -3, 3);
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(),
                            3e38f,
                            -3e38f,
                            2147483648.0f,
                            -2147483904.0f,
                            65520.0f,
                            -65504.0f,
                            2.5f,
                            -3.5f,
                            127.5f,
                            -128.5f};
  for (size_t i = 0; i < std::size(specials); ++i) {
    a[i * 7] = specials[i];
    b[i * 5 + 1] = specials[i];
  }
  std::copy(a.begin(), a.end(), x.data);
  std::copy(b.begin(), b.end(), y.data);
  for (int c = 0; c < N; ++c)
    colv.at(0, c) = b[c];
  for (int r = 0; r < R; ++r)
    rowv.at(r, 0) = b[r * 3];
  auto same = [](float got, float want) {
    return (got != got && want != want) ||
           std::memcmp(&got, &want, sizeof got) == 0;
  };

  cvt(i32, x);
  cvt(h16, i32);
  cvt(q, h16);
  for (int i = 0; i < R * N; ++i) {
    const float v = a[size_t(i)];
    const float r = std::nearbyint(v);
    const int32_t want32 = v != v                ? 0
                           : r >= 2147483648.0f  ? INT32_MAX
                           : r <= -2147483648.0f ? INT32_MIN
                                                 : int32_t(r);
    ASSERT_EQ(i32.data[i], want32) << "f32 -> i32 of " << v;
    ASSERT_EQ(h16.data[i].bits, f32_to_f16(float(want32)).bits)
        << "i32 -> f16 of " << want32;
    const float h = f16_to_f32(h16.data[i]);
    const float hr = std::nearbyint(h);
    const int want8 = h != h ? 0 : hr >= 127 ? 127 : hr <= -128 ? -128 : int(hr);
    ASSERT_EQ(q.data[i], want8) << "f16 -> i8 of " << h;
  }
  cvt(h16, x);
  for (int i = 0; i < R * N; ++i)
    ASSERT_EQ(h16.data[i].bits, f32_to_f16(a[size_t(i)]).bits)
        << "f32 -> f16 of " << a[size_t(i)];

  mul(out, x, y);
  for (int i = 0; i < R * N; ++i)
    ASSERT_TRUE(same(out.data[i], a[size_t(i)] * b[size_t(i)])) << i;
  sub(out, x, y);
  for (int i = 0; i < R * N; ++i)
    ASSERT_TRUE(same(out.data[i], a[size_t(i)] - b[size_t(i)])) << i;
  max(out, x, y);
  for (int i = 0; i < R * N; ++i) {
    const float p = a[size_t(i)], s = b[size_t(i)];
    ASSERT_TRUE(same(out.data[i], p > s ? p : s)) << i;
  }
  abs(out, x);
  for (int i = 0; i < R * N; ++i)
    ASSERT_TRUE(same(out.data[i], std::fabs(a[size_t(i)]))) << i;
  divs(out, x, 3.0f);
  for (int i = 0; i < R * N; ++i)
    ASSERT_TRUE(same(out.data[i], a[size_t(i)] / 3.0f)) << i;

  Tile<Loc::Vec, float, R, N> scratch;
  assign(scratch, 42016);
  rowexpandmul(out, x, rowv, scratch);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < N; ++c)
      ASSERT_TRUE(same(out.at(r, c), a[size_t(r * N + c)] * b[size_t(r * 3)]));
  colexpandsub(out, x, colv);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < N; ++c)
      ASSERT_TRUE(same(out.at(r, c), a[size_t(r * N + c)] - b[size_t(c)]));
}

/// An R x N float tile, the scratch tile and the column a row reduction
/// writes, placed in UB one after another.
template <int R, int N> struct RowReduceTiles {
  Tile<Loc::Vec, float, R, N> t, tmp;
  Tile<Loc::Vec, float, R, 1, Layout::ColMajor> m;
  explicit RowReduceTiles(int cols) : t(R, cols), tmp(R, cols), m(R, 1) {
    assign(t, 0);
    assign(tmp, R * N * 4);
    assign(m, 2 * R * N * 4);
  }
};

// TROWSUM over f32 rows adds in the order of the cube's dot products
// (tile.hpp, row_sum): lane l of eight starts at element l and adds the
// elements at l mod 8 in order, the lanes go through the fixed tree, then
// the tail; fewer than eight in order. Written out naively here and
// compared bit for bit over rows of every length to 300, with infinities,
// NaNs, -0.0 rows and large and tiny values mixed in, on tiles under and
// over 1024 elements (the loop compiled for the baseline and for AVX2).
TEST(TileSimTest, RowSumsAddInTheLaneOrder) {
  auto lanes_then_tree = [](const float *x, int n) {
    if (n < 8) {
      float s = x[0];
      for (int c = 1; c < n; ++c)
        s = s + x[c];
      return s;
    }
    float lane[8];
    for (int l = 0; l < 8; ++l)
      lane[l] = x[l];
    int c = 8;
    for (; c + 8 <= n; c += 8)
      for (int l = 0; l < 8; ++l)
        lane[l] = lane[l] + x[c + l];
    float s = ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
              ((lane[4] + lane[5]) + (lane[6] + lane[7]));
    for (; c < n; ++c)
      s = s + x[c];
    return s;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  const float pool[] = {0.0f,  -0.0f,  inf,    -inf,  1.0f,   -1.0f,
                        3e38f, -3e38f, 1e-40f, 1e30f, -1e30f, 2.5f};
  std::mt19937 rng(78);
  constexpr int R = 4, N = 300;
  for (int cols = 1; cols <= N; ++cols) {
    KernelScope scope;
    RowReduceTiles<R, N> tiles(cols);
    auto &t = tiles.t;
    auto &m = tiles.m;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < cols; ++c)
        t.at(r, c) =
            r == 0   ? -0.0f
            : r == 1 ? std::uniform_real_distribution<float>(-4, 4)(rng)
            : rng() % 4 == 0
                ? pool[rng() % std::size(pool)]
                : std::uniform_real_distribution<float>(-1e6f, 1e6f)(rng);
    if (cols % 37 == 0)
      t.at(3, cols / 2) = nan;
    rowsum(m, t, tiles.tmp);
    for (int r = 0; r < R; ++r) {
      const float want = lanes_then_tree(&t.at(r, 0), cols);
      if (std::isnan(want))
        ASSERT_TRUE(std::isnan(m.at(r, 0))) << "row " << r << " of " << cols;
      else
        ASSERT_EQ(float_bits(m.at(r, 0)), float_bits(want))
            << "row " << r << " of " << cols << " columns";
    }
  }
}

TEST(TileSimTest, RowExtremesAreTheFoldToTheBit) {
  // rowmax/rowmin over f32 rows find the extreme in independent lanes; the
  // result must be the sequential fold's, bit for bit: acc = x0, then acc =
  // acc > x ? acc : x (max) or acc < x ? acc : x (min). There a NaN is
  // replaced by the next element, equal elements replace acc (+0 vs -0),
  // and only what follows the last NaN counts.
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  const float pool[] = {0.0f, -0.0f, nan,   inf,    -inf,   1.0f,   -1.0f,
                        2.5f, -7.0f, 3e38f, -3e38f, 1e-40f, -1e-40f};
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  };
  std::mt19937 rng(77);
  constexpr int R = 8, N = 512;
  for (int trial = 0; trial < 300; ++trial) {
    KernelScope scope;
    const int cols = 1 + static_cast<int>(rng() % N);
    RowReduceTiles<R, N> tiles(cols);
    auto &t = tiles.t;
    auto &tmp = tiles.tmp;
    auto &m = tiles.m;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < cols; ++c) {
        // Mostly specials, zeros and few values in some rows, so that
        // ties, NaNs last and zero maxima all occur.
        // Every other trial without NaN: rows with none take the search
        // that looks for NaNs as it goes, and must still tie +0 and -0 and
        // meet the infinities as the fold does.
        const unsigned kind = rng() % 8;
        float special = pool[rng() % std::size(pool)];
        if (trial % 2 && special != special)
          special = -0.0f;
        t.at(r, c) = kind < 3 ? special
                     : kind < 5 && r % 2
                         ? (rng() % 2 ? 0.0f : -0.0f)
                         : std::uniform_real_distribution<float>(-4, 4)(rng);
        if (r == 3) // a row of zeros and negatives
          t.at(r, c) = rng() % 3 == 0 ? -std::fabs(t.at(r, c)) : -0.0f;
      }
    for (int greater = 0; greater < 2; ++greater) {
      if (greater)
        rowmax(m, t, tmp);
      else
        rowmin(m, t, tmp);
      for (int r = 0; r < R; ++r) {
        float acc = t.at(r, 0);
        for (int c = 1; c < cols; ++c) {
          const float x = t.at(r, c);
          acc = greater ? (acc > x ? acc : x) : (acc < x ? acc : x);
        }
        ASSERT_EQ(bits(m.at(r, 0)), bits(acc))
            << (greater ? "rowmax" : "rowmin") << " row " << r << " of " << cols
            << " columns, trial " << trial;
      }
    }
  }
}
