// StepTable (step_table.hpp): a step built once and replayed gives what
// rebuilding every token gives, token by token and chained; each patch kind
// lands where it says; re-planned launches see this step's KV lengths; bad
// replays return an error with nothing launched or written (a table built
// with invalid arguments, a position past INT_MAX); a replay that fails
// stops at a token boundary and says which.
#include <pto/runtime/incremental_planner.hpp>
#include <pto/runtime/runtime.hpp>
#include <pto/runtime/step_table.hpp>

#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <vector>

using namespace pto::runtime;

namespace {

// A toy single-sequence model, four launches, whose next token depends on
// every patched value: embed reads tokens[t], rope adds the position, the
// attention stand-in adds 2 x the KV length, argmax writes tokens[t + 1].
struct Toy {
  std::vector<int32_t> tokens = std::vector<int32_t>(40, 0);
  int32_t hidden = 0;
  int launches = 0;
};
Toy *g_toy = nullptr;

int32_t embed(void *const *buffers, const uint8_t *, const WorkDescriptor *,
              int) {
  ++g_toy->launches;
  *static_cast<int32_t *>(buffers[1]) =
      *static_cast<const int32_t *>(buffers[0]) * 7 + 3;
  return 0;
}
int32_t rope(void *const *buffers, const uint8_t *params,
             const WorkDescriptor *, int) {
  ++g_toy->launches;
  uint32_t pos;
  std::memcpy(&pos, params + 4, 4);
  *static_cast<int32_t *>(buffers[0]) += static_cast<int32_t>(pos);
  return 0;
}
int32_t attend(void *const *buffers, const uint8_t *params,
               const WorkDescriptor *, int) {
  ++g_toy->launches;
  uint32_t pos, kv;
  std::memcpy(&pos, params + 0, 4);
  std::memcpy(&kv, params + 8, 4);
  *static_cast<int32_t *>(buffers[0]) += static_cast<int32_t>(2 * kv + pos);
  return 0;
}
int32_t argmax(void *const *buffers, const uint8_t *, const WorkDescriptor *,
               int) {
  ++g_toy->launches;
  *static_cast<int32_t *>(buffers[1]) =
      *static_cast<const int32_t *>(buffers[0]) % 1000;
  return 0;
}

StepCommand command(StepCommand::Launch launch,
                    std::initializer_list<void *> buffers) {
  StepCommand c{};
  c.launch = launch;
  for (void *b : buffers)
    c.buffers[c.buffer_count++] = b;
  c.param_size = 16;
  return c;
}

/// The toy step's table; what a model's build function does once.
void build(StepTable &table, Toy &toy) {
  StepCommand e = command(embed, {toy.tokens.data(), &toy.hidden});
  e.patch = StepPatch::TokenOffset;
  e.patch_buffer = 0;
  e.patch_stride = 4;
  ASSERT_TRUE(table.add(e, "embed"));
  StepCommand r = command(rope, {&toy.hidden});
  r.patch = StepPatch::Position;
  r.patch_offset_1 = 4;
  ASSERT_TRUE(table.add(r, "layer.0.rope"));
  StepCommand a = command(attend, {&toy.hidden});
  a.patch = StepPatch::PosAndKv;
  a.patch_offset_1 = 0;
  a.patch_offset_2 = 8;
  ASSERT_TRUE(table.add(a, "layer.0.attention"));
  // The argmax as an emitted step records it: bound arguments, then the
  // row token 0 writes, one after the row it reads.
  ASSERT_TRUE(table.add_launch(argmax, &toy.hidden, "argmax",
                               StepPatch::ArgmaxOutput, toy.tokens.data() + 1,
                               4));
}

/// The same step computed directly: the reference.
int32_t reference_next(int32_t token, int position) {
  const int32_t hidden =
      token * 7 + 3 + position + 2 * (position + 1) + position;
  return hidden % 1000;
}

} // namespace

