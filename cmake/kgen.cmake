# Runs tools/kgen over schemas/kafka at build time. The generated sources are
# libraries ketch_generated (codec, on top of the hand-written wire primitives
# in ketch_protocol) and ketch_generated_json (JSON + samples, for tests and
# tools). Nothing generated is committed.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(KGEN_DIR ${PROJECT_SOURCE_DIR}/tools/kgen)
set(KGEN_SCHEMAS ${PROJECT_SOURCE_DIR}/schemas/kafka)
set(KGEN_OUT ${CMAKE_BINARY_DIR}/gen/protocol/messages)

execute_process(
  COMMAND ${Python3_EXECUTABLE} ${KGEN_DIR}/kgen.py ${KGEN_SCHEMAS} --list-outputs
  OUTPUT_VARIABLE kgen_files OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE kgen_rc)
if(NOT kgen_rc EQUAL 0)
  message(FATAL_ERROR "kgen --list-outputs failed")
endif()

set(kgen_all)
set(kgen_codec_srcs)
set(kgen_json_srcs)
foreach(f ${kgen_files})
  list(APPEND kgen_all ${KGEN_OUT}/${f})
  if(f MATCHES "_json\\.cc$")
    list(APPEND kgen_json_srcs ${KGEN_OUT}/${f})
  elseif(f MATCHES "\\.cc$")
    list(APPEND kgen_codec_srcs ${KGEN_OUT}/${f})
  endif()
endforeach()

file(GLOB kgen_inputs CONFIGURE_DEPENDS ${KGEN_DIR}/*.py ${KGEN_SCHEMAS}/*.json)
add_custom_command(
  OUTPUT ${kgen_all}
  COMMAND ${Python3_EXECUTABLE} ${KGEN_DIR}/kgen.py ${KGEN_SCHEMAS} ${KGEN_OUT}
  DEPENDS ${kgen_inputs}
  COMMENT "kgen: generating the Kafka codec"
  VERBATIM)
add_custom_target(kgen DEPENDS ${kgen_all})

add_library(ketch_generated STATIC ${kgen_codec_srcs})
target_include_directories(ketch_generated PUBLIC ${CMAKE_BINARY_DIR}/gen)
target_link_libraries(ketch_generated PUBLIC ketch_protocol)
target_compile_options(ketch_generated PRIVATE -O2 -Wno-unused-variable)
add_dependencies(ketch_generated kgen)

add_library(ketch_generated_json STATIC ${kgen_json_srcs})
target_link_libraries(ketch_generated_json PUBLIC ketch_generated)
target_compile_options(ketch_generated_json PRIVATE -O0)
add_dependencies(ketch_generated_json kgen)
# ~100 small files each that parse the same headers: compiled in batches (unity
# build) the codec and its JSON form build several times faster.
set_target_properties(ketch_generated ketch_generated_json PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
