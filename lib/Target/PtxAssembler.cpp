//===- PtxAssembler.cpp - PTX to cubin/fatbin with the CUDA toolkit -------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/PtxAssembler.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>
#include <optional>
#include <vector>

using namespace easyml;
using llvm::StringRef;

static llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
  llvm::Error create(StringRef suffix) {
    int fd;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("easyml-ptx", suffix, fd, path))
      return failure("cannot create a temporary file: " + ec.message());
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    remover.emplace(path);
    return llvm::Error::success();
  }
};

/// Runs `argv` with stdout and stderr to a temporary file; returns what it
/// printed, or an error naming the tool with that text.
llvm::Expected<std::string> run(const std::vector<std::string> &argv) {
  TempFile log;
  if (llvm::Error e = log.create("log"))
    return std::move(e);
  std::vector<StringRef> args(argv.begin(), argv.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log.path),
                                          StringRef(log.path)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(argv.front(), args, std::nullopt,
                                     redirects, 0, 0, &message);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(log.path))
    output = (*buffer)->getBuffer().trim().str();
  if (rc != 0) {
    std::string why = !output.empty() ? output : message;
    return failure(llvm::sys::path::filename(argv.front()) + " failed" +
                   (why.empty() ? "" : ": " + why));
  }
  return output;
}
} // namespace

llvm::Expected<CudaRelease> easyml::ptxasRelease(StringRef toolkit) {
  static std::mutex mutex;
  static std::map<std::string, CudaRelease> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(toolkit.str());
  if (it != known.end())
    return it->second;
  std::string ptxas = (toolkit + "/bin/ptxas").str();
  auto text = run({ptxas, "--version"});
  if (!text)
    return text.takeError();
  size_t at = StringRef(*text).find("release ");
  CudaRelease release;
  if (at == StringRef::npos)
    return failure("'" + ptxas + " --version' names no release");
  StringRef rest = StringRef(*text).drop_front(at + strlen("release "));
  auto [major, tail] = rest.split('.');
  StringRef minor = tail.take_while(llvm::isDigit);
  if (major.getAsInteger(10, release.major) ||
      minor.getAsInteger(10, release.minor))
    return failure("'" + ptxas + " --version' names no release");
  known[toolkit.str()] = release;
  return release;
}

bool easyml::supportsSharedMemorySpilling(const CudaRelease &release) {
  return release.atLeast(12, 8);
}

llvm::Expected<std::string> easyml::preparePtx(StringRef ptx,
                                               bool sharedMemorySpilling) {
  std::string text;
  text.reserve(ptx.size() + 256);
  for (char c : ptx)
    if (c != '\0')
      text.push_back(c);
  if (!sharedMemorySpilling)
    return text;
  // `.version X.Y`: the first directive of a PTX module.
  size_t version = text.find(".version ");
  if (version == std::string::npos)
    return failure("not PTX: no .version directive");
  size_t numberBegin = version + strlen(".version ");
  size_t numberEnd = text.find_first_of(" \t\r\n", numberBegin);
  StringRef number = StringRef(text).slice(numberBegin, numberEnd).trim();
  auto [major, minor] = number.split('.');
  unsigned ma, mi;
  if (major.getAsInteger(10, ma) || minor.getAsInteger(10, mi))
    return failure("not PTX: .version '" + number + "'");
  if (ma < 8 || (ma == 8 && mi < 7))
    text.replace(numberBegin, numberEnd - numberBegin, "8.7");
  // Every kernel: after its parameter list and performance directives,
  // the first '{' opens the body.
  static const char pragma[] = "\n\t.pragma \"enable_smem_spilling\";";
  size_t at = 0;
  while ((at = text.find(".entry ", at)) != std::string::npos) {
    size_t lineBegin = text.rfind('\n', at);
    lineBegin = lineBegin == std::string::npos ? 0 : lineBegin + 1;
    if (StringRef(text).slice(lineBegin, at).contains("//")) {
      at += strlen(".entry ");
      continue;
    }
    size_t open = text.find('(', at);
    if (open == std::string::npos)
      return failure("not PTX: a .entry without parameters");
    int depth = 0;
    size_t close = open;
    for (; close < text.size(); ++close) {
      if (text[close] == '(')
        ++depth;
      else if (text[close] == ')' && --depth == 0)
        break;
    }
    size_t body = text.find('{', close);
    if (close >= text.size() || body == std::string::npos)
      return failure("not PTX: a .entry without a body");
    if (!StringRef(text).substr(body, 64).contains("enable_smem_spilling"))
      text.insert(body + 1, pragma);
    at = body + 1;
  }
  return text;
}

llvm::Expected<std::string>
easyml::assemblePtx(StringRef ptx, const PtxAssembleOptions &options) {
  StringRef chip = options.chip;
  if (!chip.starts_with("sm_"))
    return failure("'" + chip + "' is not an NVIDIA chip (sm_XY)");
  TempFile ptxFile, cubinFile;
  if (llvm::Error e = ptxFile.create("ptx"))
    return std::move(e);
  if (llvm::Error e = cubinFile.create("cubin"))
    return std::move(e);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxFile.path, ec);
    if (ec)
      return failure("cannot write '" + ptxFile.path + "': " + ec.message());
    os << ptx;
  }
  std::string ptxas = options.toolkit + "/bin/ptxas";
  auto assembled = run(
      {ptxas, "-arch=" + chip.str(), "-O" + std::to_string(options.optLevel),
       ptxFile.path.str().str(), "-o", cubinFile.path.str().str()});
  if (!assembled)
    return assembled.takeError();
  StringRef result = cubinFile.path;
  TempFile fatbinFile;
  if (options.fatbin) {
    if (llvm::Error e = fatbinFile.create("fatbin"))
      return std::move(e);
    std::string sm = chip.drop_front(strlen("sm_")).str();
    auto bundled = run(
        {options.toolkit + "/bin/fatbinary", "-64",
         "--image3=kind=elf,sm=" + sm + ",file=" + cubinFile.path.str().str(),
         "--image3=kind=ptx,sm=" + sm + ",file=" + ptxFile.path.str().str(),
         "--create=" + fatbinFile.path.str().str()});
    if (!bundled)
      return bundled.takeError();
    result = fatbinFile.path;
  }
  auto buffer = llvm::MemoryBuffer::getFile(result, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return failure("cannot read '" + result +
                   "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}