TEST(StepTable, ReplayEqualsRebuildEveryTokenAndChained) {
  constexpr int kPrompt = 5, kTokens = 32;
  Toy replayed, chained, rebuilt;
  for (Toy *toy : {&replayed, &chained, &rebuilt})
    toy->tokens[0] = 17;
  // Replayed token by token from one table.
  g_toy = &replayed;
  StepTable table(40, 64, kPrompt);
  build(table, replayed);
  for (int t = 0; t < kTokens; ++t)
    ASSERT_EQ(table.replay(t), 0);
  // Chained: all tokens in one call.
  g_toy = &chained;
  StepTable chain(40, 64, kPrompt);
  build(chain, chained);
  ASSERT_EQ(chain.replay_chain(0, kTokens), 0);
  // Rebuilt every token.
  g_toy = &rebuilt;
  for (int t = 0; t < kTokens; ++t) {
    StepTable fresh(40, 64, kPrompt);
    build(fresh, rebuilt);
    ASSERT_EQ(fresh.replay(t), 0);
  }
  int32_t token = 17;
  for (int t = 0; t < kTokens; ++t) {
    token = reference_next(token, kPrompt + t);
    EXPECT_EQ(replayed.tokens[t + 1], token) << "token " << t;
  }
  EXPECT_EQ(replayed.tokens, chained.tokens);
  EXPECT_EQ(replayed.tokens, rebuilt.tokens);
  EXPECT_EQ(replayed.launches, 4 * kTokens);
  EXPECT_STREQ(table.label(2), "layer.0.attention");
}

TEST(StepTable, BadReplaysWriteNothing) {
  Toy toy;
  g_toy = &toy;
  StepTable table(7, 10, 4); // tokens 0..6; KV capacity 10 from position 4
  build(table, toy);
  const std::vector<int32_t> before = toy.tokens;
  // Token 7 is past the table's tokens.
  EXPECT_EQ(table.replay(7), static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW));
  // Tokens 0..6 reach position 10: an 11th KV position.
  EXPECT_EQ(table.replay_chain(0, 7),
            static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW));
  EXPECT_EQ(table.replay(-1), static_cast<int32_t>(PlanResult::INVALID_PARAMS));
  EXPECT_EQ(toy.launches, 0);
  EXPECT_EQ(toy.tokens, before);
  // Still valid: tokens 0..5 fit.
  EXPECT_EQ(table.replay_chain(0, 6), 0);
  EXPECT_EQ(toy.launches, 24);
  // An empty table replays nothing.
  StepTable empty(8, 10);
  EXPECT_EQ(empty.replay(0), static_cast<int32_t>(PlanResult::INVALID_PARAMS));
}

TEST(StepTable, RejectsCommandsItCannotPatch) {
  Toy toy;
  StepTable table(8, 10);
  StepCommand c = command(rope, {&toy.hidden});
  c.patch = StepPatch::Position;
  c.patch_offset_1 = 14; // 14 + 4 > 16 parameter bytes
  EXPECT_FALSE(table.add(c, "past the parameters"));
  c.patch_offset_1 = 6; // not a uint32 slot
  EXPECT_FALSE(table.add(c, "misaligned"));
  c.patch = StepPatch::PosAndKv;
  c.patch_offset_1 = c.patch_offset_2 = 4; // both at one slot
  EXPECT_FALSE(table.add(c, "one slot twice"));
  c.patch = StepPatch::TokenOffset;
  c.patch_buffer = 1; // one buffer bound
  c.patch_stride = 4;
  EXPECT_FALSE(table.add(c, "no such buffer"));
  c.patch_buffer = 0;
  c.patch_stride = 0;
  EXPECT_FALSE(table.add(c, "no stride"));
  c.launch = nullptr;
  c.patch = StepPatch::None;
  EXPECT_FALSE(table.add(c, "no launch"));
  EXPECT_EQ(table.size(), 0u);
}

TEST(StepTable, RefusesOtherArguments) {
  std::vector<float> a(4), b(4), other(4);
  struct Arguments {
    float *a, *b;
    int64_t batch;
  };
  StepTable table(8, 10);
  const Arguments bound{a.data(), b.data(), 4};
  table.bind_arguments(&bound, sizeof bound);
  EXPECT_TRUE(table.matches(&bound, sizeof bound));
  const Arguments moved{a.data(), other.data(), 4};
  EXPECT_FALSE(table.matches(&moved, sizeof moved));
  const Arguments reshaped{a.data(), b.data(), 3};
  EXPECT_FALSE(table.matches(&reshaped, sizeof reshaped));
  EXPECT_FALSE(table.matches(&bound, sizeof bound - 8));
}

