// Driver of scalar-forms.mlir: runs the emitted functions (force-included)
// and prints what they computed.
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  std::printf("scalars %.2f\n", wsp_gen::scalars(0.25f, 7, false, true, 3));
  const double z = wsp_gen::maxf(0.0, -0.0);
  const double e = wsp_gen::maxf(1.0 + 1e-12, 1.0) - 1.0;
  std::printf("maximumf(+0, -0) = %s0, maximumf(1 + 1e-12, 1) - 1 = %.0e\n",
              std::signbit(z) ? "-" : "+", e);
  std::vector<wsp_gen::f16> in(16 * 128), out(16 * 128);
  for (int i = 0; i < 16 * 128; ++i)
    in[i] = pto::runtime::f32_to_f16(0.25f * (i % 8));
  in[0] = pto::runtime::f32_to_f16(1.5f);
  wsp_gen::f16_adds(wsp_gen::MemRef<wsp_gen::f16, 2>{in.data(), {16, 128}},
                    wsp_gen::MemRef<wsp_gen::f16, 2>{out.data(), {16, 128}});
  bool ok = true;
  for (int i = 0; i < 16 * 128; ++i)
    ok &= pto::runtime::f16_to_f32(out[i]) ==
          pto::runtime::f16_to_f32(in[i]) + 1.5f;
  std::printf("f16 adds: %s\n", ok ? "ok" : "MISMATCH");
  std::printf("fcmp %d %d %d\n", wsp_gen::fcmp(2.f, 1.f),
              wsp_gen::fcmp(1.f, 2.f), wsp_gen::fcmp(NAN, 1.f));
  return ok ? 0 : 1;
}
