# The installed package works from another project: configure algo alone (no tests, examples,
# bench or CUDA), install it into WORK_DIR/prefix, then configure, build and run a consumer that
# only knows `find_package(algo CONFIG REQUIRED)`. Any failing step stops with its output.
#
#   cmake -DSOURCE_DIR=<algo> -DWORK_DIR=<scratch> -DGENERATOR=<generator> -P run.cmake
cmake_minimum_required(VERSION 3.24)

foreach(var SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake: pass -D${var}=...")
  endif()
endforeach()

set(build ${WORK_DIR}/algo-build)
set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(step name)
  message(STATUS "package test: ${name}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: ${name} FAILED (${rc})\n  command: ${ARGN}\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# ---- 1. algo alone, installed -------------------------------------------------------------------
step("configure algo" ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_INSTALL_PREFIX=${prefix} -DALGO_BUILD_TESTS=OFF -DALGO_BUILD_EXAMPLES=OFF -DALGO_BUILD_BENCH=OFF
     -DALGO_ENABLE_CUDA=OFF)
step("build algo" ${CMAKE_COMMAND} --build ${build})
step("install algo" ${CMAKE_COMMAND} --install ${build})
foreach(f include/algo/algo.hpp include/algo/detail/config.hpp include/algo/nccl.hpp)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "package test: ${f} was not installed into ${prefix}")
  endif()
endforeach()

file(GLOB_RECURSE nccl_finder ${prefix}/*/algo_find_nccl.cmake)
if(NOT nccl_finder)
  message(FATAL_ERROR "package test: cmake/algo_find_nccl.cmake (algo::nccl's search) was not installed into ${prefix}")
endif()

# ---- 2. a consumer that finds it (and nothing else: no package registry, no source tree) --------
step("configure consumer" ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/consumer -B ${consumer_build}
     -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
     -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DALGO_EXPECTED_PREFIX=${prefix})
step("build consumer" ${CMAKE_COMMAND} --build ${consumer_build})
step("run consumer" ${consumer_build}/algo_consumer)
message(STATUS "package test: consumer says:\n${step_output}")
if(NOT step_output MATCHES "consumer: ok")
  message(FATAL_ERROR "package test: the consumer did not report success")
endif()
message(STATUS "package test: passed")
