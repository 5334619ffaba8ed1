#pragma once
// Which compile-time kernel variants are built. Every variant is device code
// for each architecture in CMAKE_CUDA_ARCHITECTURES, so the default build
// keeps only those each mode launches by default, the ones the benchmark
// times (gpu/README.md, "Kept variants", has the numbers). -DFS_CUDA_ALL_VARIANTS=ON
// builds the others too, so they can be timed against the kept ones.
// Plain C++: the planners (host code) and the kernel files read it alike.

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

// Rows per thread of the gray f32 5x5 to 15x15 kernel of 4 adjacent pixels
// (H200 8K: 5x5 2 rows 0.107 ms against 0.110 at 4; 7x7 4 rows 0.168 against
// 0.174 at 2; 9x9 4 rows 0.133 against 0.144 at 2 and 0.152 at 8; 11x11 4
// rows 0.202 against 0.211 at 2; 13x13 2 rows 0.281 against 0.291 at 4;
// 15x15 4 rows 0.403 against 0.406 at 2).
constexpr int grayF32WideRows(int radius) { return radius == 2 || radius == 6 ? 2 : 4; }

// Rows per thread of the registers mode's general kernel with a compiled
// radius, for C x K sums per output (the autotuner's fastest at 8K; longer
// columns need more registers than they save, docs/performance.md).
constexpr int registersDefaultRows(int radius, int channelsTimesKernels) {
    if (radius < 2) return 4;
    const bool gray = channelsTimesKernels <= 2;
    return radius == 2 ? (gray ? 4 : 8) : (gray ? 2 : 4);
}

// Rows per thread of the registers mode's BGR8 kernel of 4 adjacent pixels
// (single 3x3 to 11x11 kernels): 4, and 2 at 9x9 (H200 8K dense 3x3 0.089
// ms against 0.095 at 8 rows and 0.097 at 2; 5x5 0.161 against 0.177 and
// 0.173; 7x7 0.281 against 0.311 and 0.290; 9x9 0.454 at 2 against 0.466 at
// 4 and 1.06 at 8; 11x11 0.758 at 4 against 0.792 at 2 and 0.896 at 8).
constexpr int bgr8QuadRows(int radius) { return radius == 4 ? 2 : 4; }
constexpr bool bgr8QuadRowsBuilt(int radius, int rows) { return kAllVariants || rows == bgr8QuadRows(radius); }

// Pixels and rows per thread of the registers mode's RGBA8 kernel of adjacent
// pixels (single 5x5 to 9x9 kernels): 4 x 4 at 5x5, 4 x 2 from 7x7 (H200 8K
// dense 5x5 0.213 ms against 0.215 at 4 x 2 and 2 x 8, 0.220 at 2 x 4, 0.242
// at 4 x 8, 0.272 at 2 x 2; 7x7 0.375 against 0.392 at 4 x 4 and 2 x 4, 0.415
// at 2 x 8, 0.445 at 2 x 2, 0.647 at 4 x 8; 9x9 0.618 against 0.626 at 2 x 4,
// 0.667 at 4 x 4, 0.687 at 2 x 2, 0.721 at 2 x 8, 1.43 at 4 x 8).
constexpr int rgba8DenseQuadPixels(int /*radius*/) { return 4; }
constexpr int rgba8DenseQuadRows(int radius) { return radius == 2 ? 4 : 2; }
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

// The separable mode's fused tile: rows per thread built for C channels
// (gray 8, colour 4: the autotuner's fastest at 8K).
constexpr bool separableRowsBuilt(int rowsPerThread, int channels) {
    return kAllVariants ? (rowsPerThread == 2 || rowsPerThread == 4 || rowsPerThread == 8)
                        : rowsPerThread == (channels == 1 ? 8 : 4);
}

// The separable mode's quads (separable_quads.cu): adjacent pixels and rows
// per thread by default for an image of sampleBytes (u8 or f32) and channels
// (gray, BGR8 or RGBA8), K kernels and radius R, the fastest at 8K on the H200
// (bench/results/h200-2026-11-28c/, h200-2026-11-28d/):
// - gray u8 single kernels: 8 pixels x 4 rows to 5x5 (Gaussian 3x3 0.034 ms
//   against 0.036 at 4 x 8, 5x5 0.047 against 0.048), 4 x 8 from 7x7 (7x7
//   0.065 against 0.066 at 8 x 4 and 0.074 at 4 x 4; 4 x 16 0.085);
// - gray magnitudes and f32: 4 x 4 (u8 Sobel magnitude 5x5 0.084 against
//   0.090 at 4 x 8 and 0.092 at 8 x 4; f32 Gaussian 7x7 0.083 against 0.090
//   at 4 x 8), f32 4 x 8 at 11x11 (0.105 against 0.116 at 4 x 4 and 0.135
//   at 4 x 16);
// - gray from 11x11 (bench/results/h200-2026-11-28f/): u8 4 x 8 to 13x13
//   (Gaussian 11x11 0.103 against the rolling strip's 0.133 and 0.114 at 8 x
//   4; 13x13 0.128 against 0.137, 8 x 8 0.130; 15x15 0.159 against 0.141),
//   f32 to 11x11 (13x13 0.127 against the strip's 0.126). Colour loses to
//   the strip from 11x11 at every shape (BGR8 4 x 8 0.352 against 0.357,
//   13x13 0.555 against 0.369; RGBA8 0.480 against 0.392).
// - RGBA8 single kernels: 4 x 4 to 7x7 (Gaussian 5x5 0.161 against 0.166 at
//   2 x 8 and 0.180 at 2 x 4), 4 x 8 at 9x9 (0.330 against 0.347 at 2 x 8
//   and 0.370 at 4 x 4);
// - RGBA8 magnitudes: 2 x 4 to 5x5 (Sobel magnitude 5x5 0.347 against 0.386
//   at 2 x 2 and 0.414 at 4 x 4), 4 x 4 at 7x7 (0.523 against 0.542 at 2 x 4);
// - BGR8 (4 pixels): single kernels 4 x 8 (Gaussian 5x5 0.123 against 0.126
//   at 4 x 4 and 0.156 at 4 x 2; 9x9 0.249 against 0.268; 7x7 0.183 against
//   0.182), magnitudes 4 x 4 (Sobel magnitude 5x5 0.251 against 0.268 at 4 x
//   2).
// Built: one kernel 3x3 to 9x9 (gray u8 to 13x13, f32 to 11x11), magnitudes
// to 7x7; the default shape only unless every variant is.
constexpr int separableQuadMaxRadius(int sampleBytes, int channels, int kernels) {
    if (kernels > 1) return 3;
    if (channels > 1) return 4;
    return sampleBytes == 1 ? 6 : 5;
}
constexpr int separableQuadPixels(int sampleBytes, int channels, int kernels, int radius) {
    if (channels == 3) return 4;
    if (channels == 4) return kernels > 1 && radius <= 2 ? 2 : 4;
    return sampleBytes == 1 && kernels == 1 && radius <= 2 ? 8 : 4;
}
constexpr int separableQuadRows(int sampleBytes, int channels, int kernels, int radius) {
    if (channels == 3) return kernels == 1 ? 8 : 4;
    if (channels == 4) return kernels == 1 && radius == 4 ? 8 : 4;
    if (sampleBytes == 4) return kernels == 1 && radius == 5 ? 8 : 4;
    return kernels == 1 && radius > 2 ? 8 : 4;
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
