//===- InputFile.cpp - reading a program, bounded -------------------------===//

#include "wsp/Support/InputFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

/// Reads `file` to its end, or fails once it passes the bound.
static std::unique_ptr<MemoryBuffer>
readStream(sys::fs::file_t file, StringRef name, std::string &error) {
  SmallVector<char, 0> text;
  constexpr size_t kChunk = 1 << 16;
  while (true) {
    size_t at = text.size();
    text.resize_for_overwrite(at + kChunk);
    Expected<size_t> n = sys::fs::readNativeFile(
        file, MutableArrayRef(text.data() + at, kChunk));
    if (!n) {
      error = "cannot read '" + name.str() + "': " + toString(n.takeError());
      return nullptr;
    }
    text.truncate(at + *n);
    if (*n == 0)
      break;
    if (text.size() > mlir::wsp::kMaxInputBytes) {
      error = "'" + name.str() + "' is larger than 1 GiB, the most wsp reads";
      return nullptr;
    }
  }
  return MemoryBuffer::getMemBufferCopy(StringRef(text.data(), text.size()),
                                        name);
}

bool mlir::wsp::checkInputPath(StringRef path, std::string &error) {
  if (path == "-")
    return true;
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(path, status)) {
    error = "cannot open input file '" + path.str() + "': " + ec.message();
    return false;
  }
  if (sys::fs::is_directory(status)) {
    error = "'" + path.str() + "' is a directory, not a program";
    return false;
  }
  if (status.type() == sys::fs::file_type::character_file ||
      status.type() == sys::fs::file_type::block_file) {
    error = "'" + path.str() + "' is a device, not a program";
    return false;
  }
  if (sys::fs::is_regular_file(status) && status.getSize() > kMaxInputBytes) {
    error = "'" + path.str() + "' is larger than 1 GiB, the most wsp reads";
    return false;
  }
  return true;
}

/// The contents of `path`, which checkInputPath accepted.
static std::unique_ptr<MemoryBuffer> readChecked(StringRef path,
                                                 std::string &error) {
  if (path == "-")
    return readStream(sys::fs::getStdinHandle(), "<stdin>", error);
  if (sys::fs::is_regular_file(path)) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> file =
        MemoryBuffer::getFile(path, /*IsText=*/false,
                              /*RequiresNullTerminator=*/true);
    if (!file) {
      error = "cannot open input file '" + path.str() +
              "': " + file.getError().message();
      return nullptr;
    }
    return std::move(*file);
  }
  // A pipe or a socket: read as a stream, bounded.
  Expected<sys::fs::file_t> file = sys::fs::openNativeFileForRead(path);
  if (!file) {
    error = "cannot open input file '" + path.str() +
            "': " + toString(file.takeError());
    return nullptr;
  }
  std::unique_ptr<MemoryBuffer> buffer = readStream(*file, path, error);
  sys::fs::closeFile(*file);
  return buffer;
}

std::unique_ptr<MemoryBuffer> mlir::wsp::openBoundedInput(StringRef path,
                                                          std::string &error) {
  if (!checkInputPath(path, error))
    return nullptr;
  return readChecked(path, error);
}

bool mlir::wsp::checkNesting(StringRef text, std::string &error) {
  unsigned depth = 0, line = 1;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"') {
      // A string: to its closing quote (escapes skipped), on one line.
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < e && text[i] == '\n')
        ++line;
    } else if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      // A comment: to the end of its line.
      while (i + 1 < e && text[i + 1] != '\n')
        ++i;
    } else if (c == '{' || c == '[' || c == '(') {
      if (++depth > kMaxNesting) {
        error = "line " + std::to_string(line) + " nests deeper than " +
                std::to_string(kMaxNesting) +
                " levels, the most wsp parses (MLIR's parser recurses per "
                "level)";
        return false;
      }
    } else if ((c == '}' || c == ']' || c == ')') && depth > 0) {
      --depth;
    }
  }
  return true;
}

bool mlir::wsp::checkProgramFile(StringRef path, std::string &error) {
  if (!checkInputPath(path, error))
    return false;
  if (path == "-" || !sys::fs::is_regular_file(path))
    return true;
  std::unique_ptr<MemoryBuffer> text = readChecked(path, error);
  if (!text)
    return false;
  if (checkNesting(text->getBuffer(), error))
    return true;
  error = "'" + path.str() + "': " + error;
  return false;
}
