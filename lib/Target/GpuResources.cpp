//===- GpuResources.cpp - What GPU kernels use, from their code objects ---===//
//
// CUDA: a fatbin is a container of entries (PTX, ELF cubin) behind a 16-byte
// header; the cubin's `.nv.info` section holds attribute records
// (format byte, attribute byte, then a 16-bit value or a 16-bit size and
// that many bytes) naming, per kernel symbol, its register count
// (EIATTR_REGCOUNT) and stack frame (EIATTR_FRAME_SIZE); the kernel's launch
// bound is EIATTR_MAX_THREADS in `.nv.info.<kernel>`.
// AMDGPU: the code object's NT_AMDGPU_METADATA note is a MessagePack map
// whose `amdhsa.kernels` list gives each kernel's registers, spills and
// private segment.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/GpuResources.h"
#include "easyml/ABI/ABI.h"
#include "easyml/ABI/Occupancy.h"
#include "easyml/Target/ModelObject.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"

using namespace easyml;
using llvm::StringRef;

namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint16_t kFatbinElfEntry = 2;
// .nv.info attribute formats and the attributes read here.
constexpr uint8_t kEifmtNval = 1, kEifmtBval = 2, kEifmtHval = 3,
                  kEifmtSval = 4;
constexpr uint8_t kEiattrFrameSize = 0x11, kEiattrRegCount = 0x2f,
                  kEiattrMaxThreads = 0x05;

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

uint32_t read32(StringRef data, size_t at) {
  return llvm::support::endian::read32le(data.data() + at);
}

/// The first cubin in a fatbin.
llvm::Expected<StringRef> cubinOfFatbin(StringRef data) {
  if (data.size() < 16 || read32(data, 0) != kFatbinMagic)
    return fail("not a fatbin (no fatbin header)");
  uint16_t headerSize = llvm::support::endian::read16le(data.data() + 6);
  uint64_t size = llvm::support::endian::read64le(data.data() + 8);
  if (headerSize < 16 || headerSize + size > data.size())
    return fail("truncated fatbin");
  size_t at = headerSize, end = headerSize + size;
  while (at + 16 <= end) {
    uint16_t kind = llvm::support::endian::read16le(data.data() + at);
    uint32_t entryHeader = read32(data, at + 4);
    uint64_t payload = llvm::support::endian::read64le(data.data() + at + 8);
    if (entryHeader < 16 || at + entryHeader + payload > end)
      return fail("truncated fatbin entry");
    StringRef body = data.substr(at + entryHeader, payload);
    if (kind == kFatbinElfEntry) {
      if (!body.starts_with("\x7f"
                            "ELF"))
        return fail("the fatbin's cubin is compressed");
      return body;
    }
    at += entryHeader + payload;
  }
  return fail("the fatbin holds no cubin (PTX only)");
}

using ELF = llvm::object::ELF64LEFile;

llvm::Expected<std::vector<KernelResources>> readCubin(StringRef data) {
  auto file = ELF::create(data);
  if (!file)
    return file.takeError();
  auto sections = file->sections();
  if (!sections)
    return sections.takeError();
  // Kernel symbols by index; .nv.info records name them by index.
  llvm::DenseMap<uint32_t, size_t> bySymbol;
  std::vector<KernelResources> kernels;
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_SYMTAB)
      continue;
    auto symbols = file->symbols(&section);
    auto strings = file->getStringTableForSymtab(section);
    if (!symbols || !strings) {
      llvm::consumeError(symbols.takeError());
      llvm::consumeError(strings.takeError());
      return fail("unreadable cubin symbol table");
    }
    for (auto [index, symbol] : llvm::enumerate(*symbols)) {
      if (symbol.getType() != llvm::ELF::STT_FUNC ||
          symbol.getBinding() != llvm::ELF::STB_GLOBAL)
        continue;
      auto name = symbol.getName(*strings);
      if (!name)
        return name.takeError();
      bySymbol[index] = kernels.size();
      kernels.push_back({name->str()});
    }
  }
  if (kernels.empty())
    return fail("the cubin has no kernels");
  // Walks the attribute records of one .nv.info section.
  auto walk =
      [&](llvm::ArrayRef<uint8_t> bytes,
          llvm::function_ref<void(uint8_t, StringRef)> visit) -> llvm::Error {
    StringRef s(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    size_t at = 0;
    while (at + 4 <= s.size()) {
      uint8_t format = s[at], attribute = s[at + 1];
      if (format == kEifmtSval) {
        uint16_t size = llvm::support::endian::read16le(s.data() + at + 2);
        if (at + 4 + size > s.size())
          return fail("truncated .nv.info record");
        visit(attribute, s.substr(at + 4, size));
        at += 4 + size;
      } else if (format == kEifmtHval || format == kEifmtBval ||
                 format == kEifmtNval) {
        visit(attribute, s.substr(at + 2, 2));
        at += 4;
      } else {
        return fail("unknown .nv.info record format " + llvm::Twine(format));
      }
    }
    return llvm::Error::success();
  };
  for (const auto &section : *sections) {
    auto name = file->getSectionName(section);
    if (!name)
      return name.takeError();
    if (!name->starts_with(".nv.info"))
      continue;
    auto bytes = file->getSectionContents(section);
    if (!bytes)
      return bytes.takeError();
    if (*name == ".nv.info") {
      // Per-kernel records: (symbol index, value).
      if (auto e = walk(*bytes, [&](uint8_t attribute, StringRef value) {
            if (value.size() != 8 ||
                (attribute != kEiattrRegCount && attribute != kEiattrFrameSize))
              return;
            auto it = bySymbol.find(read32(value, 0));
            if (it == bySymbol.end())
              return;
            int64_t v = read32(value, 4);
            if (attribute == kEiattrRegCount)
              kernels[it->second].registers = v;
            else
              kernels[it->second].localBytes = v;
          }))
        return std::move(e);
      continue;
    }
    StringRef kernel = name->drop_front(strlen(".nv.info."));
    auto it = llvm::find_if(
        kernels, [&](const KernelResources &k) { return k.name == kernel; });
    if (it == kernels.end())
      continue;
    if (auto e = walk(*bytes, [&](uint8_t attribute, StringRef value) {
          if (attribute == kEiattrMaxThreads && value.size() == 12)
            it->maxThreads =
                int64_t(read32(value, 0)) * read32(value, 4) * read32(value, 8);
        }))
      return std::move(e);
  }
  // Where .nv.info is silent, the register count is also the top byte of
  // the kernel's .text section's sh_info. A kernel's static shared memory
  // is the size of its .nv.shared section.
  for (const auto &section : *sections) {
    auto name = file->getSectionName(section);
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (name->starts_with(".nv.shared.")) {
      StringRef kernel = name->drop_front(strlen(".nv.shared."));
      for (KernelResources &k : kernels)
        if (k.name == kernel)
          k.sharedBytes = section.sh_size;
      continue;
    }
    if (!name->starts_with(".text."))
      continue;
    StringRef kernel = name->drop_front(strlen(".text."));
    for (KernelResources &k : kernels)
      if (k.name == kernel && k.registers == 0)
        k.registers = section.sh_info >> 24;
  }
  return kernels;
}

