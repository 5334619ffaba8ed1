#pragma once
// Lets the border and index helpers be shared by the CPU loops and CUDA kernels
// without core/ ever including a CUDA header.
#if defined(__CUDACC__)
#define FS_HD __host__ __device__ __forceinline__
#else
#define FS_HD inline
#endif