namespace {
// A batch: per-request KV lengths advanced by the table and an attention
// launch re-planned from them by IncrementalPlan.
struct BatchPlan {
  AttentionPlanner planner{PlanConfig{16, 64, 64, false}};
  std::vector<WorkDescriptor> buffer = std::vector<WorkDescriptor>(512);
  IncrementalPlan<AttentionPlanner> plan{planner, 8, 2, buffer.data(), 512};
};

int32_t replan(void *state, const int32_t *kv_lens, int batch,
               const WorkDescriptor **descs, int *count) {
  auto *p = static_cast<BatchPlan *>(state);
  const PlanResult result = p->plan.update(kv_lens, batch, count);
  *descs = p->plan.descriptors();
  return static_cast<int32_t>(result);
}

// Covered KV positions per request (head 0): the plan must cover each
// request's whole length, whatever its chunking.
int32_t covered(void *const *buffers, const uint8_t *,
                const WorkDescriptor *descs, int count) {
  auto *out = static_cast<int32_t *>(buffers[0]);
  std::memset(out, 0, sizeof(int32_t) * 8);
  for (int i = 0; i < count; ++i)
    if (params::Attention::head_idx(descs[i]) == 0)
      out[params::Attention::request_idx(descs[i])] +=
          static_cast<int32_t>(params::Attention::kv_len(descs[i]));
  return 0;
}
} // namespace

TEST(StepTable, ReplannedLaunchesSeeThisStepsLengths) {
  BatchPlan plan;
  std::vector<int32_t> kv_lens = {3, 40, 17, 1};
  std::vector<int32_t> positions = {2, 39, 16, 0};
  std::vector<int32_t> out(8, 0);
  StepTable table(64, 100);
  table.bind_requests(positions.data(), kv_lens.data(), 4);
  StepCommand c = command(covered, {out.data()});
  c.replan = replan;
  c.plan = &plan;
  ASSERT_TRUE(table.add(c, "attention"));
  for (int t = 0; t < 50; ++t) {
    const std::vector<int32_t> lens = kv_lens;
    ASSERT_EQ(table.replay(t), 0);
    for (int b = 0; b < 4; ++b)
      ASSERT_EQ(out[b], lens[b]) << "token " << t << " request " << b;
    // The plan the launch saw is a fresh plan of this step's lengths.
    int count = 0;
    std::vector<WorkDescriptor> fresh(512);
    const int chunk = plan.planner.plan_chunk_size(lens.data(), 4, 2);
    ASSERT_EQ(plan.planner.generate(lens.data(), 4, 2, chunk, fresh.data(), 512,
                                    &count),
              PlanResult::OK);
    ASSERT_EQ(count, plan.plan.count());
    ASSERT_EQ(std::memcmp(fresh.data(), plan.buffer.data(),
                          sizeof(WorkDescriptor) * count),
              0);
  }
  EXPECT_EQ(kv_lens[1], 90);
  EXPECT_EQ(positions[1], 89);
  // Request 1 has 90 of 100 positions cached: 10 more tokens fill the
  // cache, an 11th would pass it.
  EXPECT_EQ(table.replay_chain(50, 11),
            static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW));
  EXPECT_EQ(kv_lens[1], 90);
  EXPECT_EQ(table.replay_chain(50, 10), 0);
  EXPECT_EQ(out[1], 99);
}

TEST(StepTable, InvalidConstructionRefusesEveryCall) {
  // A position base below 0 (a launch would see position 4294967291 at
  // -5), a negative token count or KV capacity: the table records no
  // command and replays nothing, INVALID_PARAMS.
  struct Arguments {
    int max_tokens, kv_capacity, position_base;
  };
  for (const Arguments a : {Arguments{8, 64, -5}, Arguments{-1, 64, 0},
                            Arguments{8, -1, 0}, Arguments{8, -3, 2}}) {
    SCOPED_TRACE(::testing::Message() << "StepTable(" << a.max_tokens << ", "
                                      << a.kv_capacity << ", "
                                      << a.position_base << ")");
    Toy toy;
    g_toy = &toy;
    StepTable table(a.max_tokens, a.kv_capacity, a.position_base);
    StepCommand r = command(rope, {&toy.hidden});
    r.patch = StepPatch::Position;
    r.patch_offset_1 = 4;
    EXPECT_FALSE(table.add(r, "layer.0.rope"));
    EXPECT_FALSE(table.add_launch(argmax, &toy.hidden, "argmax",
                                  StepPatch::ArgmaxOutput,
                                  toy.tokens.data() + 1, 4));
    EXPECT_EQ(table.size(), 0u);
    EXPECT_EQ(table.replay(0),
              static_cast<int32_t>(PlanResult::INVALID_PARAMS));
    EXPECT_EQ(table.replay_chain(0, 0),
              static_cast<int32_t>(PlanResult::INVALID_PARAMS));
    EXPECT_EQ(toy.launches, 0);
    EXPECT_EQ(toy.hidden, 0);
  }
  // The edges are valid: no tokens, no KV positions, position 0.
  StepTable edge(0, 0, 0);
  Toy toy;
  EXPECT_TRUE(edge.add(command(argmax, {&toy.hidden, toy.tokens.data()}),
                       "argmax"));
}

