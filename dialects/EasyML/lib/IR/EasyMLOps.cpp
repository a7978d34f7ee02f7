//===- EasyMLOps.cpp - easyml dialect operations --------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/IR/EasyMLOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

using namespace mlir;
using namespace easyml;

#define GET_OP_CLASSES
#include "easyml/Dialect/EasyML/IR/EasyMLOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ModelOp
//===----------------------------------------------------------------------===//

InitOp ModelOp::getInitOp() {
  for (Operation &op : getBody().front())
    if (auto init = dyn_cast<InitOp>(op))
      return init;
  return {};
}

ComputeOp ModelOp::getComputeOp() {
  for (Operation &op : getBody().front())
    if (auto compute = dyn_cast<ComputeOp>(op))
      return compute;
  return {};
}

TableOp ModelOp::getTableOp(llvm::StringRef variable) {
  for (Operation &op : getBody().front())
    if (auto table = dyn_cast<TableOp>(op))
      if (table.getVariable() == variable)
        return table;
  return {};
}

/// The state kind an update op defines, or std::nullopt for other ops.
static std::optional<StateKind> updateKind(Operation *op) {
  if (isa<DiffOp>(op))
    return StateKind::diff;
  if (isa<GateInfTauOp>(op))
    return StateKind::inf_tau;
  if (isa<GateAlphaBetaOp>(op))
    return StateKind::alpha_beta;
  if (isa<NextOp>(op))
    return StateKind::store;
  return std::nullopt;
}

LogicalResult ModelOp::verifyRegions() {
  unsigned numInit = 0, numCompute = 0;
  for (Operation &op : getBody().front()) {
    numInit += isa<InitOp>(op);
    numCompute += isa<ComputeOp>(op);
  }
  if (numInit != 1)
    return emitOpError("expects exactly one 'easyml.init' region op, found ")
           << numInit;
  if (numCompute != 1)
    return emitOpError("expects exactly one 'easyml.compute' region op, found ")
           << numCompute;

  // Count how often each state is initialised and updated, and each external
  // written.
  llvm::DenseMap<StringAttr, unsigned> inits, updates, outputs;
  getInitOp().walk([&](InitValueOp op) { ++inits[op.getVarAttr().getAttr()]; });
  bool expanded = isExpanded();
  getComputeOp().walk([&](Operation *op) {
    if (expanded && updateKind(op) && !isa<NextOp>(op)) {
      ++updates[StringAttr()]; // Reported below as a stray update.
      return;
    }
    if (updateKind(op))
      ++updates[op->getAttrOfType<FlatSymbolRefAttr>("state").getAttr()];
    else if (auto out = dyn_cast<OutputOp>(op))
      ++outputs[out.getVarAttr().getAttr()];
  });

  if (updates.count(StringAttr()))
    return emitOpError("has integrators expanded but still contains a "
                       "derivative or gate update");
  SmallVector<ParamOp> derived;
  if (failed(getDerivedParams(derived)))
    return failure();
  for (Operation &op : getBody().front()) {
    if (auto state = dyn_cast<StateOp>(op)) {
      StringAttr name = state.getSymNameAttr();
      if (inits.lookup(name) != 1)
        return state.emitOpError("expects exactly one initial value for state ")
               << name << ", found " << inits.lookup(name);
      if (updates.lookup(name) != 1)
        return state.emitOpError("expects exactly one update of state ")
               << name << ", found " << updates.lookup(name);
    } else if (auto hidden = dyn_cast<HiddenOp>(op)) {
      StringAttr name = hidden.getSymNameAttr();
      if (!expanded)
        return hidden.emitOpError("expects a model with integrators expanded");
      if (!hidden.getInPlace() && updates.lookup(name) != 1)
        return hidden.emitOpError("expects exactly one update of hidden value ")
               << name << ", found " << updates.lookup(name);
    } else if (auto ext = dyn_cast<ExternalOp>(op)) {
      StringAttr name = ext.getSymNameAttr();
      unsigned n = outputs.lookup(name);
      if (n > 1)
        return ext.emitOpError("expects at most one output to external ")
               << name << ", found " << n;
      if (ext.getAccess() == Access::write && n != 1)
        return ext.emitOpError("expects the model to write external ")
               << name << ", which it declares write-only";
      if (inits.lookup(name) > 1)
        return ext.emitOpError("expects at most one initial value for ")
               << name;
    }
  }
  return success();
}

