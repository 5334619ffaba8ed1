#pragma once
// Internal, plain C++: how the fft mode cuts an output area into overlap-save
// tiles, and when "auto" hands it a filter. Kept apart from the device code
// so the host tests check it without a GPU.
#include <cmath>
#include <cstddef>
#include <limits>

namespace fs::gpu {

// Square tile sides the fft mode transforms (powers of two: cuFFT's fastest sizes).
inline constexpr int kFftTileSizes[] = {32, 64, 128, 256, 512};

// A tile of side n holds n - kw + 1 by n - kh + 1 outputs; the rest is the
// halo the kernel reads. Its cost: two 2-D transforms (about log2(n) passes'
// worth of arithmetic each, but on the GPU about two passes over memory each)
// and three plain passes (gather, multiply, store). Modelled as
// n^2 x (log2 n + kFftPlainPasses) per tile: on an 8K image that picks 512
// for 31x31 and 63x63 (13% and 29% of the transformed area is halo) and 256
// for 15x15.
inline constexpr double kFftPlainPasses = 4.0;

struct FftTiling {
    int n = 0;               // tile side
    int validX = 0, validY = 0;  // outputs per tile each way
    int tilesX = 0, tilesY = 0;
    long long tiles() const { return static_cast<long long>(tilesX) * tilesY; }
};

// The cheapest tiling of width x rows outputs for a kw x kh kernel.
inline FftTiling chooseFftTiling(int kw, int kh, int width, int rows) {
    FftTiling best;
    double bestCost = std::numeric_limits<double>::infinity();
    for (int n : kFftTileSizes) {
        if (n < kw || n < kh) continue;
        FftTiling t;
        t.n = n;
        t.validX = n - kw + 1;
        t.validY = n - kh + 1;
        t.tilesX = (width + t.validX - 1) / t.validX;
        t.tilesY = (rows + t.validY - 1) / t.validY;
        const double cost = static_cast<double>(t.tiles()) * n * n * (std::log2(static_cast<double>(n)) + kFftPlainPasses);
        if (cost < bestCost) bestCost = cost, best = t;
    }
    return best;
}

// Floats per row of an in-place real-to-complex plane: n reals, or n / 2 + 1 complex.
inline int fftPlanePitch(int n) { return 2 * (n / 2 + 1); }

// Tiles per batch of transforms: the whole area when its planes fit
// `capBytes`, else as many as do (at least one); a launch grid's z and y
// (65535) bound the tiles and planes of one batch.
inline long long fftBatchTiles(long long tiles, int channels, int kernels, int n, std::size_t capBytes) {
    const std::size_t tileBytes =
        static_cast<std::size_t>(channels) * kernels * n * static_cast<std::size_t>(fftPlanePitch(n)) * sizeof(float);
    long long batch = static_cast<long long>(capBytes / tileBytes);
    if (batch < 1) batch = 1;
    if (batch > tiles) batch = tiles;
    const long long gridLimit = 65535 / channels;
    return batch > gridLimit ? gridLimit : batch;
}

// auto's thresholds for the fft mode (kFftAuto*) live in dispatch.hpp.

}  // namespace fs::gpu
