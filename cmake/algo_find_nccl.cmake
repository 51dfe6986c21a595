# Finds NCCL for <algo/nccl.hpp> (algo::nccl), with no help needed on either machine kind:
#   1. NCCL_ROOT (CMake variable or environment): <root>/include/nccl.h and <root>/lib{,64}/libnccl.so*;
#   2. the CUDA toolkit (/usr/local/cuda, CUDAToolkit's directories): developer and CI machines;
#   3. the Python wheel nvidia-nccl-cu13 (or -cu12) of `python3`: the GPU machines, where the wheel's
#      directory holds include/nccl.h and lib/libnccl.so.2 only (no libnccl.so link: the library is
#      named by its full path).
# NCCL_ROOT, when given, is the only place looked at. ALGO_NCCL=OFF turns the search off.
#
# algo_find_nccl(<prefix>) sets, in the caller's scope:
#   <prefix>_FOUND         TRUE / FALSE
#   <prefix>_INCLUDE_DIR   the directory of nccl.h
#   <prefix>_LIBRARY       the library file (full path)
#   <prefix>_VERSION       major.minor.patch from nccl.h
#   <prefix>_REASON        why not found (for the SKIP messages)
# algo_add_nccl_target(<target> <include_dir> <library>) makes the INTERFACE target.
# Used by the build tree (CMakeLists.txt) and by the installed package (algoConfig.cmake).

function(algo_find_nccl prefix)
  set(found FALSE)
  set(inc "")
  set(lib "")
  set(reason "")
  set(root "")
  if(DEFINED NCCL_ROOT AND NOT "${NCCL_ROOT}" STREQUAL "")
    set(root "${NCCL_ROOT}")
  elseif(DEFINED ENV{NCCL_ROOT} AND NOT "$ENV{NCCL_ROOT}" STREQUAL "")
    set(root "$ENV{NCCL_ROOT}")
  endif()

  set(candidates "")
  if(root)
    list(APPEND candidates "${root}")
  else()
    if(DEFINED CUDAToolkit_LIBRARY_ROOT AND CUDAToolkit_LIBRARY_ROOT)
      list(APPEND candidates "${CUDAToolkit_LIBRARY_ROOT}")
    endif()
    if(DEFINED CUDAToolkit_INCLUDE_DIRS)
      foreach(d ${CUDAToolkit_INCLUDE_DIRS})
        get_filename_component(up "${d}" DIRECTORY)
        list(APPEND candidates "${up}")
      endforeach()
    endif()
    list(APPEND candidates /usr/local/cuda /usr)
    # the Python wheel (GPU machines)
    find_program(_algo_python3 NAMES python3 python)
    if(_algo_python3)
      execute_process(COMMAND ${_algo_python3} -c "import os, nvidia.nccl as m; f = getattr(m, '__file__', None); print(os.path.dirname(f) if f else list(m.__path__)[0])"
                      OUTPUT_VARIABLE wheel ERROR_QUIET RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(rc EQUAL 0 AND wheel)
        list(APPEND candidates "${wheel}")
      endif()
    endif()
    unset(_algo_python3 CACHE)
  endif()

  foreach(c ${candidates})
    if(EXISTS "${c}/include/nccl.h")
      foreach(name libnccl.so libnccl.so.2)
        foreach(sub lib64 lib lib/x86_64-linux-gnu lib/aarch64-linux-gnu targets/x86_64-linux/lib)
          if(NOT lib AND EXISTS "${c}/${sub}/${name}")
            set(lib "${c}/${sub}/${name}")
          endif()
        endforeach()
      endforeach()
      if(lib)
        set(inc "${c}/include")
        break()
      endif()
    endif()
  endforeach()
  # Debian's libnccl-dev: header in /usr/include, library in the multiarch directory.
  if(NOT lib AND NOT root)
    find_path(_algo_nccl_inc nccl.h NO_CACHE)
    find_library(_algo_nccl_lib NAMES nccl libnccl.so.2 NO_CACHE)
    if(_algo_nccl_inc AND _algo_nccl_lib)
      set(inc "${_algo_nccl_inc}")
      set(lib "${_algo_nccl_lib}")
    endif()
  endif()

  set(version "")
  if(lib)
    file(STRINGS "${inc}/nccl.h" defs REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
    foreach(part MAJOR MINOR PATCH)
      string(REGEX MATCH "NCCL_${part} +([0-9]+)" m "${defs}")
      set(v_${part} "${CMAKE_MATCH_1}")
    endforeach()
    set(version "${v_MAJOR}.${v_MINOR}.${v_PATCH}")
    set(found TRUE)
  elseif(root)
    set(reason "no nccl.h and libnccl.so* under NCCL_ROOT=${root}")
  else()
    set(reason "NCCL not found (looked in the CUDA toolkit, /usr and the Python wheel nvidia-nccl-cu13; set NCCL_ROOT)")
  endif()

  set(${prefix}_FOUND ${found} PARENT_SCOPE)
  set(${prefix}_INCLUDE_DIR "${inc}" PARENT_SCOPE)
  set(${prefix}_LIBRARY "${lib}" PARENT_SCOPE)
  set(${prefix}_VERSION "${version}" PARENT_SCOPE)
  set(${prefix}_REASON "${reason}" PARENT_SCOPE)
endfunction()

# INTERFACE target: NCCL's header and library (+ the CUDA runtime and algo::algo when given).
function(algo_add_nccl_target tgt inc lib)
  target_include_directories(${tgt} SYSTEM INTERFACE "${inc}")
  target_link_libraries(${tgt} INTERFACE "${lib}")
  # the wheel's libnccl.so.2 is not on the loader's path: record its directory in the program
  get_filename_component(libdir "${lib}" DIRECTORY)
  target_link_options(${tgt} INTERFACE "LINKER:-rpath,${libdir}")
endfunction()