LogicalResult ModelOp::getDerivedParams(SmallVectorImpl<ParamOp> &ordered) {
  // Depth-first over "reads", the parameters a definition reads first.
  llvm::DenseMap<StringAttr, ParamOp> params;
  for (Operation &op : getBody().front())
    if (auto p = dyn_cast<ParamOp>(op); p && p.isDerived())
      params[p.getSymNameAttr()] = p;
  enum Mark { Unseen, Open, Done };
  llvm::DenseMap<StringAttr, Mark> mark;
  std::function<LogicalResult(ParamOp)> visit =
      [&](ParamOp p) -> LogicalResult {
    Mark &m = mark[p.getSymNameAttr()];
    if (m == Done)
      return success();
    if (m == Open)
      return p.emitOpError("is defined in terms of itself (a cycle of "
                           "derived parameters)");
    m = Open;
    WalkResult r = p.getDefinition().walk([&](GetOp get) {
      ParamOp dep = params.lookup(get.getVarAttr().getAttr());
      return dep && failed(visit(dep)) ? WalkResult::interrupt()
                                       : WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
    mark[p.getSymNameAttr()] = Done;
    ordered.push_back(p);
    return success();
  };
  for (Operation &op : getBody().front())
    if (auto p = dyn_cast<ParamOp>(op); p && p.isDerived())
      if (failed(visit(p)))
        return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

Value ParamOp::getDefinedValue() {
  if (!isDerived())
    return {};
  auto yield = dyn_cast<YieldOp>(getDefinition().front().getTerminator());
  return yield && yield.getValues().size() == 1 ? yield.getValues()[0]
                                                : Value();
}

LogicalResult ParamOp::verify() {
  if (!isDerived()) {
    if (getFormula())
      return emitOpError("has a formula but no 'derived' region");
    return success();
  }
  if (!getDefinition().hasOneBlock())
    return emitOpError("expects a 'derived' region of one block");
  Block &block = getDefinition().front();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValues().size() != 1)
    return emitOpError("expects its 'derived' region to end with "
                       "'easyml.yield' of one value");
  for (Operation &op : block.without_terminator()) {
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return op.emitOpError("cannot compute derived parameter ")
             << getSymNameAttr()
             << ": its definition may only read parameters and flags and "
                "compute from them";
    if (auto get = dyn_cast<GetOp>(op); get && get.getVar() == getSymName())
      return emitOpError("reads itself in its definition");
  }
  return success();
}

LogicalResult StateOp::verify() {
  auto lb = getLbAttr(), ub = getUbAttr();
  if (lb && std::isnan(lb.getValueAsDouble()))
    return emitOpError("expects a lower bound that is a number");
  if (ub && std::isnan(ub.getValueAsDouble()))
    return emitOpError("expects an upper bound that is a number");
  if (lb && ub && lb.getValueAsDouble() > ub.getValueAsDouble())
    return emitOpError("expects lower bound ")
           << lb.getValueAsDouble() << " <= upper bound "
           << ub.getValueAsDouble();
  return success();
}

LogicalResult FlagOp::verify() {
  if (getCaseNames().empty())
    return emitOpError("expects at least one case");
  if (getCaseNames().size() != getCaseValues().size())
    return emitOpError("expects as many case values as case names, found ")
           << getCaseValues().size() << " values for " << getCaseNames().size()
           << " names";
  llvm::StringSet<> seen;
  for (Attribute name : getCaseNames()) {
    StringRef s = cast<StringAttr>(name).getValue();
    if (s.empty())
      return emitOpError("expects non-empty case names");
    if (!seen.insert(s).second)
      return emitOpError("expects distinct case names, '")
             << s << "' appears twice";
  }
  return success();
}

LogicalResult ExternalOp::verify() {
  if (getExtName().empty())
    return emitOpError("expects a non-empty simulator name");
  return success();
}

LogicalResult TableOp::verify() {
  double lo = getLo().convertToDouble(), hi = getHi().convertToDouble(),
         step = getStep().convertToDouble();
  if (!std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(step))
    return emitOpError("expects finite bounds and step");
  if (!(lo < hi))
    return emitOpError("expects lo < hi, got lo = ")
           << lo << " and hi = " << hi;
  if (!(step > 0))
    return emitOpError("expects a positive step, got ") << step;
  if ((hi - lo) / step > 1e8)
    return emitOpError("expects at most 1e8 rows, got ") << (hi - lo) / step;
  if (getBody().empty()) {
    if (getNames() && !getNames()->empty())
      return emitOpError("names columns but has no 'columns' region");
    return success();
  }
  Block &block = getBody().front();
  if (block.getNumArguments() != 1 || !block.getArgument(0).getType().isF64())
    return emitOpError("expects a 'columns' region with one f64 argument");
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError("expects its region to end with 'easyml.yield'");
  if (getNames() && getNames()->size() != yield.getValues().size())
    return emitOpError("names ") << getNames()->size() << " columns but yields "
                                 << yield.getValues().size();
  return success();
}

int64_t TableOp::getNumRows() {
  double lo = getLo().convertToDouble(), hi = getHi().convertToDouble(),
         step = getStep().convertToDouble();
  return static_cast<int64_t>(std::floor((hi - lo) / step + 1e-9)) + 1;
}

unsigned TableOp::getNumColumns() {
  if (getBody().empty())
    return 0;
  return cast<YieldOp>(getBody().front().getTerminator()).getValues().size();
}

//===----------------------------------------------------------------------===//
// LookupOp
//===----------------------------------------------------------------------===//

TableOp LookupOp::getTableOp() {
  auto model = (*this)->getParentOfType<ModelOp>();
  return model ? model.getTableOp(getTable()) : TableOp();
}

LogicalResult LookupOp::verify() {
  TableOp table = getTableOp();
  if (!table)
    return emitOpError("refers to no table over '") << getTable() << "'";
  if (table.getNumColumns() != getNumResults())
    return emitOpError("expects ")
           << table.getNumColumns() << " results for table '" << getTable()
           << "', got " << getNumResults();
  return success();
}

//===----------------------------------------------------------------------===//
// Symbol uses
//===----------------------------------------------------------------------===//

/// Looks up the declaration `ref` names in the enclosing model.
static Operation *lookupDecl(Operation *user, FlatSymbolRefAttr ref,
                             SymbolTableCollection &tables) {
  auto model = user->getParentOfType<ModelOp>();
  if (!model)
    return nullptr;
  return tables.lookupSymbolIn(model, ref.getAttr());
}

LogicalResult GetOp::verifySymbolUses(SymbolTableCollection &tables) {
  Operation *decl = lookupDecl(*this, getVarAttr(), tables);
  if (!decl)
    return emitOpError("refers to undeclared variable ") << getVarAttr();
  if (isa<ParamOp, FlagOp>(decl))
    return success();
  for (StringRef region : {"init", "table", "param"}) {
    bool inside =
        region == "init"    ? (*this)->getParentOfType<InitOp>() != nullptr
        : region == "table" ? (*this)->getParentOfType<TableOp>() != nullptr
                            : (*this)->getParentOfType<ParamOp>() != nullptr;
    if (inside)
      return emitOpError("in 'easyml.")
             << region << "' may read only parameters and flags, but "
             << getVarAttr() << " is a '" << decl->getName() << "'";
  }
  if (auto ext = dyn_cast<ExternalOp>(decl)) {
    if (ext.getAccess() == Access::write)
      return emitOpError("reads external ")
             << getVarAttr() << ", which the model declares write-only";
    return success();
  }
  if (auto hidden = dyn_cast<HiddenOp>(decl); hidden && hidden.getInPlace())
    return emitOpError("reads in-place hidden value ")
           << getVarAttr() << " (read it with 'easyml.hidden_load')";
  if (isa<StateOp, HiddenOp>(decl))
    return success();
  return emitOpError("cannot read ") << getVarAttr();
}

/// Checks that `ref` names an in-place hidden value.
static LogicalResult verifyInPlaceAccess(Operation *op, FlatSymbolRefAttr ref,
                                         SymbolTableCollection &tables) {
  auto hidden = dyn_cast_or_null<HiddenOp>(lookupDecl(op, ref, tables));
  if (!hidden || !hidden.getInPlace())
    return op->emitOpError("expects an in-place hidden value, got ") << ref;
  return success();
}

/// Checks that `op` is inside a compute region (at any depth).
static LogicalResult verifyInCompute(Operation *op) {
  if (!op->getParentOfType<ComputeOp>())
    return op->emitOpError("expects to be inside 'easyml.compute'");
  return success();
}

LogicalResult HiddenLoadOp::verify() { return verifyInCompute(*this); }
LogicalResult HiddenLoadOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyInPlaceAccess(*this, getVarAttr(), tables);
}
LogicalResult HiddenStoreOp::verify() { return verifyInCompute(*this); }
LogicalResult HiddenStoreOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyInPlaceAccess(*this, getVarAttr(), tables);
}

