//===- EasyMLBase.td - easyml dialect and attributes ------*- tablegen -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_IR_EASYMLBASE_TD
#define EASYML_DIALECT_EASYML_IR_EASYMLBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def EasyML_Dialect : Dialect {
  let name = "easyml";
  let summary = "Cardiac ionic models as written in EasyML";
  let description = [{
    The `easyml` dialect holds one ionic model per `easyml.model` op: the
    declarations the EasyML file implies (states with their initial values,
    integration method and bounds; parameters; flags; external variables
    exchanged with a simulator; lookup tables) and two regions:

    * `easyml.init` computes the initial value of every state and of the
      externals that have an `X_init` (typically `V_init` for Vm) from the
      parameters;
    * `easyml.compute` computes, from the *old* values of the states and the
      externals, everything one time step needs: the outputs written to
      externals (`Iion`), and one update op per state (a derivative, a gate's
      rates or steady state and time constant, or an explicit next value).

    Integration methods are attributes of the states; later passes expand
    them into arithmetic. All values are `f64`, as in EasyML.
  }];
  let cppNamespace = "::easyml";
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def EasyML_MethodFE : I32EnumAttrCase<"fe", 0>;
def EasyML_MethodRK2 : I32EnumAttrCase<"rk2", 1>;
def EasyML_MethodRK4 : I32EnumAttrCase<"rk4", 2>;
def EasyML_MethodRushLarsen : I32EnumAttrCase<"rush_larsen", 3>;
def EasyML_MethodSundnes : I32EnumAttrCase<"sundnes", 4>;
def EasyML_MethodMarkovBE : I32EnumAttrCase<"markov_be", 5>;
def EasyML_MethodRosenbrock : I32EnumAttrCase<"rosenbrock", 6>;
def EasyML_MethodCVODE : I32EnumAttrCase<"cvode", 7>;
def EasyML_MethodNone : I32EnumAttrCase<"none", 8>;

def EasyML_Method : I32EnumAttr<"Method", "integration method of a state", [
    EasyML_MethodFE, EasyML_MethodRK2, EasyML_MethodRK4,
    EasyML_MethodRushLarsen, EasyML_MethodSundnes, EasyML_MethodMarkovBE,
    EasyML_MethodRosenbrock, EasyML_MethodCVODE, EasyML_MethodNone]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::easyml";
}
def EasyML_MethodAttr : EnumAttr<EasyML_Dialect, EasyML_Method, "method"> {
  let assemblyFormat = "`<` $value `>`";
}

def EasyML_StateDiff : I32EnumAttrCase<"diff", 0>;
def EasyML_StateGateAlphaBeta : I32EnumAttrCase<"alpha_beta", 1>;
def EasyML_StateGateInfTau : I32EnumAttrCase<"inf_tau", 2>;
def EasyML_StateStore : I32EnumAttrCase<"store", 3>;

def EasyML_StateKind : I32EnumAttr<"StateKind",
    "how the update of a state is defined", [
    EasyML_StateDiff, EasyML_StateGateAlphaBeta, EasyML_StateGateInfTau,
    EasyML_StateStore]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::easyml";
}
def EasyML_StateKindAttr
    : EnumAttr<EasyML_Dialect, EasyML_StateKind, "state_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def EasyML_AccessRead : I32EnumAttrCase<"read", 0>;
def EasyML_AccessWrite : I32EnumAttrCase<"write", 1>;
def EasyML_AccessReadWrite : I32EnumAttrCase<"readwrite", 2>;

def EasyML_Access : I32EnumAttr<"Access",
    "how the model uses an external variable", [
    EasyML_AccessRead, EasyML_AccessWrite, EasyML_AccessReadWrite]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::easyml";
}
def EasyML_AccessAttr : EnumAttr<EasyML_Dialect, EasyML_Access, "access"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Kernel variants
//===----------------------------------------------------------------------===//

