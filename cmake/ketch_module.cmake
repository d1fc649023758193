# ketch_module(name): a static library made of every src/<name>/**/*.cc.
# New files are picked up without editing any CMakeLists (CONFIGURE_DEPENDS).
# A module with no sources yet gets an empty translation unit.
function(ketch_module name)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  if(NOT srcs)
    set(empty ${CMAKE_BINARY_DIR}/empty/${name}.cc)
    file(WRITE ${empty} "// module ${name} has no sources yet\n")
    set(srcs ${empty})
  endif()
  add_library(ketch_${name} STATIC ${srcs})
  target_include_directories(ketch_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(ketch_${name} PRIVATE ${KETCH_WARNINGS})
endfunction()