LogicalResult InitValueOp::verifySymbolUses(SymbolTableCollection &tables) {
  Operation *decl = lookupDecl(*this, getVarAttr(), tables);
  if (!decl || !isa<StateOp, ExternalOp>(decl))
    return emitOpError("expects a state or external, got ") << getVarAttr();
  return success();
}

/// Checks that `ref` names a state declared with kind `kind`.
static LogicalResult verifyStateUpdate(Operation *op, FlatSymbolRefAttr ref,
                                       StateKind kind,
                                       SymbolTableCollection &tables) {
  auto state = dyn_cast_or_null<StateOp>(lookupDecl(op, ref, tables));
  if (!state)
    return op->emitOpError("expects a state, got ") << ref;
  if (state.getKind() != kind)
    return op->emitOpError("updates state ")
           << ref << " of kind '" << stringifyStateKind(state.getKind())
           << "', expected kind '" << stringifyStateKind(kind) << "'";
  return success();
}

LogicalResult DiffOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyStateUpdate(*this, getStateAttr(), StateKind::diff, tables);
}
LogicalResult GateInfTauOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyStateUpdate(*this, getStateAttr(), StateKind::inf_tau, tables);
}
LogicalResult GateAlphaBetaOp::verifySymbolUses(SymbolTableCollection &tables) {
  return verifyStateUpdate(*this, getStateAttr(), StateKind::alpha_beta,
                           tables);
}
LogicalResult NextOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto model = (*this)->getParentOfType<ModelOp>();
  if (model && model.isExpanded()) {
    Operation *decl = lookupDecl(*this, getStateAttr(), tables);
    if (!isa_and_nonnull<StateOp, HiddenOp>(decl))
      return emitOpError("expects a state or hidden value, got ")
             << getStateAttr();
    if (auto hidden = dyn_cast<HiddenOp>(decl); hidden && hidden.getInPlace())
      return emitOpError("updates in-place hidden value ")
             << getStateAttr() << " (write it with 'easyml.hidden_store')";
    return success();
  }
  return verifyStateUpdate(*this, getStateAttr(), StateKind::store, tables);
}

