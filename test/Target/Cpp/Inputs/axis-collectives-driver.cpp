// Runs test/Target/Cpp/axis-collectives.mlir's emitted functions
// (force-included) on ranks of a pto::runtime::comm::ThreadGroup, against
// index loops written here.
#include <cstdio>
#include <vector>

namespace comm = pto::runtime::comm;
using wsp_gen::MemRef;

static bool all = true;
static void report(const char *what, int ranks, bool ok) {
  std::printf("%s on %d ranks: %s\n", what, ranks, ok ? "ok" : "MISMATCH");
  all = all && ok;
}

int main() {
  // gather_heads: x_r[i][j][k] = 100 r + 10 i + j + k / 10, h = 2.
  for (int ranks : {1, 4}) {
    const int h = 2;
    std::vector<std::vector<float>> x(ranks), all_of(ranks);
    std::vector<int32_t> status(ranks, -1);
    for (int r = 0; r < ranks; ++r) {
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < h; ++j)
          for (int k = 0; k < 3; ++k)
            x[r].push_back(100.f * r + 10.f * i + j + k / 10.f);
      all_of[r].assign(size_t(2 * ranks * h * 3), -1.f);
    }
    comm::ThreadGroup(ranks).run([&](comm::Communicator &c) {
      const int r = c.rank();
      status[r] = wsp_gen::gather_heads(
          MemRef<float, 3>{x[r].data(), {2, h, 3}},
          MemRef<float, 3>{all_of[r].data(), {2, ranks * h, 3}});
    });
    bool ok = true;
    for (int r = 0; r < ranks; ++r) {
      ok = ok && status[r] == 0;
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < ranks * h; ++j)
          for (int k = 0; k < 3; ++k)
            ok = ok && all_of[r][size_t((i * ranks * h + j) * 3 + k)] ==
                           x[j / h][size_t((i * h + j % h) * 3 + k)];
    }
    report("gather_heads", ranks, ok);
  }
  // exchange on 3 ranks; then rank 0 not ready (status 5): it returns 5,
  // the others 3, nothing written.
  for (int mode = 0; mode < 2; ++mode) {
    const int ranks = 3;
    std::vector<std::vector<int32_t>> x(ranks), y(ranks);
    std::vector<int32_t> status(ranks, -1);
    for (int r = 0; r < ranks; ++r) {
      for (int i = 0; i < ranks * 2 * 2 * 3; ++i)
        x[r].push_back(1000 * r + i);
      y[r].assign(size_t(2 * ranks * 2 * 3), -1);
    }
    comm::ThreadGroup(ranks).run([&](comm::Communicator &c) {
      const int r = c.rank();
      status[r] = wsp_gen::exchange(
          MemRef<int32_t, 3>{x[r].data(), {ranks * 2, 2, 3}},
          MemRef<int32_t, 3>{y[r].data(), {2, ranks * 2, 3}},
          mode == 1 && r == 0 ? 5 : 0);
    });
    bool ok = true;
    for (int r = 0; r < ranks; ++r) {
      if (mode == 1) {
        ok = ok && status[r] == (r == 0 ? 5 : 3) &&
             y[r] == std::vector<int32_t>(y[r].size(), -1);
        continue;
      }
      ok = ok && status[r] == 0;
      // y_r[i][f * 2 + j][k] = x_f[r * 2 + i][j][k].
      for (int i = 0; i < 2; ++i)
        for (int f = 0; f < ranks; ++f)
          for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k)
              ok = ok && y[r][size_t((i * ranks * 2 + f * 2 + j) * 3 + k)] ==
                             x[f][size_t(((r * 2 + i) * 2 + j) * 3 + k)];
    }
    if (mode == 0)
      report("exchange", ranks, ok);
    else
      std::printf("exchange after a failure on rank 0: %s\n",
                  ok ? "ok" : "MISMATCH"),
          all = all && ok;
  }
  // my_rows on @two: rank r gets rows [2 r, 2 r + 2) of its staging, whose
  // row 0 became a copy of row 3; on 3 ranks every rank returns 3.
  for (int ranks : {2, 3}) {
    std::vector<std::vector<int32_t>> staging(ranks), half(ranks), rank(ranks);
    std::vector<int32_t> status(ranks, -1);
    for (int r = 0; r < ranks; ++r) {
      for (int i = 0; i < 8; ++i)
        staging[r].push_back(10 * r + i);
      half[r].assign(4, -1);
      rank[r].assign(1, -1);
    }
    comm::ThreadGroup(ranks).run([&](comm::Communicator &c) {
      const int r = c.rank();
      status[r] = wsp_gen::my_rows(MemRef<int32_t, 2>{staging[r].data(), {4, 2}},
                                   MemRef<int32_t, 2>{half[r].data(), {2, 2}},
                                   MemRef<int32_t, 1>{rank[r].data(), {1}});
    });
    bool ok = true;
    for (int r = 0; r < ranks; ++r) {
      ok = ok && rank[r][0] == r && staging[r][0] == 10 * r + 6 &&
           staging[r][1] == 10 * r + 7;
      if (ranks == 3) {
        ok = ok && status[r] == 3 && half[r] == std::vector<int32_t>(4, -1);
        continue;
      }
      ok = ok && status[r] == 0;
      for (int i = 0; i < 4; ++i)
        ok = ok && half[r][size_t(i)] == staging[r][size_t(r * 4 + i)];
    }
    report("my_rows", ranks, ok);
  }
  // rows_and_columns on the 2 x 3 grid: rank r = 3 i + j sums x over its
  // row i (axis 1) and gathers the ranks of its column j (axis 0); on 4
  // ranks the grid's 6 do not fit: every rank returns 3, x as it was.
  for (int ranks : {6, 4}) {
    std::vector<std::vector<float>> x(ranks);
    std::vector<std::vector<int32_t>> at(ranks), me(ranks), column(ranks);
    std::vector<int32_t> status(ranks, -1);
    for (int r = 0; r < ranks; ++r) {
      x[r] = {float(r + 1), 10.f * float(r + 1)};
      at[r].assign(2, -1);
      me[r].assign(1, -1);
      column[r].assign(2, -1);
    }
    comm::ThreadGroup(ranks).run([&](comm::Communicator &c) {
      const int r = c.rank();
      status[r] = wsp_gen::rows_and_columns(
          MemRef<float, 1>{x[r].data(), {2}},
          MemRef<int32_t, 1>{at[r].data(), {2}},
          MemRef<int32_t, 1>{me[r].data(), {1}},
          MemRef<int32_t, 1>{column[r].data(), {2}});
    });
    bool ok = true;
    for (int r = 0; r < ranks; ++r) {
      if (ranks != 6) {
        ok = ok && status[r] == 3 && x[r][0] == float(r + 1) &&
             column[r] == std::vector<int32_t>(2, -1);
        continue;
      }
      const int i = r / 3, j = r % 3;
      float row = 0;
      for (int k = 0; k < 3; ++k)
        row += float(3 * i + k + 1);
      ok = ok && status[r] == 0 && x[r][0] == row && x[r][1] == 10.f * row &&
           at[r][0] == j && at[r][1] == i && column[r][0] == j &&
           column[r][1] == 3 + j;
    }
    report("rows_and_columns", ranks, ok);
  }
  return all ? 0 : 1;
}
