//===- ModelObject.cpp - LLVM IR, descriptor, object, header --------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Target/ModelObject.h"

#include "easyml/ABI/ABI.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <cmath>
#include <limits>

using namespace easyml;

std::unique_ptr<llvm::TargetMachine>
easyml::createTargetMachine(const ObjectOptions &options, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpu = options.cpu.empty() || options.cpu == "native"
                        ? llvm::sys::getHostCPUName().str()
                        : options.cpu;
  std::string features;
  if (options.cpu.empty() || options.cpu == "native") {
    llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
    for (auto &f : hostFeatures)
      features += (f.second ? "+" : "-") + f.first().str() + ",";
  }
  llvm::TargetOptions to;
  auto level = options.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
               : options.optLevel == 0 ? llvm::CodeGenOptLevel::None
                                       : llvm::CodeGenOptLevel::Default;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    error =
        "cannot create a target machine for " + triple + " (cpu " + cpu + ")";
  return tm;
}

VectorUnit easyml::describeVectorUnit(const llvm::TargetMachine &tm) {
  VectorUnit unit;
  const llvm::MCSubtargetInfo *sti = tm.getMCSubtargetInfo();
  if (!tm.getTargetTriple().isX86() || !sti)
    return unit;
  if (sti->checkFeatures("+avx512f"))
    unit = {8, VectorIsa::Avx512};
  else if (sti->checkFeatures("+avx2"))
    unit = {4, VectorIsa::Avx2};
  else
    unit = {2, VectorIsa::Sse2};
  // libmvec is glibc's.
  if (!tm.getTargetTriple().isGNUEnvironment())
    unit.isa = VectorIsa::None;
  return unit;
}

namespace {
/// Emits the constant data of the descriptor.
class DescriptorBuilder {
public:
  DescriptorBuilder(llvm::Module &m)
      : m(m), ctx(m.getContext()), i64(llvm::Type::getInt64Ty(ctx)),
        f64(llvm::Type::getDoubleTy(ctx)),
        ptr(llvm::PointerType::getUnqual(ctx)) {}

  llvm::Constant *int64(int64_t v) { return llvm::ConstantInt::get(i64, v); }
  llvm::Constant *null() {
    return llvm::ConstantPointerNull::get(llvm::PointerType::getUnqual(ctx));
  }

  llvm::Constant *str(llvm::StringRef s) {
    auto it = strings.find(s);
    if (it != strings.end())
      return it->second;
    llvm::Constant *data = llvm::ConstantDataArray::getString(ctx, s);
    auto *g = new llvm::GlobalVariable(m, data->getType(), true,
                                       llvm::GlobalValue::PrivateLinkage, data,
                                       ".easyml.str");
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    g->setAlignment(llvm::Align(1));
    strings[s] = g;
    return g;
  }

