// The C++ side of bench/python/call_overhead.py: calls a compiled
// program's C entry point `n` times on the same arguments, as a C++ caller
// would, and returns the seconds per call. Loaded with ctypes into the
// Python process that calls the same entry point, so both run on the same
// library, data and machine state.
#include <chrono>
#include <cstdint>

struct wsp_capi_call;
using Entry = int32_t (*)(void *const *, const int64_t *, wsp_capi_call *);

extern "C" double wsp_bench_call_loop(Entry entry, void *const *args,
                                      const int64_t *sizes, int64_t n) {
  int32_t sink = 0;
  auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n; ++i)
    sink |= entry(args, sizes, nullptr);
  auto end = std::chrono::steady_clock::now();
  return sink == -12345 ? 0.0
                        : std::chrono::duration<double>(end - start).count() /
                              static_cast<double>(n);
}
