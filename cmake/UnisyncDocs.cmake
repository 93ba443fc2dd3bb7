# The API reference: Doxygen renders include/unisync into ${PROJECT_BINARY_DIR}/docs/html
# (`cmake --build --preset release --target docs`). A public member without a doc comment
# fails the build; detail/ and namespace unisync::detail are internals and are left out.
# Without doxygen (Debian package `doxygen`) there is no docs target and no docs test.

find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "unisync: doxygen not found; no docs target (install the Debian package doxygen)")
  return()
endif()

set(DOXYGEN_PROJECT_NAME unisync)
set(DOXYGEN_PROJECT_BRIEF "${PROJECT_DESCRIPTION}")
set(DOXYGEN_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/docs")
set(DOXYGEN_STRIP_FROM_PATH "${PROJECT_SOURCE_DIR}/include")
set(DOXYGEN_STRIP_FROM_INC_PATH "${PROJECT_SOURCE_DIR}/include")
set(DOXYGEN_FILE_PATTERNS *.hpp)
set(DOXYGEN_EXTENSION_MAPPING hpp=C++)
set(DOXYGEN_EXCLUDE "${PROJECT_SOURCE_DIR}/include/unisync/detail")
set(DOXYGEN_EXCLUDE_SYMBOLS detail "unisync::detail")
set(DOXYGEN_GENERATE_LATEX NO)
set(DOXYGEN_QUIET YES)
set(DOXYGEN_DISTRIBUTE_GROUP_DOC YES)
set(DOXYGEN_WARN_IF_UNDOCUMENTED YES)
set(DOXYGEN_WARN_AS_ERROR FAIL_ON_WARNINGS)
# Render the declarations as nvcc sees them: the attribute macros vanish, and the
# cooperative-groups overloads (declared under __CUDACC__) are part of the API.
set(DOXYGEN_MACRO_EXPANSION YES)
set(DOXYGEN_EXPAND_ONLY_PREDEF YES)
set(DOXYGEN_PREDEFINED __CUDACC__ UNISYNC_HOST_DEVICE= UNISYNC_DEVICE= UNISYNC_FORCE_INLINE=inline)

doxygen_add_docs(docs "${PROJECT_SOURCE_DIR}/include/unisync"
  COMMENT "Rendering the API reference into ${DOXYGEN_OUTPUT_DIRECTORY}/html")

if(UNISYNC_BUILD_TESTS)
  add_test(NAME docs.reference
    COMMAND "${CMAKE_COMMAND}" --build "${PROJECT_BINARY_DIR}" --target docs)
  set_tests_properties(docs.reference PROPERTIES LABELS docs TIMEOUT 300)
endif()