LogicalResult OutputOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto ext =
      dyn_cast_or_null<ExternalOp>(lookupDecl(*this, getVarAttr(), tables));
  if (!ext)
    return emitOpError("expects an external, got ") << getVarAttr();
  if (ext.getAccess() == Access::read)
    return emitOpError("writes external ")
           << getVarAttr() << ", which the model declares read-only";
  return success();
}

//===----------------------------------------------------------------------===//
// VariantAttr
//===----------------------------------------------------------------------===//

LogicalResult VariantAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  VariantKind kind, int64_t width,
                                  CellLayout layout) {
  if (width < 1 || width > 64)
    return emitError() << "variant '" << stringifyVariantKind(kind)
                       << "' has width " << width << " (expected 1 to 64)";
  if (kind != VariantKind::cpu_simd && width != 1)
    return emitError() << "variant '" << stringifyVariantKind(kind)
                       << "' computes one cell at a time, not " << width;
  if (layout != defaultLayout(kind))
    return emitError() << "variant '" << stringifyVariantKind(kind)
                       << "' keeps its cells in "
                       << stringifyCellLayout(defaultLayout(kind))
                       << " layout, not " << stringifyCellLayout(layout);
  return success();
}

Attribute VariantAttr::parse(AsmParser &parser, Type) {
  std::string name;
  StringRef layoutName;
  int64_t width;
  SMLoc kindLoc, layoutLoc;
  if (parser.parseLess() || (kindLoc = parser.getCurrentLocation(), false) ||
      parser.parseKeywordOrString(&name) || parser.parseComma() ||
      parser.parseKeyword("width") || parser.parseEqual() ||
      parser.parseInteger(width) || parser.parseComma() ||
      (layoutLoc = parser.getCurrentLocation(), false) ||
      parser.parseKeyword(&layoutName) || parser.parseGreater())
    return {};
  std::optional<VariantKind> kind = symbolizeVariantKind(name);
  if (!kind) {
    parser.emitError(kindLoc, "unknown variant '")
        << name << "' (expected baseline, \"cpu-simd\", cuda or rocm)";
    return {};
  }
  std::optional<CellLayout> layout = symbolizeCellLayout(layoutName);
  if (!layout) {
    parser.emitError(layoutLoc, "unknown cell layout '")
        << layoutName << "' (expected aos or soa)";
    return {};
  }
  return getChecked([&] { return parser.emitError(kindLoc); },
                    parser.getContext(), *kind, width, *layout);
}

void VariantAttr::print(AsmPrinter &printer) const {
  printer << "<";
  StringRef name = getName();
  if (name.contains('-'))
    printer << '"' << name << '"';
  else
    printer << name;
  printer << ", width = " << getWidth() << ", "
          << stringifyCellLayout(getLayout()) << ">";
}
