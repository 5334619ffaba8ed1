#pragma once
// Which compile-time kernel variants are built. Every variant is device code
// for each architecture built, so the default build keeps only the shapes
// dispatch.hpp picks; -DFS_CUDA_ALL_VARIANTS=ON builds the others too, so
// they can be timed against the kept ones.
// Plain C++: the planners (host code) and the kernel files read it alike.
#include "dispatch.hpp"

namespace fs::gpu {

#if defined(FS_CUDA_ALL_VARIANTS)
inline constexpr bool kAllVariants = true;
#else
inline constexpr bool kAllVariants = false;
#endif

// Compiled radii for a magnitude of two kernels (K = 2): 3x3, the size the
// benchmark times (Sobel, Scharr, Prewitt); larger magnitudes take the
// run-time radius in every mode.
constexpr bool magnitudeRadiusBuilt(int radius) { return kAllVariants || radius <= 1; }

// The registers mode's compiled 5x5 and 7x7 (radius 2 and 3): for 8-bit
// images of any channel count and gray f32, the images the benchmark times
// and the studio opens most; u16 and colour f32 images and magnitudes take
// the run-time radius there. 3x3 is compiled for every image.
constexpr bool registersRadiusBuilt(int radius, int sampleBytes, int channels, int kernels) {
    if (kAllVariants || radius <= 1) return true;
    if (kernels > 1 && !magnitudeRadiusBuilt(radius)) return false;
    return sampleBytes == 1 || (sampleBytes == 4 && channels == 1);
}

// The registers mode's BGR8 and RGBA8 quads: the shape dispatch.hpp picks.
constexpr bool bgr8QuadRowsBuilt(int radius, int rows) { return kAllVariants || rows == bgr8QuadRows(radius); }

constexpr bool rgba8DenseQuadBuilt(int radius, int pixels, int rows) {
    return kAllVariants || (pixels == rgba8DenseQuadPixels(radius) && rows == rgba8DenseQuadRows(radius));
}

// The shared mode's compiled radii (square kernels) per rows per thread: at
// the default 4 rows 3x3, 5x5, 7x7, 15x15 and 31x31, and on colour 9x9 to
// 17x17, where `auto` runs the shared mode (one gray kernel of those sizes
// runs sharedQuadRadiusBuilt's kernels); at 8 rows radius 1; each only where
// it is the default; magnitudes: magnitudeRadiusBuilt. Other radii take the
// run-time radius.
constexpr bool sharedRadiusBuilt(int rowsPerThread, int radius, int kernels, int channels) {
    if (radius < 1 || radius > 15 || (kernels > 1 && !magnitudeRadiusBuilt(radius))) return false;
    if (kAllVariants) return rowsPerThread == 4 || radius <= 3;
    // 3x3 runs 8 rows where C x K <= 4, else 4 (mode_shared.cu's default).
    const bool eightRows3x3 = channels * kernels <= 4;
    // 5x5 and 7x7 as the benchmark times them: gray and RGBA (3 channels only in explicit shared-mode runs).
    const bool timed5x5 = channels != 3;
    if (rowsPerThread == 4)
        return (radius == 1 && !eightRows3x3) || ((radius == 2 || radius == 3) && timed5x5) ||
               (radius >= 4 && radius <= 8 && channels > 1) || radius == 15;
    return rowsPerThread == 8 && radius == 1 && eightRows3x3;
}
// The shared mode's gray variant (4 adjacent columns a thread) for one
// square kernel on a 1-channel image.
constexpr bool sharedQuadRadiusBuilt(int radius) { return radius >= 2 && radius <= 10; }  // 5x5 to 21x21
// The run-time radius kernel at this many rows: at 4 (8 rows run only compiled 3x3 kernels).
constexpr bool sharedRuntimeBuilt(int rowsPerThread) { return kAllVariants || rowsPerThread == 4; }
// Whether any kernel (compiled or run-time radius) is built for this many rows per thread.
constexpr bool sharedRowsBuilt(int rowsPerThread) { return kAllVariants || rowsPerThread == 4 || rowsPerThread == 8; }

// The separable mode's fused tile: rows per thread built for C channels.
constexpr bool separableRowsBuilt(int rowsPerThread, int channels) {
    return kAllVariants ? (rowsPerThread == 2 || rowsPerThread == 4 || rowsPerThread == 8)
                        : rowsPerThread == separableTileRows(channels);
}

constexpr bool separableQuadBuilt(int radius, int sampleBytes, int channels, int kernels, int pixels, int rows) {
    if (radius < 1 || radius > separableQuadMaxRadius(sampleBytes, channels, kernels)) return false;
    if (channels != 1 && ((channels != 3 && channels != 4) || sampleBytes != 1)) return false;
    if (kAllVariants) {
        if (channels == 3) return pixels == 4 && (rows == 2 || rows == 4 || (rows == 8 && kernels == 1));
        if (channels == 4)
            return (pixels == 2 || pixels == 4) && (rows == 2 || rows == 4 || (rows == 8 && kernels == 1));
        return (pixels == 4 && (rows == 4 || rows == 8 || (rows == 16 && kernels == 1))) ||
               (pixels == 8 && sampleBytes == 1 && (rows == 4 || (rows == 8 && kernels == 1)));
    }
    return pixels == separableQuadPixels(sampleBytes, channels, kernels, radius) &&
           rows == separableQuadRows(sampleBytes, channels, kernels, radius);
}

}  // namespace fs::gpu
