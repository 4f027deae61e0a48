//===- StepCapture.h - what a wsp.step's table records ----------*- C++ -*-===//
//
// One derivation of a captured step's table (its function, patched
// arguments and launches) for the backend's contract, wsp-check-emittable,
// which names at the op each reason the emitters cannot print the step,
// and for the printer, which prints what the contract accepted.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_LIB_TARGET_CPP_STEPCAPTURE_H
#define WSP_LIB_TARGET_CPP_STEPCAPTURE_H

#include "wsp/Dialect/Wsp/IR/WspOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace wsp {
namespace cpp {

/// One launch a step's table records: a func.call of the captured function.
struct StepLaunch {
  func::CallOp call;
  /// The call's operand that the patched token buffer feeds (this token's
  /// row of it), if one does.
  std::optional<unsigned> patched;
  /// What that buffer's patch does: token_offset or argmax_output.
  StepPatchKind kind = StepPatchKind::token_offset;
  /// The call's operands that the patched position and KV length scalars
  /// feed (seed 004's position, kv_seq_len, pos_and_kv), if they do: the
  /// launch reads them from its command's parameter bytes.
  std::optional<unsigned> position, kvSeqLen;
  /// The call's wsp.replay_with variant, which the table calls in its
  /// place with the buffers it keeps (the variant's arguments past the
  /// call's operands); null without one.
  func::FuncOp kept;
};

/// What a wsp.step's table is made of.
struct StepCapture {
  /// The captured function: a definition that returns the step's status.
  func::FuncOp function;
  /// The arguments patched per request (request_positions,
  /// request_kv_lens), if any.
  std::optional<unsigned> positions, kvLens;
  /// The i32 scalar arguments patched with the position and the KV length
  /// (position + 1) of a single sequence, if any.
  std::optional<unsigned> position, kvSeqLen;
  /// The function's func.call ops, in program order.
  SmallVector<StepLaunch> launches;
};

/// The table of `step`, or failure if the emitters cannot print it. With
/// `diagnose` (the contract), each reason is an error at the op it concerns
/// (the step, the call, or the op that uses a token buffer); without it
/// (the printer, which prints what the contract accepted), none is.
/// Expects a verified module (StepOp::verifySymbolUses: the patches land in
/// the function's arguments, of their kinds).
FailureOr<StepCapture>
getStepCapture(StepOp step, SymbolTableCollection &symbols, bool diagnose);

} // namespace cpp
} // namespace wsp
} // namespace mlir

#endif // WSP_LIB_TARGET_CPP_STEPCAPTURE_H
