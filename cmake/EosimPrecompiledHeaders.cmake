# Precompiled headers for the test executable: the standard library, nlohmann/json, Catch2 and
# rapidcheck are parsed once instead of once per test file. The test files are compiled at -O0
# (tests/CMakeLists.txt), so parsing is much of their compile time (-30% measured). The libraries
# get one only with clang (CI's clang build, -O1: -25% on a sample of 7 files); with gcc at -O3
# their time goes into optimisation, and loading the header cost more than it saved (engine/ and
# sim/ together 5% slower with it).
#
# EOSIM_PRECOMPILE_HEADERS (default ON) turns it off; it defaults to OFF when a compiler launcher
# (ccache) is set, since ccache does not cache compilations that use a precompiled header unless its
# sloppiness allows it, and a warm ccache beats a precompiled header. The headers only speed up the
# build: every source file still includes what it uses (a build with the option OFF must compile).
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(eosim_pch_default OFF)
else()
  set(eosim_pch_default ON)
endif()
option(EOSIM_PRECOMPILE_HEADERS "Precompile the heavy external headers (tests; libraries with clang)" ${eosim_pch_default})

set(EOSIM_PCH_STANDARD_HEADERS
  <algorithm> <cstddef> <cstdint> <cstdio> <filesystem> <fstream> <functional> <map> <memory>
  <optional> <ostream> <set> <sstream> <stdexcept> <string> <string_view> <utility> <vector>)

# eosim_precompile_headers(TARGET [HEADERS...]): the standard headers above, nlohmann/json, and the
# extra HEADERS given, precompiled for TARGET.
function(eosim_precompile_headers target)
  if(NOT EOSIM_PRECOMPILE_HEADERS)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${EOSIM_PCH_STANDARD_HEADERS} <nlohmann/json.hpp> ${ARGN})
endfunction()
