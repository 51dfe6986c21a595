# Usage requirements of algo::algo, shared by the build tree and the installed package.
# - OpenMP for algo::par (C++ and, through -Xcompiler, CUDA translation units);
# - cuBLAS for algo::cub's transpose, linked only into programs whose link language is CUDA, so a
#   plain C++ consumer gets no CUDA include path and no CUDA library. A device program that CMake
#   links as C++ (e.g. because it links a C++ library) adds CUDA::cublas itself.
function(algo_add_usage_requirements tgt)
  if(NOT TARGET OpenMP::OpenMP_CXX)
    find_package(OpenMP QUIET)
  endif()
  if(OpenMP_CXX_FOUND)
    target_link_libraries(${tgt} INTERFACE OpenMP::OpenMP_CXX)
    target_compile_options(${tgt} INTERFACE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${OpenMP_CXX_FLAGS}>)
  endif()
  if(NOT DEFINED CUDAToolkit_FOUND)
    find_package(CUDAToolkit QUIET)
  endif()
  if(CUDAToolkit_FOUND AND CUDA_cublas_LIBRARY)
    target_link_libraries(${tgt} INTERFACE $<$<LINK_LANGUAGE:CUDA>:${CUDA_cublas_LIBRARY}>)
  endif()
endfunction()
