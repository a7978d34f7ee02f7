//===- EntryStrategy.h - CPU functions or GPU kernels ----------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The kernel lowering writes the same entry points (init, compute, eval,
// tables, derived, diffuse) for every variant. What differs between a CPU
// variant and a GPU one is behind EntryStrategy: how an entry function is
// created and ended (func.func taking a pointer to the kernel arguments, or a
// gpu.func in the variant's gpu.module taking them by value, with launch
// bounds), the memory host pointers address, which parameters the kernels
// may read per cell, and the answers to GPU register pressure.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_LIB_CONVERSION_EASYMLTOKERNEL_ENTRYSTRATEGY_H
#define EASYML_LIB_CONVERSION_EASYMLTOKERNEL_ENTRYSTRATEGY_H

#include "easyml/Conversion/EasyMLToKernel/ModelLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace easyml::kernel {

/// An entry function as EntryStrategy::createFunction starts it.
struct EntryFunction {
  mlir::Block *block;
  /// The kernel arguments: a pointer to them, or the struct itself.
  mlir::Value args;
  /// The parameters, flags and derived values taken by value (ABI 4), or
  /// null where the kernels read them from the kernel arguments.
  mlir::Value params;
};

/// How the entry functions of one variant are made.
class EntryStrategy {
public:
  virtual ~EntryStrategy();

  /// The strategy for `target`'s kernels of the model with `layout`, in
  /// `module`.
  static std::unique_ptr<EntryStrategy>
  create(mlir::ModuleOp module, VariantAttr target, const ModelLayout &layout);

  /// Makes the place the entry functions go, before the first one.
  virtual void prepareModule(mlir::OpBuilder &b, mlir::Location loc) {}

  /// Creates the entry function `symbol`, empty; the builder's insertion
  /// point is left where the function was created.
  virtual EntryFunction createFunction(mlir::OpBuilder &b, mlir::Location loc,
                                       llvm::StringRef symbol) = 0;

  /// Creates the entry function `symbol` taking one argument struct of
  /// LLVM type `argsStruct` and nothing else (the diffusion operator): a
  /// pointer to it on the CPU, the struct itself in a GPU kernel. Empty,
  /// the builder's insertion point left where it was created.
  virtual EntryFunction createFunctionTaking(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             llvm::StringRef symbol,
                                             mlir::Type argsStruct) = 0;

  /// Ends an entry function at the builder's insertion point.
  virtual void createReturn(mlir::OpBuilder &b, mlir::Location loc) = 0;

  /// Per params index (parameters then flags): whether the kernels read
  /// the parameter's row when the simulation gives one. `perCellParams`
  /// are the names validated by the pass.
  virtual llvm::SmallVector<bool>
  paramsPerCell(const ModelLayout &layout,
                llvm::ArrayRef<std::string> perCellParams) const = 0;

  /// Whether the entry functions take the parameters, flags and derived
  /// values by value (EntryFunction::params).
  virtual bool takesParamsByValue() const { return false; }

  /// `pointer`, a pointer the host passed in, as the kernels address it.
  virtual mlir::Value hostGiven(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value pointer) const {
    return pointer;
  }

  /// The memory space of views of host-given memory (null: the default).
  virtual mlir::Attribute memorySpace(mlir::OpBuilder &b) const { return {}; }

  /// Whether loads of memory no kernel writes while it runs are marked
  /// invariant.
  virtual bool marksReadOnlyLoadsInvariant() const { return false; }

  /// A copy of `v` that the optimisers cannot see through where registers
  /// are scarce, so that what is computed from it stays where it is used
  /// instead of being hoisted and held in a register; else `v` itself.
  virtual mlir::Value keepLocal(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value v) const {
    return v;
  }

  /// Whether the addresses of the cell's storage are computed again after
  /// the step loop (from keepLocal copies) rather than held through it.
  virtual bool recomputesAddressesAfterSteps() const { return false; }
};

} // namespace easyml::kernel

#endif // EASYML_LIB_CONVERSION_EASYMLTOKERNEL_ENTRYSTRATEGY_H
