// pto/runtime/step_table.hpp - a decode step built once and replayed
// (seed 004, akunu's dispatch table, with wsp's planned launches).
//
// A StepTable is a flat array of plain-old-data commands (hot) and a
// parallel array of labels (cold, read only for profiling). A build function
// fills it once: every launch of one decode step with its bound buffers
// (resolved to addresses), its constant parameter bytes, its launch
// function and either a static plan (descriptors planned once: the shape of
// a decode step does not change) or a re-plan hook (descriptors that depend
// on lengths that move every step: attention over the KV lengths, updated
// in place by IncrementalPlan). Replaying a token walks the commands,
// patches what moves with the position and calls each launch.
//
// Patches (seed 004's five kinds, named as there):
// - TokenOffset, ArgmaxOutput: the patched buffer, bound at build as the row
//   of token 0, points at the row of token `token` (rows patch_stride bytes
//   apart): the embedding's read and the argmax's write. Bound one row
//   apart in one token buffer (read row 0, write row 1), a chained replay
//   feeds each token's argmax into the next token's embedding read, as
//   akunu's token_index * 4 and (token_index + 1) * 4;
// - Position / KvSeqLen / PosAndKv: a uint32 in the parameter bytes at
//   patch_offset_1 (and _2) gets the position, position + 1, or both, for a
//   single sequence whose position is position_base + token.
// A batch's per-request positions and KV lengths live in two int32 buffers
// that the kernels and the re-plans read; the table advances each by one
// after every token. A KV length counts the positions cached before the
// token (the llm operators' kv_lens: the token is stored at that
// position), so a replay of n tokens needs kv_len + n <= kv_capacity.
//
// Errors (PlanResult codes), checked for the whole call before anything is
// written or launched, so the table stays valid: a token past the token
// buffer (BUFFER_OVERFLOW), a KV length past the cache capacity
// (BUFFER_OVERFLOW), a table without commands, a replay on buffers other
// than the ones it was built on, or a token whose position p would not
// leave p + 1 an int (INVALID_PARAMS). A table built with invalid
// arguments (a negative token count, KV capacity or position base) records
// no command (add() returns false) and replays nothing (INVALID_PARAMS).
//
// A replay fails at a token boundary: each token's re-plans all run before
// the first of its launches, and a re-plan's error returns with none of
// that token's launches run and its positions and KV lengths not advanced;
// next_token() is then that token, where a retry resumes. A launch's own
// error cannot be undone: it stops the replay at that command and is
// returned as is, its token part run (the launches before it) and not
// advanced, and next_token() is that token.
#ifndef PTO_RUNTIME_STEP_TABLE_HPP
#define PTO_RUNTIME_STEP_TABLE_HPP

#include "pto/runtime/work_descriptor.hpp"
#include "pto/runtime/work_planner.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace pto {
namespace runtime {

enum class StepPatch : uint8_t {
  None = 0,
  TokenOffset,
  Position,
  KvSeqLen,
  PosAndKv,
  ArgmaxOutput,
};

/// One launch of a step. Plain old data: built once, copied freely.
struct StepCommand {
  static constexpr int kMaxBuffers = 16;
  static constexpr int kMaxParams = 64;

  /// Runs the kernels of the launch over descs[0, count); 0 or an error.
  using Launch = int32_t (*)(void *const *buffers, const uint8_t *params,
                             const WorkDescriptor *descs, int count);
  /// Re-plans a launch from this step's per-request KV lengths; 0 or an
  /// error, with the plan in *descs, *count. A token's re-plans all run
  /// before its first launch, so the plan must stay as returned until the
  /// launch (two re-plans of one step share a buffer only if they plan
  /// alike).
  using Replan = int32_t (*)(void *plan, const int32_t *kv_lens, int batch,
                             const WorkDescriptor **descs, int *count);

