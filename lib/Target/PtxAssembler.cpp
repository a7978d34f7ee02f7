//===- PtxAssembler.cpp - PTX to cubin/fatbin with the CUDA toolkit -------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/PtxAssembler.h"
#include "easyml/ABI/Occupancy.h"
#include "easyml/Target/GpuResources.h"

#include "llvm/ADT/DenseMap.h"
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

namespace {
/// A kernel of a PTX module: its name, where its parameter list closes and
/// where its body opens (the performance directives lie between).
struct PtxEntry {
  std::string name;
  size_t close, body;
};

/// The `.entry`s of `text`, in order; one in a `//` comment is not.
llvm::Expected<std::vector<PtxEntry>> findEntries(StringRef text) {
  std::vector<PtxEntry> entries;
  size_t at = 0;
  while ((at = text.find(".entry ", at)) != StringRef::npos) {
    size_t lineBegin = text.rfind('\n', at);
    lineBegin = lineBegin == StringRef::npos ? 0 : lineBegin + 1;
    if (text.slice(lineBegin, at).contains("//")) {
      at += strlen(".entry ");
      continue;
    }
    size_t open = text.find('(', at);
    if (open == StringRef::npos)
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
    if (close >= text.size() || body == StringRef::npos)
      return failure("not PTX: a .entry without a body");
    entries.push_back(
        {text.slice(at + strlen(".entry "), open).trim().str(), close, body});
    at = body + 1;
  }
  return entries;
}
} // namespace

/// NVPTX numbers call sites (`// callseq N` comments, `prototype_N` labels
/// of indirect calls) from one counter for the whole process, so a module's
/// numbers depend on what the other chips' threads lowered before it.
/// Numbered again from 0 in order of appearance (one number per call site,
/// kept between its callseq and its prototype), the text depends on the
/// module alone. Only whole tokens are renumbered: `prototype_7` inside a
/// longer identifier (a kernel of a model named so) is left alone.
static std::string renumberCallSites(StringRef text) {
  auto isIdentifier = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  };
  static constexpr StringRef prefixes[] = {"// callseq ", "prototype_"};
  // The next occurrence of each prefix: the text is searched once for each.
  size_t next[2] = {text.find(prefixes[0]), text.find(prefixes[1])};
  llvm::DenseMap<uint64_t, uint64_t> numbers;
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (true) {
    unsigned which = next[0] <= next[1] ? 0 : 1;
    size_t found = next[which];
    if (found == StringRef::npos)
      break;
    size_t digits = found + prefixes[which].size();
    size_t end = digits;
    while (end < text.size() && llvm::isDigit(text[end]))
      ++end;
    next[which] = text.find(prefixes[which], std::max(digits, found + 1));
    uint64_t old;
    bool whole =
        which == 0 || ((found == 0 || !isIdentifier(text[found - 1])) &&
                       (end == text.size() || !isIdentifier(text[end])));
    if (end == digits || !whole ||
        text.slice(digits, end).getAsInteger(10, old))
      continue;
    out.append(text.data() + at, digits - at);
    auto [it, added] = numbers.try_emplace(old, numbers.size());
    out += std::to_string(it->second);
    at = end;
  }
  out += text.substr(at);
  return out;
}

llvm::Expected<std::string> easyml::preparePtx(StringRef ptx,
                                               bool sharedMemorySpilling) {
  std::string withoutNul;
  withoutNul.reserve(ptx.size());
  for (char c : ptx)
    if (c != '\0')
      withoutNul.push_back(c);
  std::string text = renumberCallSites(withoutNul);
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
  // Every kernel (from the last, so that earlier positions hold).
  static const char pragma[] = "\n\t.pragma \"enable_smem_spilling\";";
  auto entries = findEntries(text);
  if (!entries)
    return entries.takeError();
  for (const PtxEntry &e : llvm::reverse(*entries))
    if (!StringRef(text).substr(e.body, 64).contains("enable_smem_spilling"))
      text.insert(e.body + 1, pragma);
  return text;
}

llvm::Expected<std::string> easyml::capKernelRegisters(StringRef ptx,
                                                       StringRef kernel,
                                                       unsigned registers) {
  std::string text = ptx.str();
  auto entries = findEntries(text);
  if (!entries)
    return entries.takeError();
  auto e = llvm::find_if(*entries,
                         [&](const PtxEntry &e) { return e.name == kernel; });
  if (e == entries->end())
    return failure("no kernel '" + kernel + "' in the PTX");
  // Between the parameters and the body: the performance directives.
  std::string directive = ".maxnreg " + std::to_string(registers);
  size_t old = text.find(".maxnreg", e->close);
  if (old != std::string::npos && old < e->body) {
    size_t end = text.find_first_of("\r\n", old);
    text.replace(old, end - old, directive);
  } else {
    text.insert(e->body, directive + "\n");
  }
  return text;
}

