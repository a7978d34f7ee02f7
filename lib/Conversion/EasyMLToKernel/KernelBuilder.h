//===- KernelBuilder.h - the kernels of one model --------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// KernelBuilder writes the entry points of one model for one variant
// (easyml-lower-to-kernels). Its state is what the entry points share: the
// model's layout, the entry strategy, the builder, the parameters loaded in
// the current function. Its member functions are defined by job:
//
//   KernelBuilder.cpp     entry functions, parameters, per-cell views, the
//                         cell loop
//   HostEmitter.cpp       the host entries `tables` and `derived`
//   InitEmitter.cpp       `init`
//   StepEmitter.cpp       `compute` and `eval`: the step loop, one model
//                         step, lookups, clamps and counters, and where
//                         the biomarkers are updated (easyml.update_biomarkers)
//   RecordingEmitter.cpp  what a sample records of the cell during the steps
//                         (easyml.record_sample)
//   DiffusionEmitter.cpp  `diffuse`: the tissue's diffusion operator (ABI 6)
//
// Recording and biomarkers are left as markers in the step loop, lowered
// by passes of their own (LowerRecording.cpp, LowerBiomarkers.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELBUILDER_H
#define EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELBUILDER_H

#include "EntryStrategy.h"
#include "KernelArgs.h"
#include "KernelMemory.h"

#include "easyml/Conversion/EasyMLToKernel/ModelLayout.h"
#include "easyml/Conversion/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <memory>
#include <string>

namespace easyml::kernel {

/// Emits the kernels of one model.
class KernelBuilder {
public:
  /// `perCellParams`: the parameters GPU kernels read per cell (validated
  /// by the pass); CPU kernels read any parameter per cell.
  KernelBuilder(ModelOp model, mlir::ModuleOp module, VariantAttr target,
                llvm::ArrayRef<std::string> perCellParams = {});

  /// Only the host table builder.
  void buildTablesOnly() {
    buildTables();
    buildDerived();
  }

  /// Every entry point of the variant; the host entries `tables` and
  /// `derived` too when `withTables` (CPU variants only).
  mlir::LogicalResult build(bool withTables);

private:
  using Value = mlir::Value;
  using Type = mlir::Type;

  //===--- Small IR helpers -------------------------------------------===//
  Value cI64(int64_t v) {
    return b.create<mlir::arith::ConstantOp>(loc, b.getI64IntegerAttr(v));
  }
  Value cF64(double v) {
    return b.create<mlir::arith::ConstantOp>(loc, b.getF64FloatAttr(v));
  }
  Value gep(Value base, Type elem, Value index) {
    return b.create<mlir::LLVM::GEPOp>(
        loc, base.getType(), elem, base,
        llvm::ArrayRef<mlir::LLVM::GEPArg>{index});
  }
  Value gep(Value base, Type elem, int64_t index) {
    return b.create<mlir::LLVM::GEPOp>(
        loc, base.getType(), elem, base,
        llvm::ArrayRef<mlir::LLVM::GEPArg>{static_cast<int32_t>(index)});
  }
  /// A pointer the host passed in, as the kernels address it (GPU: in the
  /// global address space).
  Value hostGiven(Value pointer) { return entry->hostGiven(b, loc, pointer); }
  /// A pointer field of the kernel arguments.
  Value pointerField(Value args, ArgField f) {
    return hostGiven(field(args, f, ptrTy));
  }
  Value load(Type t, Value ptr) {
    return b.create<mlir::LLVM::LoadOp>(loc, t, ptr);
  }
  /// A load of memory no kernel writes while it runs (kernel arguments,
  /// parameters, per-cell parameter rows, lookup tables): marked invariant
  /// where the entry strategy says so (GPU: the read-only data path).
  Value loadReadOnly(Type t, Value ptr) {
    return b.create<mlir::LLVM::LoadOp>(
        loc, t, ptr, /*alignment=*/0,
        /*isVolatile=*/false,
        /*isNonTemporal=*/false,
        /*isInvariant=*/entry->marksReadOnlyLoadsInvariant());
  }
  void store(Value v, Value ptr) { b.create<mlir::LLVM::StoreOp>(loc, v, ptr); }
  /// Field `f` of the kernel arguments (KernelArgs.h).
  Value field(Value args, ArgField f, Type t) {
    return argField(b, loc, args, f, t);
  }
  Value mulI(Value x, Value y) {
    return b.create<mlir::arith::MulIOp>(loc, x, y);
  }
  Value addI(Value x, Value y) {
    return b.create<mlir::arith::AddIOp>(loc, x, y);
  }