  Launch launch;
  Replan replan;               // null: the static plan below
  void *plan;                  // the re-plan's state
  const WorkDescriptor *descs; // static plan
  int32_t count;
  uint8_t buffer_count;
  uint8_t param_size;
  StepPatch patch;
  uint8_t patch_buffer;       // TokenOffset / ArgmaxOutput: which buffer
  uint16_t patch_offset_1;    // Position / KvSeqLen / PosAndKv: byte offsets
  uint16_t patch_offset_2;    // in params (PosAndKv: position, KV length)
  uint32_t patch_stride;      // TokenOffset / ArgmaxOutput: bytes per token
  void *patch_base;           // TokenOffset / ArgmaxOutput: token 0's row (add)
  void *buffers[kMaxBuffers]; // bound buffers, resolved at build
  uint8_t params[kMaxParams]; // constant parameters (patched per token)
};
static_assert(std::is_trivially_copyable<StepCommand>::value,
              "StepCommand is plain old data");

/// The cold side: what a command is, for profiles and error messages.
struct StepLabel {
  char name[48];
};

/// A launch's patched value at byte `offset` of its parameters
/// (add_launch_patching's 0 and 4).
inline int32_t patched_i32(const uint8_t *params, int offset) {
  int32_t v;
  std::memcpy(&v, params + offset, sizeof v);
  return v;
}

class StepTable {
public:
  /// max_tokens: the tokens a replay may run (0 .. max_tokens - 1: a token
  /// buffer of max_tokens + 1 rows, read from row 0, written from row 1);
  /// kv_capacity: positions of one request's KV cache; position_base: the
  /// position of token 0. Each must be >= 0, else the table is invalid:
  /// add() refuses every command and a replay returns INVALID_PARAMS.
  StepTable(int max_tokens, int kv_capacity, int position_base = 0)
      : max_tokens_(max_tokens), kv_capacity_(kv_capacity),
        position_base_(position_base),
        valid_(max_tokens >= 0 && kv_capacity >= 0 && position_base >= 0) {}

  /// Build: appends a command and its label. Returns false (and adds
  /// nothing) for a command that cannot be replayed: no launch, too many
  /// buffers or parameter bytes, a patch outside its parameters or buffers,
  /// or any command of an invalid table.
  bool add(const StepCommand &command, const char *label) {
    if (!valid_ || !command.launch ||
        command.buffer_count > StepCommand::kMaxBuffers ||
        command.param_size > StepCommand::kMaxParams || !patch_fits(command))
      return false;
    commands_.push_back(command);
    plans_.emplace_back();
    if (command.replan)
      replanned_.push_back(commands_.size() - 1);
    if (command.patch == StepPatch::TokenOffset ||
        command.patch == StepPatch::ArgmaxOutput)
      commands_.back().patch_base = command.buffers[command.patch_buffer];
    uses_position_ |= command.patch == StepPatch::Position ||
                      command.patch == StepPatch::KvSeqLen ||
                      command.patch == StepPatch::PosAndKv;
    StepLabel l{};
    if (label)
      std::memcpy(l.name, label,
                  std::min(std::strlen(label), sizeof(l.name) - 1));
    labels_.push_back(l);
    return true;
  }

  /// Build: the per-request state a batch advances every token (both may be
  /// null for a single sequence driven by position patches alone).
  void bind_requests(int32_t *positions, int32_t *kv_lens, int batch) {
    positions_ = positions;
    kv_lens_ = kv_lens;
    batch_ = batch;
  }

  /// Build: the arguments the table was built on (their bytes: buffer
  /// addresses, shapes, scalars), so that a replay on others is refused
  /// (matches()).
  void bind_arguments(const void *arguments, size_t bytes) {
    const auto *p = static_cast<const uint8_t *>(arguments);
    arguments_.assign(p, p + bytes);
  }
  bool matches(const void *arguments, size_t bytes) const {
    return bytes == arguments_.size() &&
           (bytes == 0 ||
            std::memcmp(arguments, arguments_.data(), bytes) == 0);
  }

