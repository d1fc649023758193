# ketch_module(name): a static library made of every src/<name>/**/*.cc.
# New files are picked up without editing any CMakeLists (CONFIGURE_DEPENDS).
# A module with no sources yet gets an empty translation unit.
#
# Each module has an include root of its own, <build>/include_roots/<name>,
# holding one entry, <name> -> src/<name>: `#include "log/segment.h"` resolves
# only in a module that is log or links ketch_log. So a module sees the
# headers of itself and of what it links (PUBLIC links pass theirs on), and an
# include of a layer it may not use does not compile (ARCHITECTURE.md; the
# layer table itself is checked by scripts/check-layers.py, test `layers`).
function(ketch_module name)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  if(NOT srcs)
    set(empty ${CMAKE_BINARY_DIR}/empty/${name}.cc)
    file(WRITE ${empty} "// module ${name} has no sources yet\n")
    set(srcs ${empty})
  endif()
  add_library(ketch_${name} STATIC ${srcs})
  set(root ${CMAKE_BINARY_DIR}/include_roots/${name})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${name} ${root}/${name} SYMBOLIC)
  target_include_directories(ketch_${name} PUBLIC ${root})
  target_compile_options(ketch_${name} PRIVATE ${KETCH_WARNINGS})
  # Unity (KETCH_UNITY): the module's files are #included into batch files, so
  # GCC takes each for a header and warns (-Wsubobject-linkage) when a type of
  # its anonymous namespace, a coroutine frame's lambda say, is a member of a
  # template instantiated there. Within one .cc that is no ODR hazard; the
  # KETCH_UNITY=OFF build still checks the headers themselves.
  if(KETCH_UNITY AND NOT name IN_LIST KETCH_UNITY_DATA_PATH)
    set_target_properties(ketch_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KETCH_UNITY_BATCH_SIZE})
    target_compile_options(ketch_${name} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
  endif()
endfunction()

# ketch_unity_alone(name files...): files of a batched module that stay out of
# its batches (the data path's hot files: compiled alone, as with KETCH_UNITY=OFF).
function(ketch_unity_alone name)
  list(TRANSFORM ARGN PREPEND ${PROJECT_SOURCE_DIR}/src/${name}/)
  foreach(file IN LISTS ARGN)
    if(NOT EXISTS ${file})
      message(FATAL_ERROR "ketch_unity_alone: no ${file}")
    endif()
  endforeach()
  set_source_files_properties(${ARGN} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# ketch_unity_cold(name files...): files of a data-path module (KETCH_UNITY_DATA_PATH)
# that are off the request path (compaction, retention, recovery at start-up) share
# one batch; the module's other files still compile alone, to the same code as with
# KETCH_UNITY=OFF.
function(ketch_unity_cold name)
  if(NOT KETCH_UNITY)
    return()
  endif()
  list(TRANSFORM ARGN PREPEND ${PROJECT_SOURCE_DIR}/src/${name}/)
  get_target_property(srcs ketch_${name} SOURCES)
  foreach(file IN LISTS ARGN)
    if(NOT file IN_LIST srcs)
      message(FATAL_ERROR "ketch_unity_cold: ${file} is not a source of ketch_${name}")
    endif()
  endforeach()
  set(alone ${srcs})
  list(REMOVE_ITEM alone ${ARGN})
  set_source_files_properties(${alone} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  set_target_properties(ketch_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${KETCH_UNITY_BATCH_SIZE})
  target_compile_options(ketch_${name} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
endfunction()

# ketch_optimise(name level): the module's own files built at `level` instead of
# the build type's -O2 (optimised builds only; a Debug build stays at -O0). Only
# where no bench feels it: -Os on the HTTP server, the console and the CLI
# cost their benches 4-15% of CPU (docs/performance.md "Build time").
function(ketch_optimise name level)
  target_compile_options(ketch_${name} PRIVATE $<$<CONFIG:RelWithDebInfo,Release>:${level}>)
endfunction()
