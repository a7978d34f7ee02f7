#===- GenVersion.cmake - project version and git hash --------------------===#
#
# Writes include/easyml/Support/VersionInfo.h in the build tree at build time,
# touching it only when the version string changes, so --version always names
# the commit a tool was built from without forcing needless rebuilds.
#
#===----------------------------------------------------------------------===#
set(EASYML_VERSION_HEADER
    ${PROJECT_BINARY_DIR}/include/easyml/Support/VersionInfo.h)
add_custom_target(easyml-version-header
  COMMAND ${CMAKE_COMMAND}
          -DSRC=${PROJECT_SOURCE_DIR}
          -DOUT=${EASYML_VERSION_HEADER}
          -DVERSION=${PROJECT_VERSION}
          -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${EASYML_VERSION_HEADER}
  COMMENT "Checking EasyML version string")