  llvm::Constant *array(llvm::Type *elem, llvm::ArrayRef<llvm::Constant *> v,
                        llvm::StringRef name) {
    if (v.empty())
      return null();
    auto *type = llvm::ArrayType::get(elem, v.size());
    auto *g = new llvm::GlobalVariable(m, type, true,
                                       llvm::GlobalValue::PrivateLinkage,
                                       llvm::ConstantArray::get(type, v), name);
    return g;
  }
  llvm::Constant *strings_(const std::vector<std::string> &v,
                           llvm::StringRef name) {
    std::vector<llvm::Constant *> c;
    for (auto &s : v)
      c.push_back(str(s));
    return array(ptr, c, name);
  }
  llvm::Constant *doubles(const std::vector<double> &v, llvm::StringRef name) {
    if (v.empty())
      return null();
    auto *data = llvm::ConstantDataArray::get(ctx, v);
    return new llvm::GlobalVariable(m, data->getType(), true,
                                    llvm::GlobalValue::PrivateLinkage, data,
                                    name);
  }
  llvm::Constant *int64s(const std::vector<int64_t> &v, llvm::StringRef name) {
    if (v.empty())
      return null();
    std::vector<uint64_t> u(v.begin(), v.end());
    auto *data = llvm::ConstantDataArray::get(ctx, u);
    return new llvm::GlobalVariable(m, data->getType(), true,
                                    llvm::GlobalValue::PrivateLinkage, data,
                                    name);
  }
  /// Bytes, 16-byte aligned (GPU code objects).
  llvm::Constant *bytes(llvm::StringRef data, llvm::StringRef name) {
    auto *init = llvm::ConstantDataArray::getRaw(data, data.size(),
                                                 llvm::Type::getInt8Ty(ctx));
    auto *g =
        new llvm::GlobalVariable(m, init->getType(), true,
                                 llvm::GlobalValue::PrivateLinkage, init, name);
    g->setAlignment(llvm::Align(16));
    return g;
  }
  llvm::Constant *function(llvm::StringRef name) {
    llvm::Function *f = m.getFunction(name);
    return f ? static_cast<llvm::Constant *>(f) : null();
  }
  llvm::Constant *record(llvm::ArrayRef<llvm::Constant *> fields) {
    std::vector<llvm::Type *> types;
    for (llvm::Constant *c : fields)
      types.push_back(c->getType());
    return llvm::ConstantStruct::get(llvm::StructType::get(ctx, types), fields);
  }
  llvm::Constant *records(llvm::ArrayRef<llvm::Constant *> v,
                          llvm::StringRef name) {
    if (v.empty())
      return null();
    return array(v.front()->getType(), v, name);
  }

  llvm::Module &m;
  llvm::LLVMContext &ctx;
  llvm::Type *i64, *f64, *ptr;
  llvm::StringMap<llvm::Constant *> strings;
};
} // namespace

namespace {
/// The descriptor's per-variable columns, gathered from the layout (plain
/// data: no IR is made here).
struct DescriptorColumns {
  std::vector<std::string> stateNames, methods, units;
  std::vector<double> lbs, ubs;
  std::vector<int64_t> nodal;
  std::vector<std::string> paramNames, paramUnits;
  std::vector<double> paramDefaults;
  std::vector<std::string> flagNames, flagCases;
  std::vector<double> flagDefaults;
  std::vector<std::string> extNames, simNames;
  std::vector<int64_t> access;
  std::vector<int64_t> derivedIndices, readOffsets{0}, reads, paramRead;
  std::vector<std::string> derivedFormulas;

  explicit DescriptorColumns(const ModelLayout &l);
};
} // namespace

DescriptorColumns::DescriptorColumns(const ModelLayout &l) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto &s : l.states) {
    stateNames.push_back(s.name);
    methods.push_back(s.method);
    units.push_back(s.units);
    lbs.push_back(s.lb ? *s.lb : nan);
    ubs.push_back(s.ub ? *s.ub : nan);
  }
  for (auto [i, p] : llvm::enumerate(l.params)) {
    paramNames.push_back(p.name);
    paramUnits.push_back(p.units);
    paramDefaults.push_back(p.value);
    if (p.nodal)
      nodal.push_back(i);
  }
  for (auto &f : l.flags) {
    flagNames.push_back(f.name);
    flagDefaults.push_back(f.value);
    flagCases.push_back(llvm::join(f.cases, "|"));
  }
  static_assert(static_cast<int>(Access::read) == EASYML_ACCESS_READ &&
                    static_cast<int>(Access::write) == EASYML_ACCESS_WRITE &&
                    static_cast<int>(Access::readwrite) ==
                        EASYML_ACCESS_READWRITE,
                "the dialect's and the ABI's access kinds differ");
  for (auto &e : l.externals) {
    extNames.push_back(e.name);
    simNames.push_back(e.simName);
    access.push_back(static_cast<int64_t>(e.access));
  }
  for (const ModelLayout::DerivedParam &p : l.derivedParams) {
    derivedIndices.push_back(p.index);
    derivedFormulas.push_back(p.formula);
    reads.insert(reads.end(), p.reads.begin(), p.reads.end());
    readOffsets.push_back(static_cast<int64_t>(reads.size()));
  }
  for (bool r : l.paramRead)
    paramRead.push_back(r);
}

