//===- ModelLayout.cpp - where a model's variables live -------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Conversion/EasyMLToKernel/ModelLayout.h"
#include "easyml/ABI/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <cctype>

using namespace mlir;
using namespace easyml;

std::string easyml::toIdentifier(llvm::StringRef name) {
  std::string id;
  for (char c : name)
    id += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
    id = "_" + id;
  return id;
}

std::string ModelLayout::variantIdentifier(llvm::StringRef variant) {
  return toIdentifier(variant);
}

static std::string formatBound(double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

ModelLayout ModelLayout::get(ModelOp model) {
  ModelLayout l;
  l.name = toIdentifier(model.getSymName());
  l.source = model.getSource() ? model.getSource()->str() : "";
  for (Operation &op : model.getBody().front()) {
    if (auto s = dyn_cast<StateOp>(op)) {
      State st;
      st.name = s.getSymName().str();
      st.method = stringifyMethod(s.getMethod()).str();
      st.units = s.getUnits() ? s.getUnits()->str() : "";
      if (s.getLbAttr())
        st.lb = s.getLbAttr().getValueAsDouble();
      if (s.getUbAttr())
        st.ub = s.getUbAttr().getValueAsDouble();
      l.states.push_back(st);
    } else if (auto p = dyn_cast<ParamOp>(op)) {
      l.params.push_back({p.getSymName().str(),
                          p.getUnits() ? p.getUnits()->str() : "",
                          p.getDefaultValue().convertToDouble(), p.getNodal()});
    } else if (auto f = dyn_cast<FlagOp>(op)) {
      Flag fl;
      fl.name = f.getSymName().str();
      fl.value = f.getDefaultValue().convertToDouble();
      for (Attribute a : f.getCaseNames())
        fl.cases.push_back(cast<StringAttr>(a).str());
      for (double v : f.getCaseValues())
        fl.caseValues.push_back(v);
      l.flags.push_back(fl);
    } else if (auto h = dyn_cast<HiddenOp>(op)) {
      l.hidden.push_back(h.getSymName().str());
      l.hiddenInit.push_back(h.getInit().convertToDouble());
      l.hiddenInPlace.push_back(h.getInPlace());
    } else if (auto e = dyn_cast<ExternalOp>(op)) {
      l.externals.push_back(
          {e.getSymName().str(), e.getExtName().str(), e.getAccess()});
      if (e.getExtName() == "Vm")
        l.vmIndex = l.externals.size() - 1;
      if (e.getExtName() == "Iion")
        l.iionIndex = l.externals.size() - 1;
    }
  }
  if (FlatSymbolRefAttr vm = model.getWholeCellVm())
    l.wholeCellVm = l.stateIndex(vm.getValue());
  l.svSize = l.states.size();
  for (Param &p : l.params)
    if (p.nodal)
      p.svIndex = l.svSize++;

  // Counters: table ranges first, then clamps.
  for (Operation &op : model.getBody().front()) {
    auto t = dyn_cast<TableOp>(op);
    if (!t || t.getBody().empty())
      continue;
    Table tab;
    tab.variable = t.getVariable().str();
    tab.lo = t.getLo().convertToDouble();
    tab.hi = t.getHi().convertToDouble();
    tab.step = t.getStep().convertToDouble();
    tab.rows = t.getNumRows();
    tab.columns = t.getNumColumns();
    tab.offset = l.tableSize;
    if (auto names = t.getNames())
      for (Attribute a : *names)
        tab.columnNames.push_back(cast<StringAttr>(a).str());
    t.getBody().walk([&](GetOp get) {
      int idx = l.paramIndex(get.getVar());
      if (idx >= 0 && !llvm::is_contained(tab.paramsRead, idx))
        tab.paramsRead.push_back(idx);
    });
    llvm::sort(tab.paramsRead);
    tab.counter = l.counters.size();
    l.counters.push_back("lookup table " + tab.variable + " out of range [" +
                         formatBound(tab.lo) + ", " + formatBound(tab.hi) +
                         "]");
    l.tableSize += tab.rows * tab.columns;
    l.tables.push_back(tab);
  }
  for (size_t i = 0; i < l.hidden.size(); ++i) {
    llvm::StringRef h = l.hidden[i];
    if (!h.consume_front("cvode.forced"))
      continue;
    h.consume_front(".");
    l.forcedCounters.push_back(
        {static_cast<int>(i), static_cast<int>(l.counters.size())});
    l.counters.push_back(
        (h.empty() ? "cvode group" : "cvode group " + h.str()) +
        ": a sub-step accepted above the tolerance (its "
        "step's sub-step budget spent, or the smallest "
        "step reached; see --cvode-max-substeps)");
  }
  for (State &s : l.states) {
    if (s.lb) {
      s.lbCounter = l.counters.size();
      l.counters.push_back(s.name + " < " + formatBound(*s.lb) + ", clamped");
    }
    if (s.ub) {
      s.ubCounter = l.counters.size();
      l.counters.push_back(s.name + " > " + formatBound(*s.ub) + ", clamped");
    }
  }
  if (ComputeOp compute = model.getComputeOp())
    compute.walk([&](TraceOp t) { l.traces.push_back(t.getLabel().str()); });
  l.svRows = l.svSize + static_cast<int64_t>(l.hidden.size());
  l.numDerived = static_cast<int64_t>(findDerived(model).values.size());
  l.findDerivedParams(model);
  return l;
}

void ModelLayout::findDerivedParams(ModelOp model) {
  SmallVector<ParamOp> ordered;
  if (succeeded(model.getDerivedParams(ordered)))
    for (ParamOp p : ordered) {
      DerivedParam d;
      d.index = paramIndex(p.getSymName());
      d.formula = p.getFormula() ? p.getFormula()->str() : "";
      p.getDefinition().walk([&](GetOp get) {
        int i = paramIndex(get.getVar());
        if (i >= 0 && !llvm::is_contained(d.reads, i))
          d.reads.push_back(i);
      });
      llvm::sort(d.reads);
      derivedParams.push_back(d);
    }
  paramRead.assign(params.size() + flags.size(), false);
  for (auto [i, p] : llvm::enumerate(params))
    paramRead[i] = p.nodal;
  auto markReads = [&](Region &region) {
    region.walk([&](GetOp get) {
      if (int i = paramIndex(get.getVar()); i >= 0)
        paramRead[i] = true;
    });
  };
  for (Operation &op : model.getBody().front())
    if (isa<InitOp, ComputeOp, TableOp>(op))
      markReads(op.getRegion(0));
}

ModelLayout::Derived ModelLayout::findDerived(ModelOp model) {
  Derived d;
  ComputeOp compute = model.getComputeOp();
  if (!compute)
    return d;
  llvm::DenseSet<StringRef> shared;
  for (Operation &op : model.getBody().front()) {
    if (auto p = dyn_cast<ParamOp>(op); p && !p.getNodal())
      shared.insert(p.getSymName());
    else if (auto f = dyn_cast<FlagOp>(op))
      shared.insert(f.getSymName());
  }
  Block &block = compute.getBody().front();
  llvm::DenseSet<Operation *> uniform;
  auto isUniform = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (def->getBlock() != &block) // constants hoisted to the model
      return def->hasTrait<OpTrait::ConstantLike>();
    return uniform.contains(def);
  };
  for (Operation &op : block) {
    bool is = false;
    if (auto get = dyn_cast<GetOp>(op))
      is = shared.contains(get.getVar());
    else if (isa<TimeStepOp>(op) || op.hasTrait<OpTrait::ConstantLike>())
      is = true;
    else if (isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) &&
             op.getNumRegions() == 0 && isMemoryEffectFree(&op) &&
             op.getNumResults() == 1)
      is = llvm::all_of(op.getOperands(), isUniform);
    if (!is)
      continue;
    uniform.insert(&op);
    d.ops.push_back(&op);
  }
  // Worth passing: computed doubles (not reads or constants) that
  // something other than a uniform operation uses. (Comparisons stay in the
  // kernels: they are cheap, and their users take booleans.)
  for (Operation *op : d.ops) {
    if (isa<GetOp, TimeStepOp>(op) || op->hasTrait<OpTrait::ConstantLike>())
      continue;
    Value v = op->getResult(0);
    if (!v.getType().isF64())
      continue;
    if (llvm::any_of(v.getUsers(),
                     [&](Operation *user) { return !uniform.contains(user); }))
      d.values.push_back(v);
  }
  return d;
}

