//===- ModelObject.h - LLVM IR, descriptor, object, header ----*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The back end of easyml-compile: translates the lowered kernels to LLVM IR,
// adds the model descriptor of the runtime ABI, optimises and emits native
// code in-process, links shared libraries, and writes the C header.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_TARGET_MODELOBJECT_H
#define EASYML_TARGET_MODELOBJECT_H

#include "easyml/Conversion/EasyMLToKernel/ModelLayout.h"
#include "easyml/Conversion/MathToVectorLibrary/VectorMath.h"
#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace easyml {

/// A GPU code object to embed (from gpu-module-to-binary).
struct GpuImage {
  std::string chip;   // "sm_90", "gfx90a"
  std::string format; // "fatbin", "hsaco"
  std::string data;
  /// How the compute kernel is launched and what it uses (0: unknown).
  int64_t blockSize = 0, registers = 0, spillBytes = 0;
};

struct ObjectOptions {
  /// Variants present in the module, in descriptor order.
  std::vector<VariantKind> variants{VariantKind::baseline};
  /// Also export the descriptor as `easyml_model` (shared libraries).
  bool exportGenericSymbol = false;
  /// Target CPU; empty: the host's.
  std::string cpu;
  /// LLVM optimisation level 0-3.
  unsigned optLevel = 2;
  /// Identifies the compiler in the descriptor.
  std::string compilerId;
  /// Cells per vector of the cpu-simd variant.
  int64_t vectorWidth = 1;
  /// Libraries the code calls besides libm ("mvec"), linked into shared
  /// libraries.
  std::vector<std::string> libraries;
  /// Code objects of each GPU variant (their kernels are embedded code
  /// objects, not functions of the module).
  std::map<VariantKind, std::vector<GpuImage>> gpuImages;
  /// Parameters the GPU variants read per cell (--per-cell-params; "all").
  std::vector<std::string> perCellParams;
};

/// The SIMD unit of a target, as the cpu-simd variant uses it.
struct VectorUnit {
  /// Doubles per native vector register (8 AVX-512, 4 AVX2, 2 otherwise).
  int64_t width = 2;
  /// The libmvec flavour the target can call.
  VectorIsa isa = VectorIsa::None;
};

/// Describes the vector unit of `tm`'s CPU and features.
VectorUnit describeVectorUnit(const llvm::TargetMachine &tm);

/// Creates the target machine code is generated for.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const ObjectOptions &options, std::string &error);

/// Translates `module` (LLVM dialect) to LLVM IR and adds the descriptor.
std::unique_ptr<llvm::Module>
translateModel(mlir::ModuleOp module, llvm::LLVMContext &context,
               const ModelLayout &layout, const ObjectOptions &options,
               llvm::TargetMachine &tm, std::string &error);

/// Runs LLVM's optimisation pipeline at `options.optLevel`.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                    unsigned optLevel);

/// Emits `module` as an object file or assembly.
bool emitCode(llvm::Module &module, llvm::TargetMachine &tm,
              llvm::raw_pwrite_stream &os, bool assembly, std::string &error);

/// Links `objectPath` into the shared library `outputPath` with the system
/// compiler driver ($EASYML_LINKER, else clang-19, clang, cc).
bool linkSharedLibrary(llvm::StringRef objectPath, llvm::StringRef outputPath,
                       llvm::ArrayRef<std::string> libraries,
                       std::string &error);

/// Links the object file `object` (its bytes) into a shared library and
/// returns the library's bytes; the temporary files are removed whatever
/// happens. False with `error` on failure.
bool linkSharedObject(llvm::StringRef object,
                      llvm::ArrayRef<std::string> libraries,
                      std::string &library, std::string &error);

/// The C header declaring the model's descriptor and its indices.
std::string emitHeader(const ModelLayout &layout, const ObjectOptions &options);

} // namespace easyml

#endif // EASYML_TARGET_MODELOBJECT_H
