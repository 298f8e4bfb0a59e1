# Unity builds: CMake compiles the sources of each target in batches of EOSIM_UNITY_BATCH_SIZE files,
# each batch one translation unit that includes them. The headers (nlohmann/json, the standard
# library, our own) are parsed once a batch instead of once a file, and, what costs most, every
# inline and template function a batch uses (json's parser and serializer, std::map of our types,
# Catch2's matchers) is instantiated and compiled once a batch instead of once a file. Measured
# (CPU seconds, g++ 12, no ccache): the Release build's libraries 615 -> 281 s, its test files
# 365 -> 192 s; with the sanitizers a batch of 8 engine files 44 -> 30 s and of 5 test files 33 -> 15 s.
#
# For whole builds (CI, a fresh clone): an edit recompiles its whole batch, so EOSIM_UNITY_BUILD
# defaults to OFF when a compiler launcher (ccache) is set, as developers' builds have it, and can
# be set either way. Both ways must compile: a file still includes what it uses, and a name at file
# scope (an anonymous namespace's function, type or constant) must not clash with one of another
# file of the same target: the unity build, which CI runs, fails to compile if one does. The
# public-header units (one header alone each) are never batched.
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(eosim_unity_default OFF)
else()
  set(eosim_unity_default ON)
endif()
option(EOSIM_UNITY_BUILD "Compile each target's sources in batches (unity build)" ${eosim_unity_default})
set(EOSIM_UNITY_BATCH_SIZE 8 CACHE STRING "Source files per unity batch")
set(CMAKE_UNITY_BUILD ${EOSIM_UNITY_BUILD})
set(CMAKE_UNITY_BUILD_BATCH_SIZE ${EOSIM_UNITY_BATCH_SIZE})
