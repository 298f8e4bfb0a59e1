# The installed package: public headers, static libraries, CMake package config and pkg-config file.
# Included at the end of the top-level CMakeLists.txt, once every library target exists.
#
#   cmake --install build --prefix P
#     P/include/eosim/<project path of each public header>     e.g. P/include/eosim/engine/connectors/sink.h
#     P/lib/libeosim_*.a
#     P/lib/cmake/eosim/eosimConfig.cmake (+ Version, Targets)  find_package(eosim 0.4 CONFIG REQUIRED)
#     P/lib/pkgconfig/eosim.pc                                  pkg-config --cflags --libs eosim
#
# Include directories of the installed targets: P/include (for #include <eosim/engine/...>) and
# P/include/eosim (for the headers' own includes of each other, "engine/...", "sim/...").
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The public API (docs/api.md): the sink contract and context, the registry and its options, the
# outside systems and their clients, eosim_main, the testkit -- and everything they include. No
# other header is installed; tests/public_headers checks that each compiles alone and that none
# includes a header outside this list.
set(EOSIM_PUBLIC_HEADERS
  cli/eosim_main.h
  cli/exit_codes.h
  engine/vocabulary/checkpoint_failure_reason.h
  engine/vocabulary/snapshot_type.h
  engine/connectors/outside_systems.h
  engine/connectors/sink.h
  engine/connectors/sink_options.h
  engine/connectors/sink_points.h
  engine/connectors/sink_registry.h
  engine/vocabulary/sink_point_names.h
  engine/vocabulary/job_spec.h
  engine/vocabulary/record.h
  engine/vocabulary/run_observer.h
  engine/vocabulary/state_backend_options.h
  sim/callback.h
  sim/invariant.h
  sim/external/append_store.h
  sim/external/input_producer.h
  sim/external/kafka.h
  sim/network.h
  sim/outside_fault_target.h
  sim/packed_ints.h
  sim/nodes.h
  sim/priority_delivery.h
  sim/prng.h
  sim/scheduler.h
  sim/storage.h
  sim/time.h
  sim/trace.h
  sim/world.h
)
# The testkit's headers, when the testkit exists (and every outside-system model in sim/external/).
file(GLOB EOSIM_TESTKIT_HEADERS RELATIVE "${PROJECT_SOURCE_DIR}" CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/testkit/*.h")
file(GLOB EOSIM_EXTERNAL_HEADERS RELATIVE "${PROJECT_SOURCE_DIR}" CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/sim/external/*.h")
list(APPEND EOSIM_PUBLIC_HEADERS ${EOSIM_TESTKIT_HEADERS} ${EOSIM_EXTERNAL_HEADERS})
list(REMOVE_DUPLICATES EOSIM_PUBLIC_HEADERS)
list(SORT EOSIM_PUBLIC_HEADERS)

foreach(header IN LISTS EOSIM_PUBLIC_HEADERS)
  get_filename_component(folder "${header}" DIRECTORY)
  install(FILES "${PROJECT_SOURCE_DIR}/${header}" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/eosim/${folder}")
endforeach()

# Library target -> name in the eosim:: namespace. eosim::main is the CLI library with eosim_main.
set(EOSIM_EXPORTED_LIBRARIES
  eosim_sim:sim
  eosim_engine:engine
  eosim_oracles:oracles
  eosim_scenarios:scenarios
  eosim_reports:reports
  eosim_testkit:testkit
  eosim_cli:main
)
set(EOSIM_INSTALLED_TARGETS)
set(EOSIM_PKGCONFIG_LIBS)
foreach(entry IN LISTS EOSIM_EXPORTED_LIBRARIES)
  string(REPLACE ":" ";" entry "${entry}")
  list(GET entry 0 target)
  list(GET entry 1 export_name)
  if(NOT TARGET ${target})
    continue()
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                                                 $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/eosim>)
  list(APPEND EOSIM_INSTALLED_TARGETS ${target})
  # pkg-config wants dependents first: eosim_cli before eosim_reports before ... before eosim_sim.
  list(PREPEND EOSIM_PKGCONFIG_LIBS "-l${target}")
endforeach()

install(TARGETS ${EOSIM_INSTALLED_TARGETS} EXPORT eosimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(EOSIM_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/eosim")
install(EXPORT eosimTargets NAMESPACE eosim:: DESTINATION "${EOSIM_CMAKE_DIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/eosimConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/eosimConfig.cmake" INSTALL_DESTINATION "${EOSIM_CMAKE_DIR}")
# 0.x: a minor version may change the API (docs/api.md), so 0.4 accepts 0.4.* only: find_package(eosim 0.3)
# refuses 0.4.0 (tests/package/check_package_version.cmake checks both).
write_basic_package_version_file("${PROJECT_BINARY_DIR}/eosimConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/eosimConfig.cmake" "${PROJECT_BINARY_DIR}/eosimConfigVersion.cmake"
        DESTINATION "${EOSIM_CMAKE_DIR}")

string(JOIN " " EOSIM_PKGCONFIG_LIBS ${EOSIM_PKGCONFIG_LIBS})
# The prefix relative to the .pc file, so `cmake --install --prefix P` gives a correct file for any P.
file(RELATIVE_PATH EOSIM_PKGCONFIG_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file("${PROJECT_SOURCE_DIR}/cmake/eosim.pc.in" "${PROJECT_BINARY_DIR}/eosim.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/eosim.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
