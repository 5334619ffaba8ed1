# gpu/batch: batches (each input uploaded once, one fused launch over the
# kernel array, transfers overlapped across images), pipelines with
# intermediates on the device, and union-find labelling. Included from
# gpu/CMakeLists.txt after fs_cuda is defined.
find_package(Threads REQUIRED)
target_sources(fs_cuda PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/batch_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fused_kernel.cu
  ${CMAKE_CURRENT_LIST_DIR}/host_copies.cpp
  ${CMAKE_CURRENT_LIST_DIR}/point_ops.cu
  ${CMAKE_CURRENT_LIST_DIR}/layer.cu
  ${CMAKE_CURRENT_LIST_DIR}/pinned_host.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_runner.cpp)
target_sources(fs_cuda_per_family PRIVATE ${CMAKE_CURRENT_LIST_DIR}/ccl.cu)  # CUB's scans differ by target
target_include_directories(fs_cuda PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
target_link_libraries(fs_cuda PRIVATE Threads::Threads)
target_compile_definitions(fs_cuda PUBLIC FS_HAVE_CUDA_BATCH=1)
