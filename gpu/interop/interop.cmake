# CUDA-GL interop (the studio's live preview): compiled into fs_cuda, so the
# studio reaches it through the library it opens on first use (fs/gpu/module.hpp).
# fs_cuda_interop names it for the tests and the frame benchmark, which link
# fs_cuda directly. Included from gpu/CMakeLists.txt.
# cuda_gl_interop.h includes <GL/gl.h>, so the GL headers must exist (libgl-dev);
# no GL library is linked: the CUDA runtime reaches the driver's GL itself.
include(CheckIncludeFileCXX)
check_include_file_cxx(GL/gl.h FS_HAVE_GL_HEADERS)
if(FS_HAVE_GL_HEADERS)
  target_sources(fs_cuda PRIVATE ${CMAKE_CURRENT_LIST_DIR}/src/gl_interop.cu)
  target_include_directories(fs_cuda PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
  target_compile_definitions(fs_cuda PRIVATE FS_CUDA_HAS_GL_INTEROP=1)
  add_library(fs_cuda_interop INTERFACE)
  target_link_libraries(fs_cuda_interop INTERFACE fs_cuda)
else()
  message(STATUS "FilterStudio: GL/gl.h not found (install libgl-dev), building without CUDA-GL interop")
endif()

# A windowless OpenGL context through an EGL device, for the interop tests and
# the frame benchmark (libegl-dev, libopengl-dev).
if(TARGET fs_cuda_interop)
  # GLOBAL: the interop tests (tests/gpu) link these targets too.
  find_package(OpenGL COMPONENTS OpenGL EGL GLOBAL)
  if(OpenGL_OpenGL_FOUND AND OpenGL_EGL_FOUND)
    add_library(fs_headless_gl STATIC ${CMAKE_CURRENT_LIST_DIR}/src/headless_gl.cpp)
    target_include_directories(fs_headless_gl PUBLIC ${CMAKE_CURRENT_LIST_DIR}/include)
    target_link_libraries(fs_headless_gl PUBLIC OpenGL::OpenGL OpenGL::EGL PRIVATE fs_warnings)
  else()
    message(STATUS "FilterStudio: no OpenGL/EGL development files (libegl-dev, libopengl-dev): no headless GL")
  endif()
endif()
