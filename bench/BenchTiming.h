// Timing for the bench/ drivers: the median over samples of the time per
// call, each sample long enough (>= 2 ms) to swamp the clock's resolution.
// The machine is shared and noisy, so drivers report ratios measured in the
// same run rather than absolute times alone.
#ifndef WSP_BENCH_BENCHTIMING_H
#define WSP_BENCH_BENCHTIMING_H

#include <algorithm>
#include <chrono>
#include <vector>

namespace wsp_bench {

/// Keeps results alive so the optimizer cannot drop the timed work.
inline volatile int sink;

/// Median nanoseconds per call of `f` over `samples` samples.
template <typename F> double median_ns(F &&f, int samples = 15) {
  using clock = std::chrono::steady_clock;
  int calls = 1;
  for (;;) { // calibrate: one sample should take >= 2 ms
    auto t0 = clock::now();
    for (int i = 0; i < calls; ++i)
      f();
    if (clock::now() - t0 > std::chrono::milliseconds(2) || calls > (1 << 24))
      break;
    calls *= 2;
  }
  std::vector<double> times;
  for (int s = 0; s < samples; ++s) {
    auto t0 = clock::now();
    for (int i = 0; i < calls; ++i)
      f();
    times.push_back(
        std::chrono::duration<double, std::nano>(clock::now() - t0).count() /
        calls);
  }
  std::nth_element(times.begin(), times.begin() + samples / 2, times.end());
  return times[samples / 2];
}

template <typename F> double median_us(F &&f, int samples = 15) {
  return median_ns(f, samples) / 1e3;
}

/// Median microseconds per step of `run`, a sequence of `steps` steps,
/// over `runs` runs (a run is timed whole: its steps depend on each other).
template <typename F> double median_step_us(F &&run, int steps, int runs = 9) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::micro>(
                        std::chrono::steady_clock::now() - t0)
                        .count() /
                    steps);
  }
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

} // namespace wsp_bench

#endif // WSP_BENCH_BENCHTIMING_H
