// The device form of examples/ir/decode_attention.mlir under pto-isa's
// perf-sim cost model: one decode step of 24 requests of the same length
// (argv[1]), and the line scripts/pto-isa/costmodel.py prints for it.
//
// A host program without pto-isa: it calls the AICPU entry decode_step,
// which plans the step and launches the AICore entry through the emitted
// cost-model hook; the hook simulates each block and writes its report to
// $WSP_COSTMODEL_OUT/decode_attention_table/block_NN/. Then this program
// reads the reports and prints the modeled cycles (the slowest block), the
// bound (the K/V bytes the busiest block loads over the modeled GM -> L1
// bandwidth; every other bound is far below it) and, on a second line, the
// busy cycles of each pipe of the slowest block.
//
// Shapes: q_len 1, 16 query heads on 2 KV heads (16 query rows per
// request), head_dim 128, bf16 pages of 128 positions, 24 requests per
// step. The caches are mapped, never written: the cost model moves no data;
// the AICPU and the kernels' scalar code read only the lengths, ids and
// block table.
#include "wsp_module_abi.h"
#include "harness.hpp"


#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int decode_step(void *args);

namespace rt = pto::runtime;
using wsp_gen::bf16;
using wsp_gen::MemRef;
using harness::zero_pages;

namespace {

constexpr int kBlocks = 24; // the dispatch's mix(24); one workspace each
constexpr int kHeads = 16, kKvHeads = 2, kHeadDim = 128, kPage = 128;
constexpr int kBatch = 24;
// pto-isa's A2/A3 cost model moves GM -> L1 at 135 GiB/s at 1.85 GHz
// (include/pto/costmodel/arch_config.hpp): 78.35 bytes per cycle.
constexpr double kGmToL1BytesPerCycle = 78.35;

/// One row of a block's <table>_pipeline_summary.csv (one unit).
using Row = std::map<std::string, long long>;

/// The rows of a perf-sim pipeline summary, by unit (AIC, AIV0, AIV1).
std::map<std::string, Row> read_summary(const std::string &path) {
  std::map<std::string, Row> units;
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');)
      cells.push_back(cell);
    if (header.empty()) {
      header = cells;
      continue;
    }
    Row row;
    std::string unit;
    for (size_t i = 0; i < cells.size() && i < header.size(); ++i) {
      if (header[i] == "unit")
        unit = cells[i];
      else if (header[i] != "op_name")
        row[header[i]] = std::atoll(cells[i].c_str());
    }
    units[unit] = row;
  }
  return units;
}