def EasyML_VariantBaseline : I32EnumAttrCase<"baseline", 0>;
def EasyML_VariantCpuSimd : I32EnumAttrCase<"cpu_simd", 1, "cpu-simd">;
def EasyML_VariantCuda : I32EnumAttrCase<"cuda", 2>;
def EasyML_VariantRocm : I32EnumAttrCase<"rocm", 3>;

def EasyML_VariantKind : I32EnumAttr<"VariantKind",
    "the code shape and device of a model's kernels", [
    EasyML_VariantBaseline, EasyML_VariantCpuSimd, EasyML_VariantCuda,
    EasyML_VariantRocm]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::easyml";
}

def EasyML_CellLayoutAoS : I32EnumAttrCase<"aos", 0>;
def EasyML_CellLayoutSoA : I32EnumAttrCase<"soa", 1>;

def EasyML_CellLayout : I32EnumAttr<"CellLayout",
    "how the cells' states are laid out: one record per cell (aos) or one "
    "row per variable (soa)", [EasyML_CellLayoutAoS, EasyML_CellLayoutSoA]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::easyml";
}

def EasyML_VariantAttr : AttrDef<EasyML_Dialect, "Variant"> {
  let mnemonic = "variant";
  let summary = "what one variant's kernels are generated for";
  let description = [{
    Carried by the kernels `easyml-lower-to-kernels` generates (on each GPU
    variant's `gpu.module`, and kept on the `gpu.binary` it becomes) and
    read by the later stages instead of re-parsing variant names: the kind
    (`baseline`, `"cpu-simd"`, `cuda`, `rocm`), the cells one thread or
    lane group computes at once (`width`: the vector width of `cpu-simd`, 1
    otherwise) and the cells' state layout (`aos` for `baseline`, as
    openCARP; `soa` otherwise). The chips a GPU variant is built for are
    the upstream `#nvvm.target`/`#rocdl.target` attributes its module gets
    when serialised.

    ```mlir
    gpu.module @easyml_m_cuda_kernels
        attributes {easyml.variant = #easyml.variant<cuda, width = 1, soa>}
    ```
  }];
  let parameters = (ins EnumParameter<EasyML_VariantKind>:$kind,
                        "int64_t":$width,
                        EnumParameter<EasyML_CellLayout>:$layout);
  // `<kind, width = W, layout>`, the kind a keyword or, for "cpu-simd", a
  // string.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    // The variant as easyml-lower-to-kernels generates it: `simdWidth`
    // cells per vector for cpu-simd.
    AttrBuilder<(ins "VariantKind":$kind, "int64_t":$simdWidth), [{
      return $_get($_ctxt, kind, defaultWidth(kind, simdWidth),
                   defaultLayout(kind));
    }]>
  ];
  let extraClassDeclaration = [{
    /// The name of the discardable attribute that carries the variant: on
    /// CPU kernels, on a GPU variant's gpu.module and on the gpu.binary it
    /// becomes.
    static constexpr llvm::StringLiteral getAttrName() {
      return llvm::StringLiteral("easyml.variant");
    }
    /// The name used in options and symbols' documentation: "cpu-simd".
    llvm::StringRef getName() const { return stringifyVariantKind(getKind()); }
    /// What the kernels run on.
    Backend getBackend() const { return backendOf(getKind()); }
    /// Whether the kernels run on a GPU (cuda, rocm).
    bool isGpu() const { return isGpuVariant(getKind()); }
    static int64_t defaultWidth(VariantKind kind, int64_t simdWidth) {
      return kind == VariantKind::cpu_simd ? simdWidth : 1;
    }
    static CellLayout defaultLayout(VariantKind kind) {
      return kind == VariantKind::baseline ? CellLayout::aos
                                           : CellLayout::soa;
    }
  }];
}

#endif // EASYML_DIALECT_EASYML_IR_EASYMLBASE_TD
