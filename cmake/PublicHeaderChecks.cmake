# Checks of the public header set (EOSIM_PUBLIC_HEADERS, cmake/EosimPackage.cmake):
# - eosim_public_headers (built with everything unless EOSIM_PUBLIC_HEADER_UNITS is OFF): one generated translation unit per public header
#   that includes only that header, twice, as a user would (#include <eosim/...>), compiled against a
#   copy of the public headers alone: a header that misses an include, or names a private header,
#   does not compile.
# - CTest public_headers.no_private_includes: walks the quoted includes of every public header and
#   names any that is not public; public_headers.walker_fires is its negative control (a public set
#   without sink.h, which sink_registry.h includes, must be refused).
set(EOSIM_STAGED_INCLUDE "${PROJECT_BINARY_DIR}/public-headers")
set(EOSIM_HEADER_UNITS)
foreach(header IN LISTS EOSIM_PUBLIC_HEADERS)
  configure_file("${PROJECT_SOURCE_DIR}/${header}" "${EOSIM_STAGED_INCLUDE}/eosim/${header}" COPYONLY)
  string(MAKE_C_IDENTIFIER "${header}" unit)
  set(unit_file "${PROJECT_BINARY_DIR}/public-header-units/${unit}.cpp")
  file(CONFIGURE OUTPUT "${unit_file}"
       CONTENT "// Generated: ${header} on its own (twice: include guards).\n#include <eosim/${header}>\n#include <eosim/${header}>\n")
  list(APPEND EOSIM_HEADER_UNITS "${unit_file}")
endforeach()
add_library(eosim_public_headers OBJECT ${EOSIM_HEADER_UNITS})
# Each header in its own translation unit, never batched (cmake/EosimUnityBuild.cmake): a header
# that misses an include would compile after another that has it.
set_target_properties(eosim_public_headers PROPERTIES UNITY_BUILD OFF)
# Only the staged public headers, not the source tree (the directory's include_directories).
set_property(TARGET eosim_public_headers PROPERTY INCLUDE_DIRECTORIES
             "${EOSIM_STAGED_INCLUDE}" "${EOSIM_STAGED_INCLUDE}/eosim")
target_link_libraries(eosim_public_headers PRIVATE nlohmann_json::nlohmann_json Catch2::Catch2 rapidcheck)
target_compile_options(eosim_public_headers PRIVATE -O0)
# The sanitizer build leaves it out of its default build (build.sh: EOSIM_PUBLIC_HEADER_UNITS=OFF):
# the Release build compiles the same headers with the same compiler; the target is still there
# (`--target eosim_public_headers`).
if(NOT EOSIM_PUBLIC_HEADER_UNITS)
  set_target_properties(eosim_public_headers PROPERTIES EXCLUDE_FROM_ALL ON)
endif()

add_test(NAME public_headers.no_private_includes
         COMMAND ${CMAKE_COMMAND} "-DROOT=${PROJECT_SOURCE_DIR}" "-DHEADERS=${EOSIM_PUBLIC_HEADERS}"
                 -P "${PROJECT_SOURCE_DIR}/cmake/CheckPublicHeaders.cmake")
set(EOSIM_HEADERS_WITHOUT_SINK ${EOSIM_PUBLIC_HEADERS})
list(REMOVE_ITEM EOSIM_HEADERS_WITHOUT_SINK engine/connectors/sink.h)
add_test(NAME public_headers.walker_fires
         COMMAND ${CMAKE_COMMAND} "-DROOT=${PROJECT_SOURCE_DIR}" "-DHEADERS=${EOSIM_HEADERS_WITHOUT_SINK}"
                 -P "${PROJECT_SOURCE_DIR}/cmake/CheckPublicHeaders.cmake")
set_tests_properties(public_headers.walker_fires PROPERTIES
  PASS_REGULAR_EXPRESSION "engine/connectors/sink_registry.h includes \"engine/connectors/sink.h\", which is not a public header")
