# `cmake --install` puts the headers, the host library and a package config in place, so
# that other projects can `find_package(unisync CONFIG REQUIRED)` and link
# `unisync::unisync`.

include(CMakePackageConfigHelpers)

set(UNISYNC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/unisync")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/unisync" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS unisync EXPORT unisyncTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(EXPORT unisyncTargets
  NAMESPACE unisync::
  DESTINATION "${UNISYNC_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/unisyncConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/unisyncConfig.cmake"
  INSTALL_DESTINATION "${UNISYNC_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/unisyncConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/unisyncConfig.cmake"
  "${PROJECT_BINARY_DIR}/unisyncConfigVersion.cmake"
  DESTINATION "${UNISYNC_INSTALL_CMAKEDIR}")
