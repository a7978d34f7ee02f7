# easyml_add_model(<target> SOURCE <file.model>
#                  [VARIANTS baseline cpu-simd cuda rocm]
#                  [CUDA_ARCHS sm_80 sm_90 ...] [ROCM_CHIPS gfx90a ...]
#                  [NAME <model name>] [OPTIONS <easyml-compile options>...])
#
# Compiles an EasyML model at build time into an object with the model's
# descriptor and kernels, and a header declaring it, and makes <target> a
# library holding that object: link it (with EasyML::runtime, which it
# brings along) and include "<name>.h". Editing the .model rebuilds only
# that model. A variant this machine cannot build (no CUDA toolkit, no ROCm
# device libraries, an unknown name) is a configure-time error.
#
# Variables: EASYML_CUDA_PATH, EASYML_ROCM_PATH (toolkit locations passed
# to easyml-compile as --cuda-path / --rocm-path).

function(easyml_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;NAME"
                        "VARIANTS;CUDA_ARCHS;ROCM_CHIPS;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "easyml_add_model(${target}): unknown arguments "
                        "'${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT ARG_SOURCE)
    message(FATAL_ERROR "easyml_add_model(${target}): SOURCE <file.model> "
                        "is required")
  endif()
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "easyml_add_model(${target}): no model file "
                        "'${source}'")
  endif()
  if(NOT ARG_NAME)
    get_filename_component(ARG_NAME "${source}" NAME_WE)
  endif()
  if(NOT ARG_VARIANTS)
    set(ARG_VARIANTS baseline cpu-simd)
  endif()

  set(options ${ARG_OPTIONS})
  string(REPLACE ";" "," variants "${ARG_VARIANTS}")
  list(APPEND options "--variant=${variants}")
  if(ARG_CUDA_ARCHS)
    string(REPLACE ";" "," archs "${ARG_CUDA_ARCHS}")
    list(APPEND options "--cuda-chips=${archs}")
  endif()
  if(ARG_ROCM_CHIPS)
    string(REPLACE ";" "," chips "${ARG_ROCM_CHIPS}")
    list(APPEND options "--rocm-chips=${chips}")
  endif()
  if(EASYML_CUDA_PATH)
    list(APPEND options "--cuda-path=${EASYML_CUDA_PATH}")
  endif()
  if(EASYML_ROCM_PATH)
    list(APPEND options "--rocm-path=${EASYML_ROCM_PATH}")
  endif()

  # Ask the compiler now whether it can build these variants here.
  get_target_property(compiler EasyML::easyml-compile IMPORTED_LOCATION)
  if(NOT compiler)
    get_target_property(compiler EasyML::easyml-compile
                        IMPORTED_LOCATION_RELEASE)
  endif()
  execute_process(
    COMMAND "${compiler}" --check-variants ${options}
    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    string(STRIP "${err}" err)
    message(FATAL_ERROR "easyml_add_model(${target}): cannot build variants "
                        "'${variants}' of ${ARG_NAME} on this machine:\n"
                        "${err}")
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/easyml/${target}")
  set(object "${dir}/${ARG_NAME}${CMAKE_C_OUTPUT_EXTENSION}")
  set(header "${dir}/${ARG_NAME}.h")
  add_custom_command(
    OUTPUT "${object}"
    COMMAND "${compiler}" "${source}" --model-name=${ARG_NAME} ${options}
            --emit=obj -o "${object}"
    DEPENDS "${source}" "${compiler}"
    COMMENT "Compiling EasyML model ${ARG_NAME} (${variants})"
    VERBATIM)
  add_custom_command(
    OUTPUT "${header}"
    COMMAND "${compiler}" "${source}" --model-name=${ARG_NAME} ${options}
            --emit=header -o "${header}"
    DEPENDS "${source}" "${compiler}"
    COMMENT "Generating EasyML header ${ARG_NAME}.h"
    VERBATIM)
  set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE
                                                     GENERATED TRUE)
  add_library(${target} STATIC "${object}" "${header}")
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C)
  target_include_directories(${target} INTERFACE "${dir}")
  target_link_libraries(${target} INTERFACE EasyML::runtime)
  if("cpu-simd" IN_LIST ARG_VARIANTS)
    # glibc's vector math library, which cpu-simd calls on x86-64.
    find_library(EASYML_LIBMVEC NAMES mvec libmvec.so.1)
    if(EASYML_LIBMVEC)
      target_link_libraries(${target} INTERFACE "${EASYML_LIBMVEC}")
    endif()
  endif()
  target_link_libraries(${target} INTERFACE m)
endfunction()
