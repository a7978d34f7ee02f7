//===- Params.h - a model's parameters, set and derived ---------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The values of a model's parameters and flags as a simulation uses them.
// Some parameters are *derived*: their default is an expression of other
// parameters and flags (a Myokit export's `GKr = GKr_b * 1.3` with both
// marked `.param()`). A derived parameter follows what it reads unless the
// user sets it; then the user's value wins and its own dependents follow
// it. The compiled model recomputes them (ABI 5 `derive_params`); this class
// keeps track of what the user set and calls it whenever values change.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_RUNTIME_PARAMS_H
#define EASYML_RUNTIME_PARAMS_H

#include "easyml/ABI/ABI.h"
#include "easyml/Runtime/Support/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace easyml {
namespace rt {

class CellStore;

/// One `--imp-par` item: `name op value[%]` or `flags=A|B` (openCARP's
/// syntax).
struct ParamMod {
  int64_t index = -1; // params index (parameters then flags)
  char op = '=';      // = * / + -; flags: '='
  double operand = 0;
  bool percent = false;
  std::string text; // the item as given, for messages and logs
};

/// Parses openCARP's `--imp-par` syntax: comma-separated `name=v`, `name*v`,
/// `name/v`, `name+v`, `name-v` (a trailing `%` makes the operand a
/// percentage) and `flags=A|B`. Flags come first in `mods`, then the other
/// items in the order given. On error returns false with a message naming
/// the offending item.
bool parseParamMods(const easyml_model_desc &desc, const std::string &mods,
                    std::vector<ParamMod> &items, std::string &error);

/// The shared values of a model's parameters and flags (descriptor order),
/// with the derived ones kept up to date.
class ParamSet {
public:
  explicit ParamSet(const easyml_model_desc &desc);

  const easyml_model_desc &desc() const { return *desc_; }
  /// Parameters then flags.
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  /// The params index of parameter or flag `name`, or -1.
  int64_t index(const std::string &name) const;
  /// "GKr", the name of params index `p`.
  std::string name(int64_t p) const;
  const std::vector<double> &values() const { return values_; }
  double value(int64_t p) const { return values_[p]; }

  /// Whether `p` is computed from other parameters and flags.
  bool isDerived(int64_t p) const { return derivedSlot_[p] >= 0; }
  /// Its definition as written ("" for a free parameter).
  std::string formula(int64_t p) const;
  /// The parameters and flags its definition reads (params indices).
  std::vector<int64_t> reads(int64_t p) const;
  /// Whether a kernel or table reads `p` directly.
  bool readByKernels(int64_t p) const;
  /// Set by the user with set() or modify() (derived ones then no longer
  /// follow their definition).
  bool isSet(int64_t p) const { return set_[p] != 0; }

  /// Sets `p` to `value`: the user's value, kept until reset().
  void set(int64_t p, double value);
  /// The same by name; Invalid for an unknown name or a non-finite value
  /// (nothing changed).
  Status set(const std::string &name, double value);
  /// Back to the default (free) or to following the definition (derived).
  void reset(int64_t p);
  /// Applies `--imp-par` items. A relative change of a derived parameter
  /// (`GKr*2`) applies to the value its definition gives after the other
  /// changes. Invalid (nothing changed) for a malformed item, an unknown
  /// name or a non-finite result; `log` gets one line per change.
  Status modify(const std::string &mods,
                std::vector<std::string> *log = nullptr);

  /// The derived parameters that vary per cell when the parameters marked
  /// in `perCell` (params indices) do: those not set by the user (nor in
  /// `perCell`) that read one of them, directly or through others; in
  /// dependency order.
  std::vector<int64_t>
  perCellDependents(const std::vector<bool> &perCell) const;
  /// What derive_params keeps: the parameters the user set and those
  /// marked in `perCell` (ABI 5 `keep`).
  std::vector<int64_t> keepMask(const std::vector<bool> &perCell) const;
  /// Recomputes the derived values in `values` (size() doubles: the shared
  /// values with a cell's own ones written over them) but those `keep`
  /// marks.
  void deriveCell(double *values, const std::vector<int64_t> &keep) const;

  /// Warnings for parameters set (uniformly, or per cell where `perCell`
  /// marks them) that change nothing: no kernel reads them and every
  /// derived parameter that reads them is set too.
  std::vector<std::string>
  unusedSettings(const std::vector<bool> &perCell) const;

private:
  void derive();

  const easyml_model_desc *desc_;
  std::vector<double> values_;
  std::vector<int64_t> set_;
  /// Per params index: its position in desc.derived_params, or -1.
  std::vector<int64_t> derivedSlot_;
};

/// Keeps the per-cell rows of derived parameters in `store` consistent with
/// the rows the user gave (`userRows`, params indices) and `params`: every
/// derived parameter that then varies per cell gets a row computed cell by
/// cell, one that no longer does goes back to shared. `derivedRows` holds
/// those rows' indices between calls. Returns whether any row changed.
bool updateDerivedRows(const ParamSet &params, CellStore &store,
                       const std::vector<bool> &userRows,
                       std::vector<int64_t> &derivedRows);

} // namespace rt
} // namespace easyml

#endif // EASYML_RUNTIME_PARAMS_H