int run(int len, const std::string &dir, std::mt19937 &rng) {
  const int pages_per_req = (len + kPage - 1) / kPage;
  const int pages = kBatch * pages_per_req;
  std::vector<int32_t> pool(pages), kv_ids(kBatch), lens(kBatch, len);
  std::iota(pool.begin(), pool.end(), 0);
  std::shuffle(pool.begin(), pool.end(), rng);
  std::iota(kv_ids.begin(), kv_ids.end(), 0);
  std::shuffle(kv_ids.begin(), kv_ids.end(), rng);
  std::vector<int32_t> table(static_cast<size_t>(kBatch) * pages_per_req);
  for (int b = 0, next = 0; b < kBatch; ++b)
    for (int j = 0; j < pages_per_req; ++j)
      table[static_cast<size_t>(kv_ids[b]) * pages_per_req + j] = pool[next++];

  const size_t cache = static_cast<size_t>(pages) * kKvHeads * kPage * kHeadDim;
  const size_t q_elems = static_cast<size_t>(kBatch) * kHeads * kHeadDim;
  const size_t acc_rows = static_cast<size_t>(kBatch) * kKvHeads * 32;
  const size_t ws = static_cast<size_t>(kBlocks) * 32 * 128;
  std::vector<rt::WorkDescriptor> descs(kBatch * kKvHeads * ((len + 255) / 256));
  const int64_t P = pages;
  wsp_gen::decode_step_args args{
      MemRef<bf16, 4>{zero_pages<bf16>(q_elems), {kBatch, 1, kHeads, kHeadDim}},
      MemRef<int32_t, 1>{kv_ids.data(), {kBatch}},
      MemRef<int32_t, 1>{lens.data(), {kBatch}},
      MemRef<int32_t, 2>{table.data(), {kBatch, pages_per_req}},
      MemRef<bf16, 4>{zero_pages<bf16>(cache), {P, kKvHeads, kPage, kHeadDim}},
      MemRef<bf16, 4>{zero_pages<bf16>(cache), {P, kKvHeads, kPage, kHeadDim}},
      MemRef<float, 4>{zero_pages<float>(acc_rows * 128), {kBatch, kKvHeads, 32, 128}},
      MemRef<float, 3>{zero_pages<float>(acc_rows), {kBatch, kKvHeads, 32}},
      MemRef<float, 3>{zero_pages<float>(acc_rows), {kBatch, kKvHeads, 32}},
      MemRef<bf16, 4>{zero_pages<bf16>(q_elems), {kBatch, 1, kHeads, kHeadDim}},
      MemRef<rt::WorkDescriptor, 1>{descs.data(),
                                    {static_cast<int64_t>(descs.size())}},
      MemRef<bf16, 3>{zero_pages<bf16>(ws), {kBlocks, 32, 128}},
      MemRef<float, 3>{zero_pages<float>(ws), {kBlocks, 32, 128}},
      MemRef<bf16, 3>{zero_pages<bf16>(ws), {kBlocks, 32, 128}},
      MemRef<float, 3>{zero_pages<float>(ws), {kBlocks, 32, 128}},
  };
  setenv("WSP_COSTMODEL_OUT", dir.c_str(), 1);
  if (int status = decode_step(&args)) {
    std::printf("decode_attention: decode_step status %d\n", status);
    return 1;
  }

  // What each block loads of the cache: its descriptors (shared out
  // row-affine, as the AICore entry does), K and V of each position.
  // (The buffer started zeroed; every planned unit has KV positions.)
  int count = 0;
  while (count < static_cast<int>(descs.size()) &&
         rt::params::Attention::kv_len(descs[count]) > 0)
    ++count;
  std::vector<double> kv_bytes(kBlocks);
  for (int c = 0; c < kBlocks; ++c)
    for (int i = rt::row_range_begin(descs.data(), count, c, kBlocks),
             end = rt::row_range_begin(descs.data(), count, c + 1, kBlocks);
         i < end; ++i)
      kv_bytes[c] += 2.0 * rt::params::Attention::kv_len(descs[i]) *
                     kHeadDim * sizeof(bf16);
  const double bound =
      *std::max_element(kv_bytes.begin(), kv_bytes.end()) / kGmToL1BytesPerCycle;

  // The slowest block and its pipes.
  long long cycles = -1;
  int slowest = -1;
  std::map<std::string, Row> units;
  for (int c = 0; c < kBlocks; ++c) {
    char block[16];
    std::snprintf(block, sizeof block, "block_%02d", c);
    auto u = read_summary(dir + "/decode_attention_table/" + block +
                          "/decode_attention_table_pipeline_summary.csv");
    if (u.count("AIC") == 0) {
      std::printf("decode_attention: no report for block %d\n", c);
      return 1;
    }
    for (auto &[name, row] : u)
      if (row["busy_cycles"] > 0 && row["active_cycles"] == 0) {
        std::printf("decode_attention: block %d's %s never became active "
                    "(the simulation stopped)\n",
                    c, name.c_str());
        return 1;
      }
    if (u["AIC"]["total_cycles"] > cycles) {
      cycles = u["AIC"]["total_cycles"];
      slowest = c;
      units = u;
    }
  }
  std::printf("costmodel: decode_attention b%d_h%d_kvh%d_d%d_kv%d cycles=%lld "
              "bound=%.0f bound_kind=gm ratio=%.2f\n",
              kBatch, kHeads, kKvHeads, kHeadDim, len, cycles, bound,
              cycles / bound);
  Row &aic = units["AIC"];
  std::printf("  (%d descriptors; block %d busy: AIC scalar %lld mte2 %lld "
              "mte1 %lld cube %lld fixp %lld",
              count, slowest, aic["scalar_cycles"], aic["mte2_aic_cycles"],
              aic["mte1_cycles"], aic["cube_cycles"], aic["fixp_cycles"]);
  for (const char *v : {"AIV0", "AIV1"}) {
    Row &r = units[v];
    std::printf(" | %s mte2 %lld vec %lld mte3 %lld", v, r["mte2_aiv_cycles"],
                r["vec_cycles"], r["mte3_cycles"]);
  }
  std::printf(")\n");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  const int len = argc == 3 ? std::atoi(argv[1]) : 0;
  if (len < 1 || len > 131072) {
    std::fprintf(stderr, "usage: %s KV_LEN OUT_DIR (KV_LEN in [1, 131072])\n",
                 argv[0]);
    return 2;
  }
  std::mt19937 rng(42);
  return run(len, argv[2], rng);
}
