// Runs test/Target/Cpp/all-reduce.mlir's emitted functions (force-included)
// on ranks of a pto::runtime::comm::ThreadGroup, against loops over the
// ranks written here.
#include <cstdio>
#include <vector>

namespace comm = pto::runtime::comm;
using wsp_gen::MemRef;

static void report(const char *what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "ok" : "MISMATCH");
}

int main() {
  bool all = true;
  // f32 sums of 0.1 r + i in rank order.
  {
    std::vector<std::vector<float>> x(3, std::vector<float>(8));
    std::vector<int32_t> status(3, -1);
    for (int r = 0; r < 3; ++r)
      for (int i = 0; i < 8; ++i)
        x[r][i] = 0.1f * float(r) + float(i);
    std::vector<float> want(8);
    for (int i = 0; i < 8; ++i)
      want[i] = (x[0][i] + x[1][i]) + x[2][i];
    comm::ThreadGroup(3).run([&](comm::Communicator &c) {
      status[c.rank()] =
          wsp_gen::sum_any(MemRef<float, 2>{x[c.rank()].data(), {2, 4}});
    });
    bool ok = true;
    for (int r = 0; r < 3; ++r)
      ok = ok && status[r] == 0 && x[r] == want;
    report("sum_any on 3 ranks", ok);
    all = all && ok;
  }
  // max over ranks; then a rank whose earlier work failed (status 7): it
  // returns 7, the others 3 (INVALID_PARAMS), nothing written; then a group
  // of 2 for a grid of 3: 3 everywhere.
  for (int mode = 0; mode < 3; ++mode) {
    const int ranks = mode == 2 ? 2 : 3;
    std::vector<std::vector<int32_t>> x(ranks);
    std::vector<int32_t> status(ranks, -1);
    for (int r = 0; r < ranks; ++r)
      x[r] = {r, -r, 10 - r};
    comm::ThreadGroup(ranks).run([&](comm::Communicator &c) {
      const int r = c.rank();
      status[r] = wsp_gen::max_on_3(MemRef<int32_t, 1>{x[r].data(), {3}},
                                    mode == 1 && r == 1 ? 7 : 0);
    });
    bool ok = true;
    for (int r = 0; r < ranks; ++r) {
      const std::vector<int32_t> mine = {r, -r, 10 - r};
      if (mode == 0)
        ok = ok && status[r] == 0 && x[r] == std::vector<int32_t>{2, 0, 10};
      else
        ok = ok && status[r] == (mode == 1 && r == 1 ? 7 : 3) && x[r] == mine;
    }
    report(mode == 0   ? "max_on_3 on 3 ranks"
           : mode == 1 ? "max_on_3 after a failure on rank 1"
                       : "max_on_3 on 2 ranks",
           ok);
    all = all && ok;
  }
  return all ? 0 : 1;
}