namespace {
int32_t count_launch(void *const *buffers, const uint8_t *,
                     const WorkDescriptor *, int) {
  ++*static_cast<int *>(buffers[0]);
  return 0;
}
} // namespace

TEST(StepTable, PositionsPastIntMaxAreRefused) {
  // A token at position p sees p + 1 KV positions, and a request's
  // position advances to p + 1 after it: both must be ints.
  int launches = 0;
  std::vector<int32_t> positions = {7, INT_MAX - 3};
  StepTable requests(8, 64);
  requests.bind_requests(positions.data(), nullptr, 2);
  ASSERT_TRUE(requests.add(command(count_launch, {&launches}), "count"));
  // Request 1's tokens at INT_MAX - 3 .. INT_MAX - 1 fit; a fourth, at
  // INT_MAX, does not.
  EXPECT_EQ(requests.replay_chain(0, 4),
            static_cast<int32_t>(PlanResult::INVALID_PARAMS));
  EXPECT_EQ(launches, 0);
  EXPECT_EQ(positions, (std::vector<int32_t>{7, INT_MAX - 3}));
  EXPECT_EQ(requests.replay_chain(0, 3), 0);
  EXPECT_EQ(launches, 3);
  EXPECT_EQ(positions, (std::vector<int32_t>{10, INT_MAX}));
  EXPECT_EQ(requests.replay(3),
            static_cast<int32_t>(PlanResult::INVALID_PARAMS));
  EXPECT_EQ(positions, (std::vector<int32_t>{10, INT_MAX}));

  // The same from the table's position base: token t is at base + t.
  launches = 0;
  StepTable based(8, 64, INT_MAX - 3);
  ASSERT_TRUE(based.add(command(count_launch, {&launches}), "count"));
  EXPECT_EQ(based.replay_chain(0, 3), 0);
  EXPECT_EQ(based.replay(3),
            static_cast<int32_t>(PlanResult::INVALID_PARAMS));
  EXPECT_EQ(based.replay(5),
            static_cast<int32_t>(PlanResult::INVALID_PARAMS));
  EXPECT_EQ(based.replay_chain(2, 2),
            static_cast<int32_t>(PlanResult::INVALID_PARAMS));
  EXPECT_EQ(launches, 3);
}

namespace {
// A step of two launches, the second re-planned: the first records which
// tokens it ran; the re-plan fails (UNSUPPORTED_SIZE) while request 0's KV
// length is `fail_at`, or the second launch fails (BUFFER_OVERFLOW) at
// that length when `launch_fails`.
struct Flaky {
  std::vector<int> ran_first, ran_second;
  int32_t fail_at = -1;
  bool launch_fails = false;
  int32_t kv = 0; // request 0's KV length, as the re-plan saw it
};

int32_t record_first(void *const *buffers, const uint8_t *params,
                     const WorkDescriptor *, int) {
  uint32_t token;
  std::memcpy(&token, params, 4);
  static_cast<Flaky *>(buffers[0])->ran_first.push_back(
      static_cast<int>(token));
  return 0;
}
int32_t record_second(void *const *buffers, const uint8_t *params,
                      const WorkDescriptor *, int) {
  auto *f = static_cast<Flaky *>(buffers[0]);
  if (f->launch_fails && f->kv == f->fail_at)
    return static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW);
  uint32_t token;
  std::memcpy(&token, params, 4);
  f->ran_second.push_back(static_cast<int>(token));
  return 0;
}
int32_t flaky_replan(void *state, const int32_t *kv_lens, int,
                     const WorkDescriptor **descs, int *count) {
  auto *f = static_cast<Flaky *>(state);
  f->kv = kv_lens[0];
  *descs = nullptr;
  *count = 0;
  return !f->launch_fails && kv_lens[0] == f->fail_at
             ? static_cast<int32_t>(PlanResult::UNSUPPORTED_SIZE)
             : 0;
}