/// The lookup tables' records (easyml_table_desc).
static std::vector<llvm::Constant *> tableRecords(DescriptorBuilder &d,
                                                  const ModelLayout &l) {
  std::vector<llvm::Constant *> tables;
  for (auto &t : l.tables)
    tables.push_back(
        d.record({d.str(t.variable), llvm::ConstantFP::get(d.f64, t.lo),
                  llvm::ConstantFP::get(d.f64, t.hi),
                  llvm::ConstantFP::get(d.f64, t.step), d.int64(t.rows),
                  d.int64(t.columns), d.int64(t.offset),
                  d.strings_(t.columnNames, ".easyml.columns"),
                  d.int64(t.paramsRead.size()),
                  d.int64s(t.paramsRead, ".easyml.table_params")}));
  return tables;
}

/// One variant's record (easyml_variant): what its kernels were generated
/// for (the same rule as the #easyml.variant attribute
/// easyml-lower-to-kernels used), its CPU entry points or GPU code objects
/// and kernel names, how GPU kernels take their parameters, and its
/// diffusion entry (ABI 6).
static llvm::Constant *variantRecord(DescriptorBuilder &d, const ModelLayout &l,
                                     const ObjectOptions &options,
                                     VariantKind kind,
                                     const std::vector<int64_t> &rowParams) {
  bool gpu = isGpuVariant(kind);
  llvm::StringRef v = stringifyVariantKind(kind);
  std::vector<llvm::Constant *> images;
  if (gpu) {
    auto it = options.gpuImages.find(kind);
    if (it != options.gpuImages.end())
      for (const GpuImage &image : it->second)
        images.push_back(
            d.record({d.str(image.chip), d.str(image.format),
                      d.bytes(image.data, ".easyml.image"),
                      d.int64(image.data.size()), d.int64(image.blockSize),
                      d.int64(image.registers), d.int64(image.spillBytes)}));
  }
  int64_t device = static_cast<int64_t>(backendOf(kind));
  return d.record(
      {d.str(v),
       d.int64(static_cast<int64_t>(VariantAttr::defaultLayout(kind))),
       d.int64(VariantAttr::defaultWidth(kind, options.vectorWidth)),
       gpu ? d.null() : d.function(l.symbol(v, "init")),
       gpu ? d.null() : d.function(l.symbol(v, "compute")),
       gpu ? d.null() : d.function(l.symbol(v, "eval")), d.int64(device),
       d.int64(images.size()), d.records(images, ".easyml.images"),
       gpu ? d.str(l.symbol(v, "init")) : d.null(),
       gpu ? d.str(l.symbol(v, "compute")) : d.null(),
       gpu ? d.str(l.symbol(v, "eval")) : d.null(),
       d.int64(gpu ? l.gpuParamsByValue() : 0),
       d.int64(gpu ? static_cast<int64_t>(rowParams.size()) : -1),
       gpu ? d.int64s(rowParams, ".easyml.row_params") : d.null(),
       gpu ? d.null() : d.function(l.symbol(v, "diffuse")),
       gpu ? d.str(l.symbol(v, "diffuse")) : d.null()});
}