  /// Build: a launch whose bound arguments live at `bound` (buffers[0] of
  /// its command); with a TokenOffset or ArgmaxOutput patch, `patched` is
  /// the row token 0 reads or writes (buffers[1]), rows `row_bytes` apart.
  /// Returns false as add() does.
  bool add_launch(StepCommand::Launch launch, void *bound, const char *label,
                  StepPatch patch = StepPatch::None, void *patched = nullptr,
                  uint32_t row_bytes = 0) {
    StepCommand c{};
    c.launch = launch;
    c.buffers[0] = bound;
    c.buffer_count = 1;
    if (patch != StepPatch::None) {
      c.buffers[1] = patched;
      c.buffer_count = 2;
      c.patch = patch;
      c.patch_buffer = 1;
      c.patch_stride = row_bytes;
    }
    return add(c, label);
  }

  /// Build: a launch with a Position, KvSeqLen or PosAndKv patch, whose
  /// launch reads the patched values from its parameter bytes (patched_i32):
  /// at 0, and for PosAndKv the KV length at 4. Returns false as add() does.
  bool add_launch_patching(StepCommand::Launch launch, void *bound,
                           const char *label, StepPatch patch) {
    StepCommand c{};
    c.launch = launch;
    c.buffers[0] = bound;
    c.buffer_count = 1;
    c.patch = patch;
    c.param_size = patch == StepPatch::PosAndKv ? 8 : 4;
    c.patch_offset_1 = 0;
    c.patch_offset_2 = 4;
    return add(c, label);
  }

  /// Replays one token: re-plans, then patches and launches every command,
  /// then advances the per-request positions and KV lengths.
  int32_t replay(int token) { return replay_chain(token, 1); }

  /// Replays tokens [first, first + n) in one call; token i's argmax row is
  /// token i + 1's embedding row. On an error, next_token() says which
  /// token the replay stopped at (see the file comment).
  int32_t replay_chain(int first, int n) {
    next_token_ = first;
    const int32_t checked = check(first, n);
    if (checked != 0)
      return checked;
    for (int t = first; t < first + n; ++t) {
      // Everything the token needs before its first launch: its re-plans
      // (from the KV lengths, which move only between tokens).
      for (size_t i : replanned_) {
        StepCommand &c = commands_[i];
        const int32_t status = c.replan(c.plan, kv_lens_, batch_,
                                        &plans_[i].descs, &plans_[i].count);
        if (status != 0)
          return status;
      }
      for (size_t i = 0; i < commands_.size(); ++i) {
        const int32_t status = run(commands_[i], t, plans_[i]);
        if (status != 0)
          return status;
      }
      for (int b = 0; b < batch_; ++b) {
        if (positions_)
          ++positions_[b];
        if (kv_lens_)
          ++kv_lens_[b];
      }
      next_token_ = t + 1;
    }
    return 0;
  }

  /// Where the last replay stopped: the first token it did not complete
  /// (first + n after a success, `first` when it was refused before
  /// running anything). A retry resumes there:
  /// replay_chain(next_token(), first + n - next_token()).
  int next_token() const { return next_token_; }

  size_t size() const { return commands_.size(); }
  /// The i-th command as the last replay patched it.
  const StepCommand &command(size_t i) const { return commands_[i]; }
  const char *label(size_t i) const { return labels_[i].name; }
  void clear() {
    commands_.clear();
    labels_.clear();
    replanned_.clear();
    plans_.clear();
    uses_position_ = false;
  }

private:
  /// A re-plan's result, kept from before its token's first launch to its
  /// own launch.
  struct Planned {
    const WorkDescriptor *descs = nullptr;
    int count = 0;
  };

