// Device properties and the tile shapes chosen from them.
#include <limits>

#include <algorithm>

#include "launch.hpp"

namespace fs::gpu {

namespace {
struct Props {
    cudaDeviceProp props{};
    bool usable = false;
};
const Props& readProps() {
    static const Props read = [] {
        Props out;
        cudaDeviceProp& p = out.props;
        int device = 0;
        out.usable = cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&p, device) == cudaSuccess;
        if (!out.usable) {
            cudaGetLastError();
            p = cudaDeviceProp{};
            // No device: modes never launch; keep conservative numbers.
            p.multiProcessorCount = 1;
            p.sharedMemPerBlockOptin = 48 * 1024;
            p.sharedMemPerMultiprocessor = 48 * 1024;
            p.maxThreadsPerMultiProcessor = 1024;
        }
        return out;
    }();
    return read;
}
}  // namespace

const cudaDeviceProp& deviceProps() { return readProps().props; }
bool deviceUsable() { return readProps().usable; }

TileShape chooseTileShape(int width, int rows, int rx, int ry, int channels, int kernels, int colsPerThread,
                          int rowsPerThread, SharedBytesFor sharedBytesFor) {
    const cudaDeviceProp& p = deviceProps();
    TileShape best;
    double bestScore = std::numeric_limits<double>::max();
    for (int bx : {32, 64, 128}) {
        for (int by : {4, 8, 16}) {
            const int threads = bx * by;
            if (threads > 512) continue;  // the kernels' __launch_bounds__
            const int tileW = bx * colsPerThread, tileH = by * rowsPerThread;
            const std::size_t bytes = sharedBytesFor(tileW, tileH, rx, ry, channels, kernels);
            if (bytes > p.sharedMemPerBlockOptin) continue;
            const int bySmem = static_cast<int>(p.sharedMemPerMultiprocessor / (bytes + 1024));
            const int blocksPerSm = std::min(bySmem, p.maxThreadsPerMultiProcessor / threads);
            if (blocksPerSm < 1) continue;
            const long long gridX = (width + tileW - 1) / tileW, gridY = (rows + tileH - 1) / tileH;
            // Shared bytes per output (halo overhead), times the share of
            // threads past the image edge, penalised when the grid cannot fill
            // the GPU or a multiprocessor holds few warps.
            double score = static_cast<double>(bytes) / (static_cast<double>(tileW) * tileH);
            score *= static_cast<double>(gridX * tileW * gridY * tileH) / (static_cast<double>(width) * rows);
            const double fill = static_cast<double>(gridX * gridY) / (p.multiProcessorCount * blocksPerSm);
            if (fill < 1.0) score *= 2.0 - fill;
            if (blocksPerSm * threads < 512) score *= 1.5;
            if (score < bestScore) {
                bestScore = score;
                best.block = dim3(bx, by);
                best.grid = dim3(static_cast<unsigned>(gridX), static_cast<unsigned>(gridY));
                best.sharedBytes = bytes;
                best.ok = true;
            }
        }
    }
    return best;
}

}  // namespace fs::gpu