/// The model's record (easyml_model_desc), in the field order of ABI.h.
static llvm::Constant *modelRecord(DescriptorBuilder &d, const ModelLayout &l,
                                   const ObjectOptions &options,
                                   const DescriptorColumns &c,
                                   llvm::ArrayRef<llvm::Constant *> flagValues,
                                   llvm::ArrayRef<llvm::Constant *> tables,
                                   llvm::ArrayRef<llvm::Constant *> variants) {
  // Tables are built on the host, by the first CPU variant's function.
  std::string tablesVariant = "baseline";
  for (VariantKind kind : options.variants)
    if (!isGpuVariant(kind)) {
      tablesVariant = stringifyVariantKind(kind).str();
      break;
    }
  return d.record(
      {d.int64(EASYML_ABI_VERSION),
       d.str(l.name),
       d.str(l.source),
       d.str(options.compilerId),
       d.int64(l.states.size()),
       d.strings_(c.stateNames, ".easyml.states"),
       d.strings_(c.methods, ".easyml.methods"),
       d.strings_(c.units, ".easyml.units"),
       d.doubles(c.lbs, ".easyml.lb"),
       d.doubles(c.ubs, ".easyml.ub"),
       d.int64(c.nodal.size()),
       d.int64s(c.nodal, ".easyml.nodal"),
       d.int64(l.svSize),
       d.int64(l.hidden.size()),
       d.strings_(l.hidden, ".easyml.hidden"),
       d.int64(l.svRows),
       d.int64(l.params.size()),
       d.strings_(c.paramNames, ".easyml.params"),
       d.doubles(c.paramDefaults, ".easyml.defaults"),
       d.strings_(c.paramUnits, ".easyml.param_units"),
       d.int64(l.flags.size()),
       d.strings_(c.flagNames, ".easyml.flags"),
       d.doubles(c.flagDefaults, ".easyml.flag_defaults"),
       d.strings_(c.flagCases, ".easyml.flag_cases"),
       d.array(d.ptr, flagValues, ".easyml.flag_values"),
       d.int64(l.externals.size()),
       d.strings_(c.extNames, ".easyml.ext"),
       d.strings_(c.simNames, ".easyml.ext_sim"),
       d.int64s(c.access, ".easyml.ext_access"),
       d.int64(l.vmIndex),
       d.int64(l.iionIndex),
       d.int64(l.tables.size()),
       d.records(tables, ".easyml.tables"),
       d.int64(l.tableSize),
       d.int64(l.traces.size()),
       d.strings_(l.traces, ".easyml.traces"),
       d.int64(l.numRecordable()),
       d.int64(EASYML_FEATURE_PARAM_ROWS | EASYML_FEATURE_RECORD |
               EASYML_FEATURE_BIOMARKERS |
               (l.wholeCellVm >= 0 ? EASYML_FEATURE_WHOLE_CELL : 0)),
       d.int64(l.counters.size()),
       d.strings_(l.counters, ".easyml.counters"),
       d.function(l.symbol(tablesVariant, "tables")),
       d.int64(variants.size()),
       d.records(variants, ".easyml.variants"),
       d.int64(l.numDerived),
       l.numDerived ? d.function(l.symbol(tablesVariant, "derived")) : d.null(),
       d.int64(l.derivedParams.size()),
       d.int64s(c.derivedIndices, ".easyml.derived_params"),
       d.strings_(c.derivedFormulas, ".easyml.derived_formulas"),
       d.int64s(c.readOffsets, ".easyml.derived_read_offsets"),
       d.int64s(c.reads, ".easyml.derived_reads"),
       d.int64s(c.paramRead, ".easyml.param_read"),
       l.derivedParams.empty() ? d.null()
                               : d.function(l.deriveParamsSymbol())});
}

/// The records must have the C structs' sizes (ABI.h): a field added on
/// one side only is caught here rather than by a crashing runtime.
static void checkRecordSizes(const llvm::Module &m, llvm::Constant *desc,
                             llvm::ArrayRef<llvm::Constant *> tables,
                             llvm::ArrayRef<llvm::Constant *> variants) {
  const llvm::DataLayout &dl = m.getDataLayout();
  auto checkSize = [&](llvm::Constant *c, size_t size, const char *what) {
    if (c && dl.getTypeAllocSize(c->getType()) != size)
      llvm::report_fatal_error(llvm::Twine("descriptor record ") + what +
                               " does not match ABI.h");
  };
  checkSize(desc, sizeof(easyml_model_desc), "easyml_model_desc");
  for (llvm::Constant *t : tables)
    checkSize(t, sizeof(easyml_table_desc), "easyml_table_desc");
  for (llvm::Constant *v : variants)
    checkSize(v, sizeof(easyml_variant), "easyml_variant");
}