/// The flaky step's table: both launches get the position (position base
/// 0, so the token) in their parameters.
void build_flaky(StepTable &table, Flaky &f) {
  StepCommand first = command(record_first, {&f});
  first.patch = StepPatch::Position;
  first.patch_offset_1 = 0;
  ASSERT_TRUE(table.add(first, "first"));
  StepCommand second = command(record_second, {&f});
  second.patch = StepPatch::Position;
  second.patch_offset_1 = 0;
  second.replan = flaky_replan;
  second.plan = &f;
  ASSERT_TRUE(table.add(second, "second"));
}
} // namespace

TEST(StepTable, AFailedReplanStopsAtATokenBoundary) {
  Flaky f;
  std::vector<int32_t> kv_lens = {10};
  StepTable table(16, 64);
  table.bind_requests(nullptr, kv_lens.data(), 1);
  build_flaky(table, f);
  // Token 3's re-plan fails: nothing of token 3 runs, and the table says
  // where it stopped.
  f.fail_at = 13;
  EXPECT_EQ(table.replay_chain(0, 6),
            static_cast<int32_t>(PlanResult::UNSUPPORTED_SIZE));
  EXPECT_EQ(f.ran_first, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(f.ran_second, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(kv_lens[0], 13);
  EXPECT_EQ(table.next_token(), 3);
  // A retry from there runs every token once.
  f.fail_at = -1;
  const int from = table.next_token();
  EXPECT_EQ(table.replay_chain(from, 6 - from), 0);
  EXPECT_EQ(table.next_token(), 6);
  EXPECT_EQ(f.ran_first, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(f.ran_second, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(kv_lens[0], 16);
  // One token: the same.
  f.fail_at = 16;
  EXPECT_EQ(table.replay(6),
            static_cast<int32_t>(PlanResult::UNSUPPORTED_SIZE));
  EXPECT_EQ(f.ran_first.size(), 6u);
  EXPECT_EQ(table.next_token(), 6);
  // A call refused before anything runs stops at its first token.
  EXPECT_EQ(table.replay_chain(10, 7),
            static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW));
  EXPECT_EQ(table.next_token(), 10);
}

TEST(StepTable, AFailedLaunchSaysWhichTokenItStopped) {
  // A launch's own error cannot be undone: its token has run the launches
  // before it, and is the token the table says it stopped at; the
  // requests advance only past the tokens that completed.
  Flaky f;
  f.launch_fails = true;
  f.fail_at = 12;
  std::vector<int32_t> kv_lens = {10};
  StepTable table(16, 64);
  table.bind_requests(nullptr, kv_lens.data(), 1);
  build_flaky(table, f);
  EXPECT_EQ(table.replay_chain(0, 5),
            static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW));
  EXPECT_EQ(f.ran_first, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(f.ran_second, (std::vector<int>{0, 1}));
  EXPECT_EQ(kv_lens[0], 12);
  EXPECT_EQ(table.next_token(), 2);
}

// add_launch_patching: the patched position (at byte 0) and KV length (at
// 4, with PosAndKv; at 0 alone with KvSeqLen) reach the launch through its
// parameter bytes, read with patched_i32, for every token from the table's
// position base.
TEST(StepTable, LaunchesReadPatchedScalarsFromTheirParameters) {
  static std::vector<std::pair<int32_t, int32_t>> seen;
  seen.clear();
  auto both = [](void *const *, const uint8_t *params, const WorkDescriptor *,
                 int) -> int32_t {
    seen.push_back({patched_i32(params, 0), patched_i32(params, 4)});
    return 0;
  };
  auto kv = [](void *const *, const uint8_t *params, const WorkDescriptor *,
               int) -> int32_t {
    seen.push_back({-1, patched_i32(params, 0)});
    return 0;
  };
  StepTable table(8, 64, /*position_base=*/7);
  int bound = 0;
  ASSERT_TRUE(
      table.add_launch_patching(both, &bound, "both", StepPatch::PosAndKv));
  ASSERT_TRUE(table.add_launch_patching(kv, &bound, "kv", StepPatch::KvSeqLen));
  ASSERT_EQ(table.replay_chain(0, 3), 0);
  const std::vector<std::pair<int32_t, int32_t>> want = {
      {7, 8}, {-1, 8}, {8, 9}, {-1, 9}, {9, 10}, {-1, 10}};
  EXPECT_EQ(seen, want);
  // An invalid table (a negative position base) takes no command.
  StepTable invalid(8, 64, -1);
  EXPECT_FALSE(
      invalid.add_launch_patching(kv, &bound, "kv", StepPatch::KvSeqLen));
}
