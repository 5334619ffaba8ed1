# gpu/batch: batches (one upload, a kernel array per launch), pipelines with
# intermediates on the device, and union-find labelling. Included from
# gpu/CMakeLists.txt after fs_cuda is defined.
target_sources(fs_cuda PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/batch_kernel.cu
  ${CMAKE_CURRENT_LIST_DIR}/point_ops.cu
  ${CMAKE_CURRENT_LIST_DIR}/ccl.cu
  ${CMAKE_CURRENT_LIST_DIR}/device_convolve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_runner.cpp)
target_include_directories(fs_cuda PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
target_compile_definitions(fs_cuda PUBLIC FS_HAVE_CUDA_BATCH=1)
