//===- ModelLayout.h - where a model's variables live ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The one definition of a compiled model's data layout (state and parameter
// indices, table offsets, counters), computed from an expanded
// `easyml.model` and shared by the kernel lowering and the descriptor, so
// both agree by construction.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_CONVERSION_EASYMLTOKERNEL_MODELLAYOUT_H
#define EASYML_CONVERSION_EASYMLTOKERNEL_MODELLAYOUT_H

#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include <optional>
#include <string>
#include <vector>

namespace easyml {

struct ModelLayout {
  struct State {
    std::string name, method, units;
    std::optional<double> lb, ub;
    int lbCounter = -1, ubCounter = -1;
  };
  struct Param {
    std::string name, units;
    double value;
    bool nodal;
    int svIndex = -1; // nodal parameters: index in the per-cell record
  };
  struct Flag {
    std::string name;
    double value;
    std::vector<std::string> cases;
    std::vector<double> caseValues;
  };
  struct External {
    std::string name, simName;
    Access access;
  };
  struct Table {
    std::string variable;
    double lo, hi, step;
    int64_t rows, columns, offset;
    std::vector<std::string> columnNames;
    int counter;
    /// Parameters and flags its columns read (params indices).
    std::vector<int64_t> paramsRead;
  };

  /// A parameter computed from other parameters and flags (ParamOp with a
  /// `derived` region).
  struct DerivedParam {
    int64_t index;              // in params
    std::string formula;        // as written
    std::vector<int64_t> reads; // params indices its definition reads
  };

  std::string name;   // C identifier
  std::string source; // source file
  std::vector<State> states;
  std::vector<Param> params; // then flags, in the params array
  std::vector<Flag> flags;
  std::vector<External> externals;
  std::vector<Table> tables;
  std::vector<std::string> traces;
  std::vector<std::string> counters;
  /// Per-cell values kept between steps that are not model states, stored
  /// after the nodal parameters.
  std::vector<std::string> hidden;
  std::vector<double> hiddenInit; // their initial values
  /// Whether each is in place: read and written in the cell's record where
  /// the step uses it (easyml.hidden_load/store), not carried by kernels.
  std::vector<bool> hiddenInPlace;
  /// Per adaptive group that counts its sub-steps accepted above the
  /// tolerance (hidden `cvode.forced.<group>`): that hidden value's index
  /// and the warning counter of the cells where it is not zero.
  std::vector<std::pair<int, int>> forcedCounters;
  /// Values of `compute` that depend on shared values alone (parameters,
  /// flags, dt, constants) and that the per-cell computation uses: the
  /// host computes them once (the `derived` entry) and GPU kernels take
  /// them by value after the parameters (ABI 4). See findDerived.
  int64_t numDerived = 0;
  /// The derived parameters, each after the derived parameters it reads.
  std::vector<DerivedParam> derivedParams;
  /// Per params index (parameters then flags): whether a kernel or a table
  /// reads it directly (init, compute, a table's columns; nodal parameters
  /// always). A parameter read by none acts only through its dependents.
  std::vector<bool> paramRead;
  int hiddenIndex(llvm::StringRef n) const; // index in `hidden`, or -1
  int64_t svSize = 0;                       // states + nodal parameters
  int64_t svRows = 0; // svSize + hidden: the per-cell record
  int64_t tableSize = 0;
  int vmIndex = -1, iionIndex = -1;
  /// In a whole-cell model (easyml-whole-cell), the state that holds Vm:
  /// the kernels load it from the Vm external before each step and store
  /// it there after; -1 otherwise.
  int wholeCellVm = -1;

  /// Computes the layout of `model` (integrators expanded, tables
  /// extracted or not).
  static ModelLayout get(ModelOp model);

  /// The derived values of a model's `compute` region: `ops` are its
  /// top-level operations that depend on shared values alone (parameter
  /// and flag reads, `easyml.dt`, arithmetic on them), in order; `values`
  /// are those of their f64 results that another operation uses (the rest
  /// is intermediate), in order: derived value k is values[k]. Nodal
  /// parameters are per-cell storage, so nothing derived reads them.
  struct Derived {
    llvm::SmallVector<mlir::Operation *> ops;
    llvm::SmallVector<mlir::Value> values;
  };
  static Derived findDerived(ModelOp model);
  /// Fills derivedParams and paramRead.
  void findDerivedParams(ModelOp model);

  int stateIndex(llvm::StringRef n) const;
  int paramIndex(llvm::StringRef n) const; // params then flags
  int externalIndex(llvm::StringRef n) const;
  int tableIndex(llvm::StringRef variable) const;
  /// Values a kernel can record (kernel args rec_slot): sv rows, then
  /// externals, then traces.
  int64_t numRecordable() const {
    return svRows + static_cast<int64_t>(externals.size() + traces.size());
  }
  /// The params indices (parameters then flags) of `names` and of the
  /// derived parameters computed from them (a parameter that varies per
  /// cell makes its dependents vary too), in params order; "all" names
  /// every parameter and flag. Names that are not a parameter or flag are
  /// added to `unknown`.
  std::vector<int64_t>
  paramIndices(llvm::ArrayRef<std::string> names,
               std::vector<std::string> *unknown = nullptr) const;
  /// How many doubles GPU kernels take by value after the kernel
  /// arguments (ABI 4): every parameter and flag, then the derived values,
  /// where they fit in the launch's parameter space
  /// (EASYML_GPU_PARAM_SPACE), else 0 (the kernels read args.params and
  /// compute the derived values themselves).
  int64_t gpuParamsByValue() const;
  /// The host function that recomputes the derived parameters
  /// (easyml_model_desc.derive_params), one per model.
  std::string deriveParamsSymbol() const {
    return "easyml_" + name + "_derive_params";
  }
  std::string symbol(llvm::StringRef variant, llvm::StringRef entry) const {
    return "easyml_" + name + "_" + variantIdentifier(variant) + "_" +
           entry.str();
  }
  static std::string variantIdentifier(llvm::StringRef variant);
};

/// `name` with every character outside [A-Za-z0-9_] replaced by '_' (and a
/// leading '_' before a digit): a C identifier.
std::string toIdentifier(llvm::StringRef name);

} // namespace easyml

#endif // EASYML_CONVERSION_EASYMLTOKERNEL_MODELLAYOUT_H
