# Installs the build tree into a scratch prefix, then configures, builds and runs the
# consumer project against it. Run by CTest: cmake -DBUILD_DIR=... -DSOURCE_DIR=...
# -DWORK_DIR=... -P check_install.cmake
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run_step description)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE failed OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(failed)
    message(FATAL_ERROR "${description} failed:\n${output}")
  endif()
endfunction()

run_step("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
run_step("configuring the consumer" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build"
         "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run_step("building the consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
run_step("running the consumer" "${WORK_DIR}/build/consumer")
message(STATUS "the consumer built against the installed unisync package and ran")
