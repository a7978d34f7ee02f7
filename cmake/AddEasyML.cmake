#===- AddEasyML.cmake - helpers for EasyML libraries and tools ------------===#
#
# Thin wrappers around the MLIR/LLVM CMake helpers so every EasyML library and
# tool is declared the same way.
#
#===----------------------------------------------------------------------===#

# add_easyml_library(name sources... [DEPENDS ...] [LINK_LIBS ...])
#   An MLIR-style static library (object files available for tools).
function(add_easyml_library name)
  add_mlir_library(${name} ${ARGN} DISABLE_INSTALL)
endfunction()

# add_easyml_tool(name sources... [DEPENDS ...])
#   One executable per tools/ sub-directory; link libraries with
#   target_link_libraries afterwards.
function(add_easyml_tool name)
  add_llvm_executable(${name} ${ARGN})
  llvm_update_compile_flags(${name})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endfunction()
