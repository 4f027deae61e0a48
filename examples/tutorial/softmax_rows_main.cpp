// Runs the emitted softmax_rows (force-included: -include softmax_rows.cpp)
// in the CPU simulation on 64 random rows and compares it with a naive
// softmax computed here in double. The kernel computes in float; the
// difference stays below 1e-6 for values in [-4, 4].
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  const int rows = 64, cols = 64;
  std::vector<float> x(rows * cols), y(rows * cols);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-4.f, 4.f);
  for (float &v : x)
    v = uni(rng);
  wsp_gen::softmax_rows(wsp_gen::MemRef<float, 2>{x.data(), {rows, cols}},
                        wsp_gen::MemRef<float, 2>{y.data(), {rows, cols}});
  double max_err = 0;
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      m = std::fmax(m, x[r * cols + c]);
    for (int c = 0; c < cols; ++c)
      sum += std::exp(x[r * cols + c] - m);
    for (int c = 0; c < cols; ++c)
      max_err = std::fmax(max_err, std::fabs(y[r * cols + c] -
                                             std::exp(x[r * cols + c] - m) / sum));
  }
  std::printf("softmax of %d rows: max |err| %.1e: %s\n", rows, max_err,
              max_err < 1e-6 ? "ok" : "MISMATCH");
  return max_err < 1e-6 ? 0 : 1;
}
