// A decode step built once and replayed (step_table.hpp) against the same
// table rebuilt every token, same run, kernels excluded.
//
// The step is shaped like a 32-layer decoder: per layer 9 launches (norm,
// QKV, RoPE with a position patch, KV store and attention with KV-length
// patches, output projection, norm, gate/up, down), plus the embedding read
// (token offset patch), the final norm, the LM head and the argmax (argmax
// output patch): 292 commands, about half of them patched. Every launch is
// an empty function the compiler cannot inline, so a replay measures the
// table walk, the patches and the call. A rebuild does what an engine
// without a table does per token: looks each weight up by name, fills the
// parameter structs, plans each launch's work descriptors (48 row blocks per
// launch, the spec planner's generate, as wsp's emitted step does for every
// launch whose shape is fixed), labels and appends every command.
//
// Goals (issue 15): replay <= 5 ns per command, >= 50x faster than a
// rebuild.
#include "BenchTiming.h"

#include <pto/runtime/runtime.hpp>
#include <pto/runtime/step_table.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

using namespace pto::runtime;

namespace {

constexpr int kLayers = 32;

__attribute__((noinline)) int32_t launch(void *const *buffers,
                                         const uint8_t *params,
                                         const WorkDescriptor *, int count) {
  // Touch what a launcher reads, so nothing is optimized away.
  wsp_bench::sink = count + params[0] + (buffers[0] != nullptr);
  return 0;
}

/// Each launch's static plan: 48 row blocks of 32 rows.
const AttentionPlanner planner(PlanConfig{32, 32, 65536, false});

struct Weights {
  std::unordered_map<std::string, std::vector<uint8_t>> named;
  std::vector<int32_t> tokens = std::vector<int32_t>(4096, 1);
  std::vector<uint8_t> scratch = std::vector<uint8_t>(1 << 16);
  std::vector<WorkDescriptor> plans = std::vector<WorkDescriptor>(48 * 400);
  int planned = 0;
  Weights() {
    const char *parts[] = {"attn_norm", "wqkv",   "wo",      "mlp_norm",
                           "w_gate_up", "w_down", "k_cache", "v_cache"};
    for (int l = 0; l < kLayers; ++l)
      for (const char *p : parts)
        named["layer." + std::to_string(l) + "." + p].resize(64);
    for (const char *p : {"embedding", "final_norm", "lm_head"})
      named[p].resize(64);
  }
  void *weight(const std::string &name) { return named.at(name).data(); }
};

struct Params {
  uint32_t dims[4];
  uint32_t position;
  uint32_t kv_len;
  float eps;
  uint32_t pad[9];
};

StepCommand make(Weights &w, void *a, void *b, const Params &p,
                 StepPatch patch) {
  StepCommand c{};
  const int rows = 48 * 32;
  WorkDescriptor *descs = w.plans.data() + 48 * w.planned++;
  if (planner.generate(&rows, 1, 1, 32, descs, 48, &c.count) != PlanResult::OK)
    std::abort();
  c.descs = descs;
  c.launch = launch;
  c.buffers[0] = a;
  c.buffers[1] = b;
  c.buffer_count = 2;
  std::memcpy(c.params, &p, sizeof(p));
  c.param_size = sizeof(p);
  c.patch = patch;
  c.patch_offset_1 = patch == StepPatch::KvSeqLen ? offsetof(Params, kv_len)
                                                  : offsetof(Params, position);
  c.patch_offset_2 = offsetof(Params, kv_len);
  c.patch_stride = 4;
  c.patch_buffer = patch == StepPatch::ArgmaxOutput ? 1 : 0;
  return c;
}

/// What a build does once and a rebuild every token.
void build(StepTable &table, Weights &w) {
  table.clear();
  w.planned = 0;
  Params p{{512, 64, 8, 2}, 0, 0, 1e-6f, {}};
  char label[48];
  void *x = w.scratch.data();
  table.add(make(w, w.tokens.data(), w.weight("embedding"), p,
                 StepPatch::TokenOffset),
            "embedding");
  for (int l = 0; l < kLayers; ++l) {
    const std::string layer = "layer." + std::to_string(l) + ".";
    struct Op {
      const char *name, *weight;
      StepPatch patch;
    } ops[] = {{"attn_norm", "attn_norm", StepPatch::None},
               {"qkv", "wqkv", StepPatch::None},
               {"rope", "wqkv", StepPatch::Position},
               {"kv_store", "k_cache", StepPatch::PosAndKv},
               {"attention", "v_cache", StepPatch::KvSeqLen},
               {"o_proj", "wo", StepPatch::None},
               {"mlp_norm", "mlp_norm", StepPatch::None},
               {"gate_up", "w_gate_up", StepPatch::None},
               {"down", "w_down", StepPatch::None}};
    for (const Op &op : ops) {
      std::snprintf(label, sizeof(label), "%s%s", layer.c_str(), op.name);
      table.add(make(w, x, w.weight(layer + op.weight), p, op.patch), label);
    }
  }
  table.add(make(w, x, w.weight("final_norm"), p, StepPatch::None),
            "final_norm");
  table.add(make(w, x, w.weight("lm_head"), p, StepPatch::None), "lm_head");
  table.add(make(w, x, w.tokens.data() + 1, p, StepPatch::ArgmaxOutput),
            "argmax");
}

} // namespace

int main() {
  Weights w;
  StepTable table(4096, 1 << 20, 100);
  build(table, w);
  const size_t commands = table.size();
  size_t patched = 0;
  for (size_t i = 0; i < commands; ++i)
    patched += table.command(i).patch != StepPatch::None;

  int token = 0;
  const double replay_ns = wsp_bench::median_ns([&] {
    if (table.replay(token) != 0)
      std::abort();
    token = (token + 1) % 4000;
  });
  int chained_from = 0;
  constexpr int kChain = 32;
  const double chain_ns = wsp_bench::median_ns([&] {
    if (table.replay_chain(chained_from, kChain) != 0)
      std::abort();
    chained_from = (chained_from + kChain) % 3968;
  });
  StepTable rebuilt(4096, 1 << 20, 100);
  token = 0;
  const double rebuild_ns = wsp_bench::median_ns([&] {
    build(rebuilt, w);
    if (rebuilt.replay(token) != 0)
      std::abort();
    token = (token + 1) % 4000;
  });
  std::printf("step table: %zu commands (%zu patched), %zu bytes per command "
              "(hot), %zu per label (cold)\n",
              commands, patched, sizeof(StepCommand), sizeof(StepLabel));
  std::printf("replay one token      %8.0f ns  %5.2f ns per command "
              "(goal <= 5)\n",
              replay_ns, replay_ns / commands);
  std::printf("replay chained x%d    %8.0f ns  %5.2f ns per command\n", kChain,
              chain_ns, chain_ns / (commands * kChain));
  std::printf("rebuild + replay      %8.0f ns  %5.2f ns per command; replay "
              "is %.0fx faster (goal >= 50x)\n",
              rebuild_ns, rebuild_ns / commands, rebuild_ns / replay_ns);
  return 0;
}
