# cmake -DROOT=<source dir> -DHEADERS=<a;b;c> -P CheckPublicHeaders.cmake
# Fails (naming the header and what it includes) when a public header includes a project header that is not
# public. Project headers are the quoted includes ("engine/..."); <...> includes are the standard
# library and Debian packages.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT OR NOT HEADERS)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -DHEADERS=<list> -P CheckPublicHeaders.cmake")
endif()
set(problems "")
foreach(header IN LISTS HEADERS)
  if(NOT EXISTS "${ROOT}/${header}")
    string(APPEND problems "\n  ${header}: listed as public but does not exist")
    continue()
  endif()
  file(STRINGS "${ROOT}/${header}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" included "${line}")
    if(NOT included IN_LIST HEADERS)
      string(APPEND problems "\n  ${header} includes \"${included}\", which is not a public header")
    endif()
  endforeach()
endforeach()
if(problems)
  message(FATAL_ERROR "public headers name private ones (add the header to EOSIM_PUBLIC_HEADERS in "
                      "cmake/EosimPackage.cmake, or drop the include):${problems}")
endif()
list(LENGTH HEADERS count)
message(STATUS "${count} public headers include only public headers")
