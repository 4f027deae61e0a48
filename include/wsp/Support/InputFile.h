//===- InputFile.h - reading a program, bounded -----------------*- C++ -*-===//
//
// The tools read their input through openBoundedInput: a regular file, a
// pipe or standard input ("-"), at most kMaxInputBytes. A device
// (/dev/zero) is refused before anything is read, and a stream that goes
// on past the bound is refused when it passes it, so that no input makes a
// tool read until memory runs out. checkNesting refuses, before it is
// parsed, a program nested deeper than the parser's recursion can take.
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

/// The deepest nesting of braces, brackets and parentheses (regions, blocks,
/// attribute lists) a program may have. MLIR's parser recurses per level:
/// 5,000 nested regions overflow a default 8 MiB stack; 1,000 leave it
/// three times the room it needs (3,000 parse and run the pipeline).
constexpr unsigned kMaxNesting = 1000;

/// Whether `text`, a program, nests at most kMaxNesting deep (outside its
/// strings and comments). Else false, with `error` naming the line where
/// it passes the limit. Checked before parsing, so that no program
/// overflows the stack of a tool or of the Python interpreter.
bool checkNesting(llvm::StringRef text, std::string &error);

/// checkInputPath, then checkNesting of `path` when it is a regular file
/// ("-" and streams can be read only once: the tool reading them checks
/// them). For the drivers whose parsing MLIR's own main function does
/// (wsp-opt, wsp-translate).
bool checkProgramFile(llvm::StringRef path, std::string &error);

} // namespace wsp
} // namespace mlir

#endif // WSP_SUPPORT_INPUTFILE_H