namespace {
/// The kernels that spill nothing, by name.
std::map<std::string, KernelResources>
spillFree(const std::vector<KernelResources> &kernels) {
  std::map<std::string, KernelResources> result;
  for (const KernelResources &k : kernels)
    if (k.localBytes == 0 && k.sharedBytes == 0 && k.registers > 0)
      result[k.name] = k;
  return result;
}
} // namespace

static llvm::Expected<std::string>
assembleCubin(StringRef ptx, const PtxAssembleOptions &options,
              StringRef entry);

llvm::Expected<AssembledPtx>
easyml::assembleWithRegisterCaps(StringRef ptx,
                                 const PtxAssembleOptions &options) {
  llvm::Expected<std::string> cubin = assembleCubin(ptx, options, "");
  if (!cubin)
    return cubin.takeError();
  AssembledPtx result{ptx.str(), std::move(*cubin)};
  if (!options.registerCaps)
    return result;
  auto kernels = readKernelResources("cubin", result.cubin);
  if (!kernels)
    return kernels.takeError();
  // The compute kernel, which runs every step of a wave, if it spills
  // nothing and one occupancy step is at most 1/8 fewer registers away
  // (further, ptxas spills or works long to fit: measured on the corpus).
  std::string text = result.ptx;
  bool capped = false;
  for (auto &[name, k] : spillFree(*kernels)) {
    if (!StringRef(name).ends_with("_compute"))
      continue;
    int64_t r = rt::gpuRegistersForHigherOccupancy(options.chip.c_str(),
                                                   k.registers, k.maxThreads);
    if (r == 0 || 8 * r < 7 * k.registers)
      continue;
    auto trialPtx = capKernelRegisters(text, name, r);
    if (!trialPtx)
      return trialPtx.takeError();
    // The capped kernel alone (ptxas --entry), kept if it spills nothing.
    auto trial = assembleCubin(*trialPtx, options, name);
    if (!trial)
      return trial.takeError();
    auto trialKernels = readKernelResources("cubin", *trial);
    if (!trialKernels)
      return trialKernels.takeError();
    if (spillFree(*trialKernels).count(name)) {
      text = std::move(*trialPtx);
      capped = true;
    }
  }
  if (!capped)
    return result;
  cubin = assembleCubin(text, options, "");
  if (!cubin)
    return cubin.takeError();
  return AssembledPtx{std::move(text), std::move(*cubin)};
}

llvm::Expected<std::string>
easyml::assemblePtx(StringRef ptx, const PtxAssembleOptions &options) {
  StringRef chip = options.chip;
  llvm::Expected<AssembledPtx> assembled =
      assembleWithRegisterCaps(ptx, options);
  if (!assembled)
    return assembled.takeError();
  if (!options.fatbin)
    return std::move(assembled->cubin);
  const std::string &finalPtx = assembled->ptx;
  const std::string *cubin = &assembled->cubin;
  TempFile ptxFile, cubinFile, fatbinFile;
  for (auto [file, ext] :
       {std::pair{&ptxFile, "ptx"}, std::pair{&cubinFile, "cubin"},
        std::pair{&fatbinFile, "fatbin"}})
    if (llvm::Error e = file->create(ext))
      return std::move(e);
  for (auto [file, data] : {std::pair{&ptxFile, StringRef(finalPtx)},
                            std::pair{&cubinFile, StringRef(*cubin)}}) {
    std::error_code ec;
    llvm::raw_fd_ostream os(file->path, ec);
    if (ec)
      return failure("cannot write '" + file->path + "': " + ec.message());
    os << data;
  }
  std::string sm = chip.drop_front(strlen("sm_")).str();
  auto bundled =
      run({options.toolkit + "/bin/fatbinary", "-64",
           "--image3=kind=elf,sm=" + sm + ",file=" + cubinFile.path.str().str(),
           "--image3=kind=ptx,sm=" + sm + ",file=" + ptxFile.path.str().str(),
           "--create=" + fatbinFile.path.str().str()});
  if (!bundled)
    return bundled.takeError();
  auto buffer = llvm::MemoryBuffer::getFile(fatbinFile.path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return failure("cannot read '" + fatbinFile.path +
                   "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

/// ptxas on `ptx` for options.chip: the cubin, of kernel `entry` alone
/// when given.
static llvm::Expected<std::string>
assembleCubin(StringRef ptx, const PtxAssembleOptions &options,
              StringRef entry) {
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
  std::vector<std::string> argv{ptxas, "-arch=" + chip.str(),
                                "-O" + std::to_string(options.optLevel)};
  if (!entry.empty())
    argv.push_back("--entry=" + entry.str());
  argv.insert(argv.end(),
              {ptxFile.path.str().str(), "-o", cubinFile.path.str().str()});
  auto assembled = run(argv);
  if (!assembled)
    return assembled.takeError();
  StringRef result = cubinFile.path;
  auto buffer = llvm::MemoryBuffer::getFile(result, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return failure("cannot read '" + result +
                   "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}