int64_t integer(llvm::msgpack::DocNode &node) {
  if (node.getKind() == llvm::msgpack::Type::UInt)
    return static_cast<int64_t>(node.getUInt());
  if (node.getKind() == llvm::msgpack::Type::Int)
    return node.getInt();
  return 0;
}

llvm::Expected<std::vector<KernelResources>> readHsaco(StringRef data) {
  auto file = ELF::create(data);
  if (!file)
    return file.takeError();
  auto sections = file->sections();
  if (!sections)
    return sections.takeError();
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const auto &note : file->notes(section, error)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(4), false))
        return fail("unreadable AMDGPU metadata");
      if (!doc.getRoot().isMap())
        return fail("unreadable AMDGPU metadata");
      auto &root = doc.getRoot().getMap();
      auto list = root.find("amdhsa.kernels");
      if (list == root.end() || !list->second.isArray())
        return fail("the AMDGPU metadata lists no kernels");
      std::vector<KernelResources> kernels;
      for (auto &entry : list->second.getArray()) {
        if (!entry.isMap())
          continue;
        auto &map = entry.getMap();
        auto get = [&](StringRef key) -> int64_t {
          auto it = map.find(key);
          return it == map.end() ? 0 : integer(it->second);
        };
        KernelResources k;
        auto name = map.find(".name");
        if (name != map.end() && name->second.isString())
          k.name = name->second.getString().str();
        // The vector registers that bound occupancy (on gfx90a/gfx942 the
        // unified file, accumulation registers included).
        k.registers = get(".vgpr_count");
        k.localBytes = get(".private_segment_fixed_size");
        k.sharedBytes = get(".group_segment_fixed_size");
        k.spilledRegisters =
            get(".vgpr_spill_count") + get(".sgpr_spill_count");
        k.maxThreads = get(".max_flat_workgroup_size");
        kernels.push_back(std::move(k));
      }
      llvm::consumeError(std::move(error));
      return kernels;
    }
    if (error)
      return std::move(error);
  }
  return fail("the code object has no AMDGPU metadata note");
}

} // namespace

llvm::Expected<std::vector<KernelResources>>
easyml::readKernelResources(StringRef format, StringRef data) {
  if (format == "fatbin") {
    auto cubin = cubinOfFatbin(data);
    if (!cubin)
      return cubin.takeError();
    return readCubin(*cubin);
  }
  if (format == "cubin")
    return readCubin(data);
  if (format == "hsaco")
    return readHsaco(data);
  return fail("unknown code object format '" + format + "'");
}

llvm::Error easyml::recordKernelResources(GpuImage &image, StringRef kernel) {
  auto kernels = readKernelResources(image.format, image.data);
  if (!kernels)
    return kernels.takeError();
  auto it = llvm::find_if(
      *kernels, [&](const KernelResources &k) { return k.name == kernel; });
  if (it == kernels->end())
    return fail("the code object has no kernel '" + kernel + "'");
  int64_t bound = EASYML_GPU_MAX_BLOCK_SIZE;
  if (it->maxThreads > 0)
    bound = std::min(bound, it->maxThreads);
  image.registers = it->registers;
  image.spillBytes = it->localBytes;
  image.blockSize = rt::gpuBlockSize(image.chip.c_str(), it->registers, bound,
                                     it->sharedBytes);
  return llvm::Error::success();
}
