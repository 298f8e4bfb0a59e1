# Does the package's version file (cmake/EosimPackage.cmake: write_basic_package_version_file with
# SameMinorVersion) accept or refuse a request? Run by ctest (tests/CMakeLists.txt) as
#   cmake -DVERSION_FILE=<build>/eosimConfigVersion.cmake -DREQUESTED=0.3 -DEXPECT=refused
#         -DWORK=<dir> -P check_package_version.cmake
# It configures the tiny project find_eosim/ (find_package(eosim ${REQUESTED} CONFIG REQUIRED))
# against a directory holding the build's real version file and a config file that defines nothing
# else: the version file alone decides, as it does for the installed package (where find_package
# reads it before the config). Two configures of a project without languages: well under a second.
foreach(variable VERSION_FILE REQUESTED EXPECT WORK)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "check_package_version.cmake: -D${variable}=... is required")
  endif()
endforeach()
set(package_dir "${WORK}/package")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${package_dir}")
file(COPY "${VERSION_FILE}" DESTINATION "${package_dir}")
file(WRITE "${package_dir}/eosimConfig.cmake" "# only the version file is under test\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/find_eosim" -B "${WORK}/build"
                        "-DEOSIM_REQUESTED=${REQUESTED}" "-Deosim_DIR=${package_dir}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(EXPECT STREQUAL "accepted" AND NOT result EQUAL 0)
  message(FATAL_ERROR "find_package(eosim ${REQUESTED}) was refused; expected it accepted:\n${output}")
elseif(EXPECT STREQUAL "refused" AND result EQUAL 0)
  message(FATAL_ERROR "find_package(eosim ${REQUESTED}) was accepted; expected it refused:\n${output}")
elseif(EXPECT STREQUAL "refused" AND NOT output MATCHES "not compatible|version")
  message(FATAL_ERROR "find_package(eosim ${REQUESTED}) failed, but not for the version:\n${output}")
elseif(NOT EXPECT MATCHES "^(accepted|refused)$")
  message(FATAL_ERROR "check_package_version.cmake: EXPECT is accepted or refused, not ${EXPECT}")
endif()
message(STATUS "find_package(eosim ${REQUESTED}): ${EXPECT}, as expected")