static void addDescriptor(llvm::Module &m, const ModelLayout &l,
                          const ObjectOptions &options) {
  DescriptorBuilder d(m);
  DescriptorColumns columns(l);
  // The descriptor's constants are made in the order its fields need them
  // (each array a private global): flag values, tables, variants, then
  // the model's own.
  std::vector<llvm::Constant *> flagValues;
  for (auto &f : l.flags)
    flagValues.push_back(d.doubles(f.caseValues, ".easyml.flagvalues"));
  std::vector<llvm::Constant *> tables = tableRecords(d, l);
  static_assert(static_cast<int>(CellLayout::aos) == EASYML_LAYOUT_AOS &&
                    static_cast<int>(CellLayout::soa) == EASYML_LAYOUT_SOA,
                "the dialect's and the ABI's cell layouts differ");
  std::vector<llvm::Constant *> variants;
  std::vector<int64_t> rowParams = l.paramIndices(options.perCellParams);
  for (VariantKind kind : options.variants)
    variants.push_back(variantRecord(d, l, options, kind, rowParams));
  llvm::Constant *desc =
      modelRecord(d, l, options, columns, flagValues, tables, variants);
  checkRecordSizes(m, desc, tables, variants);
  auto *g = new llvm::GlobalVariable(m, desc->getType(), true,
                                     llvm::GlobalValue::ExternalLinkage, desc,
                                     "easyml_model_" + l.name);
  g->setAlignment(llvm::Align(8));
  if (options.exportGenericSymbol)
    llvm::GlobalAlias::create("easyml_model", g);
}

std::unique_ptr<llvm::Module>
easyml::translateModel(mlir::ModuleOp module, llvm::LLVMContext &context,
                       const ModelLayout &layout, const ObjectOptions &options,
                       llvm::TargetMachine &tm, std::string &error) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> m =
      mlir::translateModuleToLLVMIR(module, context, layout.name);
  if (!m) {
    error = "cannot translate the kernels of '" + layout.name + "' to LLVM IR";
    return nullptr;
  }
  m->setTargetTriple(tm.getTargetTriple().str());
  m->setDataLayout(tm.createDataLayout());
  // Kernel entry points align their own frame for the widest vector: their
  // callers only guarantee the ABI's 16 bytes, and 512-bit spills that
  // straddle two cache lines cost up to 10% of a wave, varying with the
  // caller's stack depth.
  if (tm.getTargetTriple().isX86())
    for (llvm::Function &f : *m)
      if (!f.isDeclaration() && f.hasExternalLinkage())
        f.addFnAttr(llvm::Attribute::getWithStackAlignment(context,
                                                           llvm::Align(64)));
  addDescriptor(*m, layout, options);
  return m;
}

void easyml::optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                            unsigned optLevel) {
  if (optLevel == 0)
    return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

bool easyml::emitCode(llvm::Module &module, llvm::TargetMachine &tm,
                      llvm::raw_pwrite_stream &os, bool assembly,
                      std::string &error) {
  llvm::legacy::PassManager pm;
  auto type = assembly ? llvm::CodeGenFileType::AssemblyFile
                       : llvm::CodeGenFileType::ObjectFile;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) {
    error = "the target cannot emit this file type";
    return false;
  }
  pm.run(module);
  return true;
}

bool easyml::linkSharedLibrary(llvm::StringRef objectPath,
                               llvm::StringRef outputPath,
                               llvm::ArrayRef<std::string> libraries,
                               std::string &error) {
  std::string driver;
  if (const char *env = std::getenv("EASYML_LINKER"); env && *env) {
    driver = env;
  } else {
    for (const char *name : {"clang-19", "clang", "cc", "gcc"})
      if (auto p = llvm::sys::findProgramByName(name)) {
        driver = *p;
        break;
      }
  }
  if (driver.empty()) {
    error = "no C compiler driver found to link a shared library (set "
            "EASYML_LINKER)";
    return false;
  }
  std::vector<std::string> argv{driver, "-shared", "-o", outputPath.str(),
                                objectPath.str()};
  for (const std::string &lib : libraries)
    argv.push_back("-l" + lib);
  argv.push_back("-lm");
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::string msg;
  int rc =
      llvm::sys::ExecuteAndWait(driver, args, std::nullopt, {}, 0, 0, &msg);
  if (rc != 0) {
    error = "linking '" + outputPath.str() + "' with " + driver + " failed" +
            (msg.empty() ? "" : ": " + msg);
    return false;
  }
  return true;
}

