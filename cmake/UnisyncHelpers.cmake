# Build helpers shared by lib/, test/ and benchmark/.

# Every executable lands in one folder, next to copies of the shared libraries that a
# GPU machine may lack (Debian's Google Benchmark is shared-only, hwloc and its libudev),
# so a copied build folder runs there. DT_RPATH (not RUNPATH) because it also applies to
# the dependencies of those libraries.
set(UNISYNC_RUNTIME_DIR "${PROJECT_BINARY_DIR}/bin")
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY "${UNISYNC_RUNTIME_DIR}")

set(UNISYNC_CXX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
set(UNISYNC_CUDA_WARNINGS -Xcompiler=-Wall,-Wextra --Werror=all-warnings)

# Copies a shared library into the runtime folder under its SONAME (the name binaries ask
# the loader for).
function(unisync_bundle_shared_library library_path)
  if(NOT EXISTS "${library_path}")
    return()
  endif()
  file(REAL_PATH "${library_path}" real_path)
  execute_process(COMMAND objdump -p "${real_path}" OUTPUT_VARIABLE dynamic_section
    ERROR_QUIET RESULT_VARIABLE objdump_failed)
  if(objdump_failed OR NOT dynamic_section MATCHES "SONAME +([^\n ]+)")
    return()
  endif()
  configure_file("${real_path}" "${UNISYNC_RUNTIME_DIR}/${CMAKE_MATCH_1}" COPYONLY)
endfunction()

function(unisync_configure_executable target)
  set_target_properties(${target} PROPERTIES
    BUILD_RPATH "$ORIGIN"
    CUDA_RUNTIME_LIBRARY Static)
  target_link_options(${target} PRIVATE "LINKER:--disable-new-dtags")
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${UNISYNC_CXX_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CUDA>:${UNISYNC_CUDA_WARNINGS}>)
endfunction()

foreach(library IN LISTS hwloc_LINK_LIBRARIES)
  unisync_bundle_shared_library("${library}")
endforeach()
find_file(UNISYNC_UDEV_LIBRARY libudev.so.1
  PATHS /lib/${CMAKE_LIBRARY_ARCHITECTURE} /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}
  NO_DEFAULT_PATH)
if(UNISYNC_UDEV_LIBRARY)
  unisync_bundle_shared_library("${UNISYNC_UDEV_LIBRARY}")
endif()
