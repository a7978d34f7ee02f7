//===- ExtractTables.cpp - tabulate expressions of one variable -----------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Dialect/EasyML/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace easyml {
#define GEN_PASS_DEF_EXTRACTTABLES
#include "easyml/Dialect/EasyML/Transforms/Passes.h.inc"
} // namespace easyml

using namespace mlir;
using namespace easyml;

/// The variable name a value carries in its location, if any.
static std::string nameOf(Value v) {
  std::string name;
  v.getLoc()->walk([&](Location loc) {
    if (auto named = dyn_cast<NameLoc>(loc)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

static bool isConstantValue(Value v) {
  Operation *def = v.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

/// Tabulates what depends only on `table`'s variable; returns false when the
/// table was left alone.
static LogicalResult extract(ModelOp model, TableOp table, Block &block) {
  Operation *decl = SymbolTable::lookupSymbolIn(model, table.getVariable());
  if (!isa_and_nonnull<StateOp, ExternalOp>(decl)) {
    table.emitWarning("lookup table over '")
        << table.getVariable()
        << "' is not tabulated: only tables over a state or an external are; "
           "its expressions are evaluated directly";
    return success();
  }

  // Classify the top-level operations in order: invariant (constants,
  // non-nodal parameters, flags, dt) or dependent on the table variable only.
  llvm::DenseSet<Value> invariant, dependent;
  SmallVector<Operation *> dependentOps;
  Value input;
  for (Operation &op : block) {
    if (auto get = dyn_cast<GetOp>(op)) {
      Operation *d = SymbolTable::lookupSymbolIn(model, get.getVarAttr());
      if (get.getVar() == table.getVariable()) {
        if (!input)
          input = get.getResult();
        dependent.insert(get.getResult());
      } else if (isa_and_nonnull<FlagOp>(d) || (isa_and_nonnull<ParamOp>(d) &&
                                                !cast<ParamOp>(d).getNodal())) {
        invariant.insert(get.getResult());
      }
      continue;
    }
    if (isa<TimeStepOp>(op)) {
      invariant.insert(op.getResult(0));
      continue;
    }
    if (op.getNumRegions() || op.getNumResults() != 1 || !isPure(&op) ||
        isa<TimeOp, LookupOp, StimulusOp, VmFreeOp, StepsSpannedOp>(op))
      continue;
    bool allInv = true, allOk = true;
    for (Value v : op.getOperands()) {
      bool inv = invariant.contains(v) || isConstantValue(v);
      allInv &= inv;
      allOk &= inv || dependent.contains(v);
    }
    if (allInv) {
      invariant.insert(op.getResult(0));
    } else if (allOk) {
      dependent.insert(op.getResult(0));
      dependentOps.push_back(&op);
    }
  }
  if (!input)
    return success();

  // Columns: f64 dependent values used outside the dependent set.
  SmallVector<Value> columns;
  for (Operation *op : dependentOps) {
    Value v = op->getResult(0);
    if (!v.getType().isF64())
      continue;
    bool usedOutside = llvm::any_of(v.getUsers(), [&](Operation *user) {
      return user->getNumResults() != 1 ||
             !dependent.contains(user->getResult(0)) ||
             user->getBlock() != &block;
    });
    if (usedOutside)
      columns.push_back(v);
  }
  if (columns.empty())
    return success();

  // Build the table body: clone what the columns need.
  OpBuilder b(model.getContext());
  Block *body = new Block();
  table.getBody().push_back(body);
  Value grid = body->addArgument(b.getF64Type(), table.getLoc());
  b.setInsertionPointToStart(body);
  llvm::DenseSet<Operation *> needed;
  llvm::SetVector<Operation *> outerConstants;
  SmallVector<Value> work(columns.begin(), columns.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def)
      continue;
    if (def->getBlock() != &block) {
      // Constants the canonicalizer hoisted out of the compute region.
      if (def->hasTrait<OpTrait::ConstantLike>())
        outerConstants.insert(def);
      continue;
    }
    if (!needed.insert(def).second)
      continue;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  IRMapping mapping;
  for (Operation *c : outerConstants)
    b.clone(*c, mapping);
  for (Operation &op : block) {
    if (!needed.contains(&op))
      continue;
    if (auto get = dyn_cast<GetOp>(op);
        get && get.getVar() == table.getVariable()) {
      mapping.map(get.getResult(), grid);
      continue;
    }
    b.clone(op, mapping);
  }
  SmallVector<Value> yielded;
  SmallVector<StringRef> names;
  std::vector<std::string> storage;
  for (Value c : columns) {
    yielded.push_back(mapping.lookup(c));
    storage.push_back(nameOf(c));
  }
  for (auto [i, s] : llvm::enumerate(storage)) {
    if (s.empty())
      s = "col" + std::to_string(i);
    names.push_back(s);
  }
  b.create<YieldOp>(table.getLoc(), yielded);
  table.setNamesAttr(b.getStrArrayAttr(names));

  // One lookup right after the variable is read.
  b.setInsertionPointAfterValue(input);
  SmallVector<Type> types(columns.size(), b.getF64Type());
  auto lookup =
      b.create<LookupOp>(table.getLoc(), types, table.getVariableAttr(), input);
  for (auto [c, r] : llvm::zip(columns, lookup.getResults()))
    c.replaceUsesWithIf(r, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return user != lookup.getOperation() &&
             !(user->getNumResults() == 1 &&
               dependent.contains(user->getResult(0)) &&
               user->getBlock() == &block);
    });
  // What only fed the columns is dead now.
  for (Operation *op : llvm::reverse(dependentOps))
    if (op->use_empty())
      op->erase();
  return success();
}

namespace {
struct ExtractTablesPass
    : public easyml::impl::ExtractTablesBase<ExtractTablesPass> {
  void runOnOperation() override {
    ModelOp model = getOperation();
    ComputeOp compute = model.getComputeOp();
    if (!compute)
      return;
    for (Operation &op : model.getBody().front()) {
      auto table = dyn_cast<TableOp>(op);
      if (!table || !table.getBody().empty())
        continue;
      if (failed(extract(model, table, compute.getBody().front())))
        return signalPassFailure();
    }
  }
};
} // namespace
