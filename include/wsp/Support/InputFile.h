//===- InputFile.h - reading a program, bounded -----------------*- C++ -*-===//
//
// The tools read their input through openBoundedInput: a regular file, a
// pipe or standard input ("-"), at most kMaxInputBytes. A device
// (/dev/zero) is refused before anything is read, and a stream that goes
// on past the bound is refused when it passes it, so that no input makes a
// tool read until memory runs out.
//
//===----------------------------------------------------------------------===//

#ifndef WSP_SUPPORT_INPUTFILE_H
#define WSP_SUPPORT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir {
namespace wsp {

/// The largest program a tool reads: 1 GiB.
constexpr uint64_t kMaxInputBytes = uint64_t(1) << 30;

/// Whether `path` may be read as a program before anything is read of it:
/// not a directory or a device, and a regular file at most kMaxInputBytes
/// ("-" and pipes are checked as they are read). Else false, with `error`
/// one line naming the file and what is wrong.
bool checkInputPath(llvm::StringRef path, std::string &error);

/// The contents of `path` ("-": standard input), or null with `error` set
/// to one line naming the file and what is wrong.
std::unique_ptr<llvm::MemoryBuffer> openBoundedInput(llvm::StringRef path,
                                                     std::string &error);

} // namespace wsp
} // namespace mlir

#endif // WSP_SUPPORT_INPUTFILE_H