template <typename T>
static int indexOf(const std::vector<T> &v, llvm::StringRef n) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].name == n)
      return i;
  return -1;
}

int ModelLayout::stateIndex(llvm::StringRef n) const {
  return indexOf(states, n);
}
int ModelLayout::paramIndex(llvm::StringRef n) const {
  int i = indexOf(params, n);
  if (i >= 0)
    return i;
  int f = indexOf(flags, n);
  return f < 0 ? -1 : static_cast<int>(params.size()) + f;
}
std::vector<int64_t>
ModelLayout::paramIndices(llvm::ArrayRef<std::string> names,
                          std::vector<std::string> *unknown) const {
  int64_t n = static_cast<int64_t>(params.size() + flags.size());
  std::vector<bool> chosen(n, false);
  for (const std::string &name : names) {
    if (name == "all") {
      chosen.assign(n, true);
      continue;
    }
    int i = paramIndex(name);
    if (i >= 0)
      chosen[i] = true;
    else if (unknown)
      unknown->push_back(name);
  }
  // Dependents after what they read: one pass in dependency order.
  for (const DerivedParam &d : derivedParams)
    if (llvm::any_of(d.reads, [&](int64_t r) { return chosen[r]; }))
      chosen[d.index] = true;
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < n; ++i)
    if (chosen[i])
      indices.push_back(i);
  return indices;
}

int64_t ModelLayout::gpuParamsByValue() const {
  int64_t n = static_cast<int64_t>(params.size() + flags.size()) + numDerived;
  int64_t room = (EASYML_GPU_PARAM_SPACE -
                  static_cast<int64_t>(sizeof(easyml_kernel_args))) /
                 static_cast<int64_t>(sizeof(double));
  return n <= room ? n : 0;
}
int ModelLayout::hiddenIndex(llvm::StringRef n) const {
  for (size_t i = 0; i < hidden.size(); ++i)
    if (hidden[i] == n)
      return i;
  return -1;
}
int ModelLayout::externalIndex(llvm::StringRef n) const {
  return indexOf(externals, n);
}
int ModelLayout::tableIndex(llvm::StringRef variable) const {
  for (size_t i = 0; i < tables.size(); ++i)
    if (tables[i].variable == variable)
      return i;
  return -1;
}
