# gpu/batch against the CPU: batches, device pipelines and labelling. Included
# from tests/gpu/CMakeLists.txt; every test but the host-copy one skips without a device.
add_executable(fs_gpu_batch_tests ${CMAKE_CURRENT_LIST_DIR}/batch_test.cpp)
target_include_directories(fs_gpu_batch_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}
                                                     ${CMAKE_SOURCE_DIR}/gpu/batch)
target_link_libraries(fs_gpu_batch_tests PRIVATE fs_gpu_test_support fs_warnings)
target_compile_definitions(fs_gpu_batch_tests PRIVATE FS_GPU_TEST_DATA_DIR="${CMAKE_CURRENT_LIST_DIR}/data")
gtest_discover_tests(fs_gpu_batch_tests DISCOVERY_TIMEOUT 120 PROPERTIES TIMEOUT 300 LABELS gpu)

# The engine under three concurrent clients (batch, device pipeline, resident
# live-preview runs), 500 runs each, against the CPU reference.
add_executable(fs_gpu_concurrency_tests ${CMAKE_CURRENT_LIST_DIR}/engine_concurrency_test.cpp)
target_include_directories(fs_gpu_concurrency_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(fs_gpu_concurrency_tests PRIVATE fs_gpu_test_support Threads::Threads fs_warnings)
gtest_discover_tests(fs_gpu_concurrency_tests DISCOVERY_TIMEOUT 120 PROPERTIES TIMEOUT 600 LABELS gpu)