std::string easyml::emitHeader(const ModelLayout &l,
                               const ObjectOptions &options) {
  std::string s;
  llvm::raw_string_ostream os(s);
  std::string guard = "EASYML_MODEL_" + llvm::StringRef(l.name).upper() + "_H";
  os << "/* Generated by " << options.compilerId << " from " << l.source
     << ". Do not edit. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <easyml/ABI/ABI.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* The model descriptor (see easyml/ABI/ABI.h). */\n"
     << "extern const easyml_model_desc easyml_model_" << l.name << ";\n\n";
  auto emitEnum = [&](llvm::StringRef kind, const std::vector<std::string> &n,
                      llvm::StringRef count) {
    if (n.empty())
      return;
    os << "/* " << kind << " indices. */\nenum {\n";
    for (auto [i, name] : llvm::enumerate(n))
      os << "  EASYML_" << l.name << "_" << count << "_" << toIdentifier(name)
         << " = " << i << ",\n";
    os << "  EASYML_" << l.name << "_NUM_" << count << " = " << n.size()
       << "\n};\n\n";
  };
  std::vector<std::string> states, params, exts;
  for (auto &st : l.states)
    states.push_back(st.name);
  for (auto &p : l.params)
    params.push_back(p.name);
  for (auto &f : l.flags)
    params.push_back(f.name);
  for (auto &e : l.externals)
    exts.push_back(e.name);
  emitEnum("State (per-cell record)", states, "STATE");
  emitEnum("Parameter and flag (params array)", params, "PARAM");
  emitEnum("External", exts, "EXT");
  os << "#define EASYML_" << l.name << "_SV_SIZE " << l.svSize << "\n";
  os << "#define EASYML_" << l.name << "_SV_ROWS " << l.svRows << "\n\n";
  // Host entry points of the CPU variants (GPU kernels are reached through
  // the descriptor's code objects); the first CPU variant builds tables
  // and derived values.
  bool first = true;
  for (VariantKind kind : options.variants) {
    if (isGpuVariant(kind))
      continue;
    llvm::StringRef v = stringifyVariantKind(kind);
    for (const char *entry : {"init", "compute", "eval", "tables", "derived"}) {
      llvm::StringRef e(entry);
      if ((e == "tables" || e == "derived") && !first)
        continue;
      if (e == "derived" && !l.numDerived)
        continue;
      os << "void " << l.symbol(v, entry)
         << "(const easyml_kernel_args *args);\n";
    }
    os << "void " << l.symbol(v, "diffuse")
       << "(const easyml_diffusion_args *args);\n";
    first = false;
  }
  os << "\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* "
     << guard << " */\n";
  return s;
}

bool easyml::linkSharedObject(llvm::StringRef object,
                              llvm::ArrayRef<std::string> libraries,
                              std::string &library, std::string &error) {
  llvm::SmallString<128> obj, so;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("easyml", "o", fd, obj)) {
    error = "cannot write a temporary file";
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(obj);
      error = "cannot write a temporary file";
      return false;
    }
  }
  llvm::sys::fs::createUniquePath("easyml-%%%%%%%%.so", so, true);
  bool linked = linkSharedLibrary(obj, so, libraries, error);
  llvm::sys::fs::remove(obj);
  if (linked) {
    auto buffer = llvm::MemoryBuffer::getFile(so);
    if (buffer) {
      library = (*buffer)->getBuffer().str();
    } else {
      error = "cannot read the linked library";
      linked = false;
    }
  }
  llvm::sys::fs::remove(so);
  return linked;
}
