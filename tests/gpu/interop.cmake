# CUDA-GL interop end to end through headless EGL (owned by the GUI side).
# Included from tests/gpu/CMakeLists.txt. Skips without a CUDA device or an
# EGL device (CI, this machine); runs on the GPU machine with the GL loaders.
if(TARGET fs_cuda_interop)
  if(TARGET fs_headless_gl)
    add_executable(fs_gl_interop_tests ${CMAKE_CURRENT_LIST_DIR}/interop_test.cpp)
    target_include_directories(fs_gl_interop_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    target_link_libraries(fs_gl_interop_tests PRIVATE fs_gpu_test_support fs_cuda_interop fs_headless_gl OpenGL::OpenGL fs_warnings)
    target_compile_definitions(fs_gl_interop_tests PRIVATE FS_GPU_TEST_DATA_DIR="${CMAKE_CURRENT_LIST_DIR}/data")
    gtest_discover_tests(fs_gl_interop_tests DISCOVERY_TIMEOUT 120 PROPERTIES TIMEOUT 600 LABELS gpu)
  else()
    message(STATUS "FilterStudio: no OpenGL/EGL development files (libegl-dev, libopengl-dev): no CUDA-GL interop test")
  endif()
endif()
