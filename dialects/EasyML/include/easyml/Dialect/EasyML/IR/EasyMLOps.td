//===- EasyMLOps.td - easyml dialect operations -----------*- tablegen -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_IR_EASYMLOPS_TD
#define EASYML_DIALECT_EASYML_IR_EASYMLOPS_TD

include "easyml/Dialect/EasyML/IR/EasyMLBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class EasyML_Op<string mnemonic, list<Trait> traits = []>
    : Op<EasyML_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Model
//===----------------------------------------------------------------------===//

def EasyML_ModelOp : EasyML_Op<"model", [
    Symbol, SymbolTable, IsolatedFromAbove, NoTerminator, SingleBlock,
    NoRegionArguments]> {
  let summary = "one ionic model";
  let description = [{
    Holds the declarations of one EasyML model (`easyml.state`,
    `easyml.param`, `easyml.flag`, `easyml.external`, `easyml.table`), then
    exactly one `easyml.init` and one `easyml.compute` region op. The
    verifier checks that every state has exactly one initial value and one
    update of the kind its declaration names, and that every written
    external is written exactly once.

    Example:

    ```mlir
    easyml.model @HH {
      easyml.external @V as "Vm" access <read>
      easyml.external @Iion as "Iion" access <write>
      easyml.param @g_L = 3.000000e-01 : f64
      easyml.state @n kind <alpha_beta> method <rush_larsen>
      easyml.init { ... easyml.init_value @n, %0 : f64 }
      easyml.compute { ... easyml.gate_alpha_beta @n alpha %a beta %b }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<StrAttr>:$source);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The model's init region op, or null when missing.
    InitOp getInitOp();
    /// The model's compute region op, or null when missing.
    ComputeOp getComputeOp();
    /// The table declared over `variable`, or null.
    TableOp getTableOp(llvm::StringRef variable);
    /// Name of the unit attribute `easyml-expand-integrators` sets: from then
    /// on every state is updated by `easyml.next`.
    static llvm::StringRef getExpandedAttrName() {
      return "easyml.integrators_expanded";
    }
    bool isExpanded() { return (*this)->hasAttr(getExpandedAttrName()); }
    /// Name of the attribute `easyml-whole-cell` sets: the state that holds
    /// Vm, which the model then integrates itself (with every other state,
    /// as one adaptive system).
    static llvm::StringRef getWholeCellAttrName() {
      return "easyml.whole_cell_vm";
    }
    /// The state that holds Vm in a whole-cell model, or null.
    mlir::FlatSymbolRefAttr getWholeCellVm() {
      return (*this)->getAttrOfType<mlir::FlatSymbolRefAttr>(
          getWholeCellAttrName());
    }
    /// The derived parameters, every one after the derived parameters it
    /// reads; failure (with an error) when their definitions form a cycle.
    mlir::LogicalResult
    getDerivedParams(llvm::SmallVectorImpl<ParamOp> &ordered);
  }];
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

class EasyML_DeclOp<string mnemonic, list<Trait> traits = []>
    : EasyML_Op<mnemonic, !listconcat(traits, [Symbol, HasParent<"ModelOp">])>;

def EasyML_StateOp : EasyML_DeclOp<"state"> {
  let summary = "a state variable of the model";
  let description = [{
    A per-cell state. `kind` says how the model defines its update (an
    explicit derivative `diff_X`, a Hodgkin-Huxley gate in alpha/beta or
    steady-state/time-constant form, or an explicit next value from
    `.store()`); `method` is the integration method. `lb`/`ub` clamp the
    updated value. States that share a `.method()` group (a `cvode` system
    or a `markov_be` chain) carry the same `group` number; `default_init`
    marks a gate whose initial value is its steady state (no `X_init`).

    ```mlir
    easyml.state @m kind <inf_tau> method <rush_larsen> {lb = 0.0 : f64}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       EasyML_StateKindAttr:$kind,
                       EasyML_MethodAttr:$method,
                       OptionalAttr<F64Attr>:$lb,
                       OptionalAttr<F64Attr>:$ub,
                       OptionalAttr<StrAttr>:$units,
                       OptionalAttr<I32Attr>:$group,
                       UnitAttr:$trace,
                       UnitAttr:$default_init);
  let assemblyFormat = "$sym_name `kind` $kind `method` $method attr-dict";
  let hasVerifier = 1;
}

def EasyML_ParamOp : EasyML_DeclOp<"param", [NoRegionArguments]> {
  let summary = "a run-time modifiable parameter";
  let description = [{
    A `.param()` variable with its default value. `nodal` parameters are
    stored per cell.

    A parameter whose default is an expression of other parameters and
    flags (Myokit exports `GKr = GKr_b * 1.3` and mark both parameters) is
    *derived*: its `definition` region computes it from the current values
    of the parameters and flags it reads (`easyml.get`, pure arithmetic) and
    ends with `easyml.yield`. At run time it follows them unless it is set
    itself; `default_value` is its value when they are all at their
    defaults, and `formula` the definition as written, for users.

    ```mlir
    easyml.param @g_Na = 1.200000e+02 {units = "mS/cm^2"}
    easyml.param @GKr = 5.980000e-02 {formula = "GKr_b * 1.3"} derived {
      %0 = easyml.get @GKr_b : f64
      %1 = arith.constant 1.300000e+00 : f64
      %2 = arith.mulf %0, %1 : f64
      easyml.yield %2 : f64
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       F64Attr:$default_value,
                       OptionalAttr<StrAttr>:$units,
                       UnitAttr:$nodal,
                       UnitAttr:$trace,
                       OptionalAttr<StrAttr>:$formula);
  let regions = (region AnyRegion:$definition);
  let assemblyFormat =
      "$sym_name `=` $default_value attr-dict (`derived` $definition^)?";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the parameter is computed from others (has a definition).
    bool isDerived() { return !getDefinition().empty(); }
    /// The value its definition yields, or null for a free parameter.
    mlir::Value getDefinedValue();
  }];
}

def EasyML_FlagOp : EasyML_DeclOp<"flag"> {
  let summary = "a variable restricted to named values";
  let description = [{
    A `.flag(A, B, ...)` variable: its value is one of the named cases,
    chosen at run time (`flags=EPI`).

    ```mlir
    easyml.flag @celltype = 0.0 : f64 cases ["ENDO", "EPI"] values [0.0, 1.0]
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       F64Attr:$default_value,
                       StrArrayAttr:$case_names,
                       DenseF64ArrayAttr:$case_values);
  let assemblyFormat = [{
    $sym_name `=` $default_value `cases` $case_names `values` $case_values
    attr-dict
  }];
  let hasVerifier = 1;
}

def EasyML_ExternalOp : EasyML_DeclOp<"external"> {
  let summary = "a variable exchanged with the simulator";
  let description = [{
    A `.external([name])` variable: `ext_name` is the simulator's array
    (`Vm`, `Iion`, ...); `access` says whether the model reads it, writes it
    or both.

    ```mlir
    easyml.external @V as "Vm" access <read> {nodal}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       StrAttr:$ext_name,
                       EasyML_AccessAttr:$access,
                       OptionalAttr<StrAttr>:$units,
                       UnitAttr:$nodal,
                       UnitAttr:$trace);
  let assemblyFormat = "$sym_name `as` $ext_name `access` $access attr-dict";
  let hasVerifier = 1;
}

def EasyML_HiddenOp : EasyML_DeclOp<"hidden"> {
  let summary = "a per-cell value an integrator keeps between steps";
  let description = [{
    A value stored with each cell, next to its states, that is not a model
    state: `easyml-expand-integrators` declares one per `cvode` group for
    the step size the group last accepted, so the next time step starts
    from it instead of from `dt`, and with `cvode-jacobian-age` the factors
    of the group's iteration matrix, the `gamma*h` they were made for and
    their age in time steps. It starts at `init`; the compute region
    reads it with `easyml.get` and sets its new value with exactly one
    `easyml.next` (expanded models only). Hidden values are written after
    the states and nodal parameters in the per-cell record (the ABI's
    `hidden_names`).

    An `in_place` hidden value is instead read and written where the step
    needs it, at any depth of the compute region, with `easyml.hidden_load`
    and `easyml.hidden_store` (no `easyml.get`, no `easyml.next`): kernels
    access the cell's record there rather than carrying the value through
    the step, which suits values a step reads rarely or only in a branch
    (a GPU thread would otherwise hold them in registers).

    ```mlir
    easyml.hidden @cvode.h.0 init 0.000000e+00 {units = "ms"}
    easyml.hidden @cvode.lu.0.0 init 0.000000e+00 {in_place}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, F64Attr:$init,
                       OptionalAttr<StrAttr>:$units, UnitAttr:$in_place);
  let assemblyFormat = "$sym_name `init` $init attr-dict";
}

def EasyML_TableOp : EasyML_Op<"table", [
    HasParent<"ModelOp">, SingleBlock, IsolatedFromAbove]> {
  let summary = "a lookup table over one variable";
  let description = [{
    `.lookup(lo, hi, step)` on `variable`: expressions that depend only on
    that variable (and constants, non-nodal parameters, flags and `dt`) may
    be tabulated on the grid `lo, lo+step, ..., hi` and interpolated
    linearly. As declared by the front end the op has no body; the
    `easyml-extract-tables` pass gives it a `columns` region that computes
    the tabulated values from the grid value (the block argument) and ends
    with `easyml.yield`, and names the columns. `easyml.lookup` reads them.

    ```mlir
    easyml.table "V" lo -1.000000e+03 hi 1.000000e+03 step 1.000000e-02
    easyml.table "V" lo -1.0e+02 hi 1.0e+02 step 1.0e-02 {names = ["a"]} columns {
    ^bb0(%v: f64):
      %0 = math.exp %v : f64
      easyml.yield %0 : f64
    }
    ```
  }];
  let arguments = (ins StrAttr:$variable, F64Attr:$lo, F64Attr:$hi,
                       F64Attr:$step, OptionalAttr<StrArrayAttr>:$names);
  let regions = (region AnyRegion:$body);
  let assemblyFormat = [{
    $variable `lo` $lo `hi` $hi `step` $step attr-dict (`columns` $body^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of grid rows: lo, lo+step, ..., up to hi inclusive.
    int64_t getNumRows();
    /// Number of tabulated columns (0 before table extraction).
    unsigned getNumColumns();
  }];
}

def EasyML_YieldOp : EasyML_Op<"yield", [
    Pure, Terminator, ParentOneOf<["TableOp", "ParamOp"]>]> {
  let summary = "the tabulated values of one grid row, or a derived parameter";
  let arguments = (ins Variadic<F64>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def EasyML_LookupOp : EasyML_Op<"lookup", [Pure, HasParent<"ComputeOp">]> {
  let summary = "interpolate the columns of a lookup table";
  let description = [{
    Linear interpolation of every column of the table over `variable` at
    `input`; an input outside the grid is clamped to the nearest row (the
    lowered kernel counts such events). Results correspond to the values the
    table's `easyml.yield` tabulates.

    ```mlir
    %a, %b = easyml.lookup "V"(%v) : (f64) -> (f64, f64)
    ```
  }];
  let arguments = (ins StrAttr:$table, F64:$input);
  let results = (outs Variadic<F64>:$results);
  let assemblyFormat = [{
    $table `(` $input `)` attr-dict `:` functional-type($input, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The table this lookup reads, or null.
    TableOp getTableOp();
  }];
}

//===----------------------------------------------------------------------===//
// Regions
//===----------------------------------------------------------------------===//

def EasyML_InitOp : EasyML_Op<"init", [
    HasParent<"ModelOp">, SingleBlock, NoTerminator, NoRegionArguments]> {
  let summary = "initial values of states and externals";
  let description = [{
    Computes the initial value of every state (and of externals with an
    `X_init`) from parameters and flags; ends each with `easyml.init_value`.
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
}

def EasyML_ComputeOp : EasyML_Op<"compute", [
    HasParent<"ModelOp">, SingleBlock, NoTerminator, NoRegionArguments]> {
  let summary = "one time step of one cell, from the old values";
  let description = [{
    Reads old state values, externals, parameters, `t` and `dt`, and ends
    with the model's outputs (`easyml.output`), one update per state and
    traced values (`easyml.trace`).
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

def EasyML_GetOp : EasyML_Op<"get", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "read a declared variable";
  let description = [{
    In `easyml.compute`: the old value of a state, the value of an external,
    parameter or flag. In `easyml.init`: a parameter or flag.

    ```mlir
    %0 = easyml.get @g_Na : f64
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$var);
  let results = (outs F64:$result);
  let assemblyFormat = "$var attr-dict `:` type($result)";
}

def EasyML_HiddenLoadOp : EasyML_Op<"hidden_load", [
    MemoryEffects<[MemRead]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "read an in-place hidden value where the step is";
  let description = [{
    In `easyml.compute`, at any depth: the cell's value of an `in_place`
    `easyml.hidden` as last stored, by `easyml.hidden_store` earlier in this
    step or in an earlier one (`init` before any).

    ```mlir
    %0 = easyml.hidden_load @cvode.lu.0.3 : f64
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$var);
  let results = (outs F64:$result);
  let assemblyFormat = "$var attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def EasyML_HiddenStoreOp : EasyML_Op<"hidden_store", [
    MemoryEffects<[MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "write an in-place hidden value where the step is";
  let description = [{
    In `easyml.compute`, at any depth: sets the cell's value of an
    `in_place` `easyml.hidden`; loads after it (in this step or later ones)
    read it.

    ```mlir
    easyml.hidden_store @cvode.lu.0.3, %f : f64
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$var, F64:$value);
  let assemblyFormat = "$var `,` $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def EasyML_TimeOp : EasyML_Op<"time", [Pure, HasParent<"ComputeOp">]> {
  let summary = "the simulation time `t` at the start of the step (ms)";
  let results = (outs F64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def EasyML_TimeStepOp : EasyML_Op<"dt", [
    Pure, ParentOneOf<["ComputeOp", "TableOp"]>]> {
  let summary = "the time step `dt` (ms)";
  let results = (outs F64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def EasyML_StimulusOp : EasyML_Op<"stimulus", [Pure, HasParent<"ComputeOp">]> {
  let summary = "the stimulus current of the step (uA/uF)";
  let description = [{
    The current the simulator applies to the cell during the step, positive
    depolarising (`dVm/dt = stimulus - Iion`). Only models that integrate
    Vm themselves read it (`easyml-whole-cell`); for the others the
    simulator adds it to Vm outside the model step.
  }];
  let results = (outs F64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def EasyML_StepsSpannedOp
    : EasyML_Op<"steps_spanned", [Pure, HasParent<"ComputeOp">]> {
  let summary = "how many of the simulator's steps the step spans";
  let description = [{
    1.0, except where the simulator lets a model that integrates Vm itself
    (`easyml-whole-cell`) cross several of its steps as one interval (ABI
    `one_interval`): then their number, and `easyml.dt` is their total
    length. Adaptive integrators scale their sub-step budget by it.
  }];
  let results = (outs F64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def EasyML_VmFreeOp : EasyML_Op<"vm_free", [Pure, HasParent<"ComputeOp">]> {
  let summary = "1 when the model may move Vm during the step, else 0";
  let description = [{
    1.0 when the simulator lets a model that integrates Vm itself
    (`easyml-whole-cell`) change it over the step, 0.0 when the simulator
    holds Vm (a step with `integrate_vm = 0`): Vm's derivative is
    multiplied by it.
  }];
  let results = (outs F64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Sinks
//===----------------------------------------------------------------------===//

class EasyML_SinkOp<string mnemonic, string parent, list<Trait> traits = []>
    : EasyML_Op<mnemonic, !listconcat(traits, [
          HasParent<parent>, DeclareOpInterfaceMethods<SymbolUserOpInterface>])>;

def EasyML_InitValueOp : EasyML_SinkOp<"init_value", "InitOp"> {
  let summary = "the initial value of a state or external";
  let arguments = (ins FlatSymbolRefAttr:$var, F64:$value);
  let assemblyFormat = "$var `,` $value attr-dict `:` type($value)";
}

def EasyML_DiffOp : EasyML_SinkOp<"diff", "ComputeOp"> {
  let summary = "the time derivative of a `diff` state";
  let arguments = (ins FlatSymbolRefAttr:$state, F64:$rate);
  let assemblyFormat = "$state `,` $rate attr-dict `:` type($rate)";
}

def EasyML_GateInfTauOp : EasyML_SinkOp<"gate_inf_tau", "ComputeOp"> {
  let summary = "steady state and time constant of a gate";
  let description = [{
    `dX/dt = (inf - X) / tau` for a gate `X` given as `X_inf` and `tau_X`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$state, F64:$inf, F64:$tau);
  let assemblyFormat =
      "$state `inf` $inf `tau` $tau attr-dict `:` type($inf) `,` type($tau)";
}

def EasyML_GateAlphaBetaOp : EasyML_SinkOp<"gate_alpha_beta", "ComputeOp"> {
  let summary = "opening and closing rates of a gate";
  let description = [{
    `dX/dt = alpha * (1 - X) - beta * X` for a gate `X` given as
    `alpha_X`/`a_X` and `beta_X`/`b_X`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$state, F64:$alpha, F64:$beta);
  let assemblyFormat = [{
    $state `alpha` $alpha `beta` $beta attr-dict `:` type($alpha) `,`
    type($beta)
  }];
}

def EasyML_NextOp : EasyML_SinkOp<"next", "ComputeOp"> {
  let summary = "the explicit next value of a state";
  let description = [{
    The new value of a `store` state; after `easyml-expand-integrators`
    (model attribute `easyml.integrators_expanded`) the new value of every
    state and of every `easyml.hidden` value.
  }];
  let arguments = (ins FlatSymbolRefAttr:$state, F64:$value);
  let assemblyFormat = "$state `,` $value attr-dict `:` type($value)";
}

def EasyML_OutputOp : EasyML_SinkOp<"output", "ComputeOp"> {
  let summary = "the value the model writes to an external";
  let arguments = (ins FlatSymbolRefAttr:$var, F64:$value);
  let assemblyFormat = "$var `,` $value attr-dict `:` type($value)";
}

def EasyML_TraceOp : EasyML_Op<"trace", [HasParent<"ComputeOp">]> {
  let summary = "a value recorded in trace output";
  let arguments = (ins StrAttr:$label, F64:$value);
  let assemblyFormat = "$label `,` $value attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

def EasyML_OpaqueOp : EasyML_Op<"opaque", [
    AllTypesMatch<["input", "result"]>]> {
  let summary = "a copy of a value that the optimisers cannot see through";
  let description = [{
    Returns its operand, without the optimisers knowing it does: values
    computed from the result are neither merged with the same values
    computed from the operand (CSE, GVN) nor hoisted out of a loop (LICM).
    `easyml-lower-to-kernels` (the cell's state addresses after the step
    loop) and `easyml-lower-biomarkers` (the biomarker rows inside their
    branch) use it in GPU kernels where recomputing a cheap value beats
    holding it in a register through a long loop. It has unknown side
    effects, so nothing moves it either; `easyml-lower-opaque` lowers it
    to an empty inline-assembly statement that ties its result to its
    operand, which costs no instruction.

    ```mlir
    %stride2 = easyml.opaque %stride : i64
    ```
  }];
  let arguments = (ins I64:$input);
  let results = (outs I64:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Kernel markers: what easyml-lower-to-kernels leaves in the step loop for
// easyml-lower-recording and easyml-lower-biomarkers
//===----------------------------------------------------------------------===//

def EasyML_RecordScheduleOp : EasyML_Op<"record_schedule"> {
  let summary = "when a compute kernel records samples";
  let description = [{
    The recording schedule of a compute kernel, read once per call from the
    kernel arguments `args` (a pointer to `easyml_kernel_args`, or the
    struct by value in a GPU kernel): the global step of sample 0, the
    interval between samples (at least 1) and the number of samples
    (abi/include/easyml/ABI/ABI.h, `rec_first`, `rec_every`,
    `rec_samples`). `easyml-lower-to-kernels` places it before the cell
    loop; `easyml-lower-recording` lowers it to loads of those fields.

    ```mlir
    %first, %every, %samples = easyml.record_schedule %args : !llvm.ptr
    ```
  }];
  let arguments = (ins AnyType:$args);
  let results = (outs I64:$first, I64:$every, I64:$samples);
  let assemblyFormat = "$args attr-dict `:` type($args)";
  let hasVerifier = 1;
}

def EasyML_RecordSampleOp : EasyML_Op<"record_sample", [
    SingleBlock, NoTerminator, NoRegionArguments]> {
  let summary = "record the values of a cell at a step, if it is a sample";
  let description = [{
    In the step loop of a compute kernel, at the start of global step
    `step`: when `step` is a sample step of the schedule (`first`, `every`,
    `samples`, from `easyml.record_schedule`) and `cell` is in the recorded
    range of the kernel arguments `args`, runs its body, in which each
    `easyml.record_value` writes one value of the cell into the sample's
    slot for it (if the recording selects it). `easyml.record_traces` in
    the body holds what only runs when a trace is recorded.
    `easyml-lower-recording` lowers it to the branches and stores into the
    recording buffer (ABI 3 `rec_*`).

    ```mlir
    easyml.record_sample %args, step %s, cell %cell,
        schedule %first, %every, %samples : !llvm.ptr {
      easyml.record_value %vm at 0 : f64
    }
    ```
  }];
  let arguments = (ins AnyType:$args, I64:$step, I64:$cell, I64:$first,
                   I64:$every, I64:$samples);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $args `,` `step` $step `,` `cell` $cell `,` `schedule` $first `,` $every
    `,` $samples attr-dict `:` type($args) $body
  }];
  let hasVerifier = 1;
}

def EasyML_RecordTracesOp : EasyML_Op<"record_traces", [
    HasParent<"RecordSampleOp">, SingleBlock, NoTerminator,
    NoRegionArguments]> {
  let summary = "what a sample computes only when traces are recorded";
  let description = [{
    In `easyml.record_sample`: the evaluation of the model's traces and
    the `easyml.record_value` of each, run only when the recording has a
    slot for a trace (ABI 3 `rec_traces`).

    ```mlir
    easyml.record_traces {
      %trace = arith.mulf %vm, %vm : f64
      easyml.record_value %trace at 3 : f64
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
}

def EasyML_RecordValueOp : EasyML_Op<"record_value", [
    ParentOneOf<["RecordSampleOp", "RecordTracesOp"]>]> {
  let summary = "one recordable value of the sampled cell";
  let description = [{
    Writes `value`, entry `entry` of the model's recordable values (sv
    rows, then externals, then traces: the index into the recording's slot
    table `rec_slot`), into its slot of the current sample when the
    recording selects it (a slot of at least 0).

    ```mlir
    easyml.record_value %vm at 0 : f64
    ```
  }];
  let arguments = (ins F64:$value, I64Attr:$entry);
  let assemblyFormat = "$value `at` $entry attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def EasyML_UpdateBiomarkersOp
    : EasyML_Op<"update_biomarkers", [AttrSizedOperandSegments]> {
  let summary = "update a cell's biomarker accumulators after a step";
  let description = [{
    In the step loop of a compute kernel, after global step `step` (from
    t = step*dt to t + dt) took the cell's Vm from `vm_before` (before the
    stimulus) to `vm_after`, with `states` the new states: when the kernel
    arguments `args` have biomarker accumulators (ABI 3 `bio`), updates
    those of `cell` (resting potential, peak, upstroke, repolarisation
    times, trough, early afterdepolarisations, and the calcium extremes of
    the state in sv row `bio_ca`; docs/biomarkers.md).
    `easyml-lower-biomarkers` lowers it.

    A model that integrates Vm in its own sub-steps also gives Vm's
    extremes within the step: its highest value `vm_peak` and largest
    derivative `dvdt_max`, each with its time from the step's start; the
    peak and the upstroke are then those, where they exceed what the
    step's ends show.

    ```mlir
    easyml.update_biomarkers %args, step %s, cell %cell, dt %dt,
        vm %v0 to %v1, states(%x0, %x1) : !llvm.ptr
    easyml.update_biomarkers %args, step %s, cell %cell, dt %dt,
        vm %v0 to %v1 peak %p at %tp rate %r at %tr, states(%x0) : !llvm.ptr
    ```
  }];
  let arguments = (ins AnyType:$args, I64:$step, I64:$cell, F64:$dt,
                   F64:$vm_before, F64:$vm_after, Optional<F64>:$vm_peak,
                   Optional<F64>:$t_vm_peak, Optional<F64>:$dvdt_max,
                   Optional<F64>:$t_dvdt_max, Variadic<F64>:$states);
  let assemblyFormat = [{
    $args `,` `step` $step `,` `cell` $cell `,` `dt` $dt `,` `vm` $vm_before
    `to` $vm_after (`peak` $vm_peak^ `at` $t_vm_peak `rate` $dvdt_max `at`
    $t_dvdt_max)? `,` `states` `(` $states `)` attr-dict `:` type($args)
  }];
  let hasVerifier = 1;
}

#endif // EASYML_DIALECT_EASYML_IR_EASYMLOPS_TD