  //===--- Per-cell storage as memref views (KernelBuilder.cpp) -------===//
  /// A memref view of per-cell f64 storage at the host-given `ptr`: sizes
  /// `sizes`, row-major with the given leading strides and a unit
  /// innermost stride, in the entry strategy's memory space. Loads and
  /// stores through it are lowered by the upstream memref and vector
  /// conversions; the sizes are only metadata (nothing checks bounds, and
  /// cpu-simd reads the padding after the last cell).
  Value view(Value ptr, llvm::ArrayRef<Value> sizes,
             llvm::ArrayRef<Value> strides);
  /// The state vector `sv` as a view: [row][cell] with `rowStride` (SoA)
  /// or [cell][row] (AoS).
  Value svView(Value sv, Value rowStride);
  /// The eval output `out` as a view of `numTraces` values per cell.
  Value outView(Value out, int64_t numTraces);
  /// One value per cell: an external's array.
  Value cellsView(Value ptr) { return view(ptr, {stride}, {}); }
  Value toIndex(Value v) {
    return b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), v);
  }
  /// The indices of entry `idx` of `cell` in a per-cell view.
  llvm::SmallVector<Value> cellIndices(Value cell, int64_t idx);
  Value loadAt(Value view, mlir::ValueRange indices) {
    return b.create<mlir::memref::LoadOp>(loc, view, indices);
  }
  void storeAt(Value v, Value view, mlir::ValueRange indices) {
    b.create<mlir::memref::StoreOp>(loc, v, view, indices);
  }
  /// Entry `idx` of the cell's state vector (or of its eval outputs).
  Value loadCell(Value view, Value cell, int64_t idx) {
    return loadAt(view, cellIndices(cell, idx));
  }
  void storeCell(Value v, Value view, Value cell, int64_t idx) {
    storeAt(v, view, cellIndices(cell, idx));
  }
  /// The cell's entry of a one-value-per-cell view.
  Value loadOne(Value view, Value cell) { return loadAt(view, toIndex(cell)); }
  void storeOne(Value v, Value view, Value cell) {
    storeAt(v, view, toIndex(cell));
  }
  /// The views of the externals' arrays (ABI `ext`: one pointer each).
  llvm::SmallVector<Value> externalViews(Value ext);

  //===--- Entry functions and parameters (KernelBuilder.cpp) ---------===//
  /// Starts entry point `name` (EntryStrategy::createFunction). Returns
  /// the kernel arguments (pointer or struct); the builder is in the entry
  /// block.
  Value startFunction(llvm::StringRef name);
  /// Ends the function started last.
  void finishFunction();
  /// Loads every parameter and flag's shared value once, and the rows of
  /// per-cell parameters (ABI 3 `param_rows`; null where shared).
  void loadParams(Value args, bool withRows = true);
  /// The parameters and flags (params indices) that `region` reads and
  /// that may vary per cell in these kernels, nodal parameters excepted
  /// (those are per-cell storage already).
  llvm::SmallVector<bool> paramsReadBy(mlir::Region &region);
  /// Each parameter in `used` for the cells at `cell`: the cell's value
  /// from its row where the simulation gave one, else the shared value
  /// (broadcast). Sets `cellParams`.
  void loadCellParams(Value cell, llvm::ArrayRef<bool> used);
  /// The shared value of parameter `name` (null if there is none).
  Value paramValue(llvm::StringRef name);
  /// The value of parameter `name` for the current cells.
  Value cellParamValue(llvm::StringRef name);
  /// Opens the loop over the cells [begin, end) and returns the cell of
  /// the current iteration (i64). The loop is an `scf.parallel` tagged
  /// `easyml.cells`: iterations are independent (counters are atomic). On
  /// the CPU it runs in order (scf-to-cf), cpu-simd's `width` cells per
  /// iteration once easyml-vectorize-cells has run; in a GPU kernel
  /// easyml-map-cells-to-gpu-threads gives each thread one cell.
  Value openCellLoop(Value begin, Value end);

  //===--- Host entries (HostEmitter.cpp) -----------------------------===//
  /// The host entry `tables`: every lookup table's rows from the shared
  /// parameters and dt.
  void buildTables();
  /// The host entry `derived` (when the model has derived values,
  /// ModelLayout::findDerived): computes them from the shared parameters
  /// and dt into args.out, in order. The runtime calls it whenever those
  /// change and passes the values to GPU kernels by value.
  void buildDerived();

  //===--- Init (InitEmitter.cpp) -------------------------------------===//
  /// The entry `init`: every cell's initial states, nodal parameters,
  /// hidden values and externals.
  mlir::LogicalResult buildInit();

  //===--- Compute and eval (StepEmitter.cpp) -------------------------===//
  /// What `compute` and `eval` load before the cell loop.
  /// A whole-cell model's stimulus current and vm_free for the step being
  /// emitted (null otherwise).
  Value stepStim, stepVmFree;
  /// How many simulator steps the step spans (null: 1).
  Value stepSpanned;
  struct StepArgs {
    Value args, begin, end, nsteps, step0, dt, stim;
    /// The runtime's step, which times the steps (t = (step0 + k) *
    /// gridDt): dt itself unless the steps are one interval.
    Value gridDt;
    /// Whether the kernel integrates Vm (ABI `integrate_vm`).
    Value integrate;
    /// The state vector: its pointer and its view.
    Value svPtr, sv;
    /// The externals' pointer table and their views.
    Value ext;
    llvm::SmallVector<Value> extViews;
    /// The eval outputs.
    Value out;
    /// compute: where to store Vm as read before the steps (ABI 8
    /// `vm_before`; a null pointer: nowhere).
    Value vmBefore;
  };
  /// The values of the current cell before the step.
  struct CellValues {
    llvm::SmallVector<Value> states;
    /// Per params index: the nodal parameters' values (null elsewhere).
    llvm::SmallVector<Value> nodal;
    /// The hidden values, null for those in place (accessed where the
    /// step uses them: neither loaded up front nor carried from step to
    /// step).
    llvm::SmallVector<Value> hidden;
    llvm::SmallVector<Value> exts;
  };
  /// One model step's results: the new states and hidden values, the
  /// outputs per external (null where not written) and the traced values.
  struct StepResult {
    llvm::SmallVector<Value> states, hidden, outputs, traces;
  };

  /// The entry `compute` (`advance`: `nsteps` steps per cell, marking
  /// where samples are recorded and biomarkers updated) or `eval` (the outputs
  /// and traces of the current states).
  mlir::LogicalResult buildStep(bool advance);
  /// The cell loop of a step entry with the parameter rows in paramRows
  /// (none: the shared values).
  mlir::LogicalResult buildCellLoop(const StepArgs &a, bool advance);
  /// Loads the kernel arguments the step entries read (and, for
  /// `compute`, when to record); sets `stride`, `tablesPtr`, `counters`.
  StepArgs loadStepArgs(Value args, bool advance);
  void spanOneInterval(Value args, StepArgs &a);
  llvm::SmallVector<Value> vmExtrema(llvm::ArrayRef<Value> hidden);
  /// Loads the cell's values and the parameters the compute region reads
  /// per cell; sets `stepSv`, `stepCell`, `cellParams`.
  CellValues loadCellValues(Value cell, const StepArgs &a);
  /// `eval`'s body: the externals' outputs and the traces of the cell.
  mlir::LogicalResult emitEval(const StepArgs &a, Value cell,
                               const CellValues &c);
  /// `compute`'s body: the step loop of the cell, then its new values
  /// stored and counted when not finite.
  mlir::LogicalResult emitStepLoop(const StepArgs &a, Value cell,
                                   const CellValues &c);
  /// Stores the values the step loop `results` carried out (states,
  /// externals, hidden values not in place) into the cell's storage.
  void storeAfterSteps(const StepArgs &a, Value cell, mlir::ValueRange results,
                       llvm::ArrayRef<Value> hidden);
  /// Stores the cell's Vm as read (`vm`) where the caller asked for it
  /// (ABI 8 `vm_before`), before the step loop.
  void storeVmBefore(const StepArgs &a, Value cell, Value vm);
  /// Emits one model step at the builder's position. `stateVals` are the
  /// old states, `extVals` the externals.
  mlir::FailureOr<StepResult> emitStep(llvm::ArrayRef<Value> stateVals,
                                       llvm::ArrayRef<Value> nodalVals,
                                       llvm::ArrayRef<Value> hiddenVals,
                                       llvm::ArrayRef<Value> extVals, Value t,
                                       Value dt, bool advance);
  /// Replaces easyml.hidden_load/store in `root` (at any depth) by accesses
  /// to the cell's record.
  void lowerInPlaceHidden(mlir::Operation *root);
  /// Loads column `c` of the rows at `rowIndex` (per cell; a gather once
  /// vectorised).
  Value loadTableEntry(Value rowIndex, int64_t c);
  /// The columns of `lookup`'s table at `x`, interpolated linearly.
  llvm::SmallVector<Value> interpolate(LookupOp lookup, Value x);
  /// Adds one to counter `index` when `cond` holds for the cell.
  /// (easyml-vectorize-cells turns this into one addition per vector.)
  void countIf(Value cond, int index);
  /// NaN detection where the cells are: a compute kernel adds each cell
  /// whose new state or externals hold a NaN or an infinity to the slot
  /// after the model's counters, so the host learns of a blow-up without
  /// scanning (or, on a GPU, copying back) the states.
  void countNonFinite(mlir::ValueRange values);
  /// `bound` where `v <pred> bound`, counting those events; else `v`.
  Value clamp(Value v, double bound, mlir::arith::CmpFPredicate pred,
              int counter);

  //===--- Recording (RecordingEmitter.cpp) ---------------------------===//
  /// Reads the recording schedule once per compute call, before the cell
  /// loop (easyml.record_schedule; the same for every cell).
  void loadRecording(Value args);
  /// At the start of global step `s`: marks what is recorded of the cells
  /// at `cell` if `s` is a sample step (easyml.record_sample, lowered by
  /// easyml-lower-recording): the selected values, and the traces
  /// evaluated from the same values as the eval entry does.
  mlir::LogicalResult emitRecord(Value s, Value cell,
                                 llvm::ArrayRef<Value> states,
                                 llvm::ArrayRef<Value> nodal,
                                 llvm::ArrayRef<Value> hidden,
                                 llvm::ArrayRef<Value> exts, Value dt);

  //===--- Diffusion (DiffusionEmitter.cpp) ---------------------------===//
  /// The activation pass's fields of easyml_diffusion_args (ABI 9).
  struct ActivationArgs {
    Value prev, lat, counts, threshold, t1, dt;
  };
  /// The activation pass of ABI 9 at point `i` of new Vm `x`, for a point
  /// of `tissue`.
  void activationPass(const ActivationArgs &a, Value i, Value x, Value tissue);
  void activatePoint(const ActivationArgs &a, Value i, Value x);
  /// Adds one to counts[`index`] atomically (one addition per vector once
  /// vectorised).
  void addOne(Value counts, int64_t index);
  /// Emits `body` in an scf.if on `cond` (no results), then goes on after.
  void onlyIf(Value cond, llvm::function_ref<void()> body);
  /// base[index] of memory the entry itself writes (not read-only).
  Value loadWritten(Type t, Value base, Value index);
  /// The entry `diffuse`: the monodomain diffusion operator of ABI 6 over
  /// the points [begin, end) of easyml_diffusion_args, one point per
  /// iteration of a cell loop, in the summation order ABI.h documents.
  void buildDiffuse();
  /// v[`index`] - `center` where `flags` has both `neighbour` and the
  /// tissue bit, else 0 (the neighbour is read only then).
  Value neighbourDifference(Value flags, int neighbour, Value v, Value index,
                            Value center);
  /// The Laplacian term c_a ((v[i - s_a] - c) + (v[i + s_a] - c)) of each
  /// axis, summed as ABI.h documents: `interior` reads both neighbours of
  /// every axis with a non-zero coefficient unconditionally (a point that
  /// has them all), otherwise each neighbour only where `flags` has it.
  Value laplacian(bool interior, Value flags, Value v, Value i, Value center,
                  llvm::ArrayRef<Value> strides,
                  llvm::ArrayRef<Value> coefficients);
  /// A load of the caller's per-point memory, which only the points being
  /// computed may do (kMaskedLoadAttr); invariant where the entry strategy
  /// marks read-only loads so.
  Value loadPoint(Type t, Value base, Value index);

  //===--- State ------------------------------------------------------===//
  ModelOp model;
  mlir::ModuleOp module;
  /// What the kernels are for; the fields below are read from it.
  VariantAttr target;
  std::string variant;
  bool soa;
  ModelLayout layout;
  /// What differs between CPU functions and GPU kernels.
  std::unique_ptr<EntryStrategy> entry;
  mlir::Block *functionEntry = nullptr;
  mlir::OpBuilder b;
  mlir::Location loc;
  Type ptrTy, f64, i64;
  llvm::SmallVector<Value> paramValues;
  /// GPU kernels: the parameters and flags passed by value (null when
  /// they do not fit, or on the CPU), then the derived values.
  Value paramsArg;
  llvm::SmallVector<Value> derivedValues;
  /// GPU kernels: the compute region's values they take as derived value
  /// k (those that read no parameter the kernels read per cell).
  llvm::DenseMap<Value, int> derivedIndex;
  /// CPU kernels: each derived value of the compute region computed once
  /// per call, before the cell loop, from the shared parameters (`value`),
  /// whether none of the parameters it reads has a per-cell row in the
  /// call (`shared`), and the operations computing it (HoistDerived.cpp).
  struct Hoisted {
    Value value, shared;
    llvm::SmallVector<mlir::Operation *> chain;
  };
  llvm::DenseMap<Value, Hoisted> hoisted;
  /// Fills `hoisted` at the insertion point (the function's entry, after
  /// loadParams); `dt` is the call's step.
  void hoistDerived(Value dt);
  /// Derived value `v` in the cell loop: the hoisted value where no
  /// parameter it reads has a row, else its chain computed for the cell
  /// from `mapping` (whose entries it leaves as they were).
  Value hoistedOrPerCell(Value v, mlir::IRMapping &mapping);
  /// Per params index: whether these kernels read a row for it when the
  /// simulation gives one (every parameter on the CPU; on GPUs those named
  /// by per-cell-params, the others shared).
  llvm::SmallVector<bool> rowCapable;
  /// Rows of per-cell parameters (null where shared), and the parameters'
  /// values for the current cells.
  llvm::SmallVector<Value> paramRows, cellParams;
  Value tablesPtr, counters, stride;
  /// The cell's record where emitStep runs (set by buildStep): in-place
  /// hidden values are read and written there.
  Value stepSv, stepCell;
  /// The compute kernel's arguments and recording schedule (ABI 3).
  Value recordArgs;
  RecordScheduleOp recordSchedule;
  mlir::IRMapping modelConstants;
};

} // namespace easyml::kernel

#endif // EASYML_LIB_CONVERSION_EASYMLTOKERNEL_KERNELBUILDER_H