  /// Every bound of the whole call, before anything is written.
  int32_t check(int first, int n) const {
    if (!valid_ || commands_.empty() || n < 0 || first < 0)
      return static_cast<int32_t>(PlanResult::INVALID_PARAMS);
    if (static_cast<int64_t>(first) + n > max_tokens_)
      return static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW);
    // The last token's position p sees p + 1 KV positions.
    if (uses_position_ &&
        static_cast<int64_t>(position_base_) + first + n > kv_capacity_)
      return static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW);
    for (int b = 0; kv_lens_ && b < batch_; ++b)
      if (kv_lens_[b] < 0 ||
          static_cast<int64_t>(kv_lens_[b]) + n > kv_capacity_)
        return static_cast<int32_t>(PlanResult::BUFFER_OVERFLOW);
    // The last token's position p (and the p + 1 KV positions it sees, the
    // position a request advances to) must be an int.
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (static_cast<int64_t>(position_base_) + first + n > kMax)
      return static_cast<int32_t>(PlanResult::INVALID_PARAMS);
    for (int b = 0; positions_ && b < batch_; ++b)
      if (static_cast<int64_t>(positions_[b]) + n > kMax)
        return static_cast<int32_t>(PlanResult::INVALID_PARAMS);
    return 0;
  }

  static bool patch_fits(const StepCommand &c) {
    auto in_params = [&](uint16_t offset) {
      return offset % 4 == 0 && offset + 4u <= c.param_size;
    };
    switch (c.patch) {
    case StepPatch::None:
      return true;
    case StepPatch::TokenOffset:
    case StepPatch::ArgmaxOutput:
      return c.patch_buffer < c.buffer_count && c.patch_stride > 0;
    case StepPatch::Position:
    case StepPatch::KvSeqLen:
      return in_params(c.patch_offset_1);
    case StepPatch::PosAndKv:
      return in_params(c.patch_offset_1) && in_params(c.patch_offset_2) &&
             c.patch_offset_1 != c.patch_offset_2;
    }
    return false;
  }

  /// Patches the command in place (the table owns it and only replay reads
  /// it) and launches it, with its static plan or what its re-plan gave
  /// (`planned`).
  int32_t run(StepCommand &c, int token, const Planned &planned) const {
    const WorkDescriptor *descs = c.replan ? planned.descs : c.descs;
    const int count = c.replan ? planned.count : c.count;
    const uint32_t position = static_cast<uint32_t>(position_base_ + token);
    switch (c.patch) {
    case StepPatch::None:
      break;
    case StepPatch::TokenOffset:
    case StepPatch::ArgmaxOutput: {
      c.buffers[c.patch_buffer] = static_cast<uint8_t *>(c.patch_base) +
                                  static_cast<size_t>(token) * c.patch_stride;
      break;
    }
    case StepPatch::Position:
    case StepPatch::KvSeqLen:
    case StepPatch::PosAndKv: {
      const uint32_t first =
          c.patch == StepPatch::KvSeqLen ? position + 1 : position;
      std::memcpy(c.params + c.patch_offset_1, &first, 4);
      if (c.patch == StepPatch::PosAndKv) {
        const uint32_t kv = position + 1;
        std::memcpy(c.params + c.patch_offset_2, &kv, 4);
      }
      break;
    }
    }
    return c.launch(c.buffers, c.params, descs, count);
  }

  std::vector<StepCommand> commands_; // hot
  std::vector<StepLabel> labels_;     // cold
  std::vector<size_t> replanned_;     // the commands with a re-plan hook
  std::vector<Planned> plans_;        // per command: its re-plan's result
  std::vector<uint8_t> arguments_;
  int max_tokens_;
  int kv_capacity_;
  int position_base_;
  bool valid_; // the constructor's arguments are
  int32_t *positions_ = nullptr;
  int32_t *kv_lens_ = nullptr;
  int batch_ = 0;
  bool uses_position_ = false;
  int next_token_ = 0;
};

} // namespace runtime
} // namespace pto

#endif // PTO_RUNTIME_STEP_TABLE_HPP
