// Mode "shared": tiles with a halo copied to shared memory once (border
// resolved while loading), weights in constant memory, several outputs per
// thread. Launch knobs: block shape, 1/2/4 columns x 1/2/4/8 rows per thread,
// the halo-loading scheme, compiled radius 1..15 or run-time radius. The
// kernel is in shared_kernel.cuh, its variants in shared_rows*.cu.
#include <string>
#include <vector>

#include "shared_kernel.cuh"

namespace fs::gpu {
namespace {

// 1 and 2 rows per thread (shared_rows1.cu, shared_rows2.cu) are built only
// with every variant: neither is a default, and the tuner never kept one.
KernelRef sharedVariant(int rows, int channels, int radius, int kernels) {
    switch (rows) {
#if defined(FS_CUDA_ALL_VARIANTS)
    case 1: return sharedKernelFor<1>(channels, radius, kernels);
    case 2: return sharedKernelFor<2>(channels, radius, kernels);
#endif
    case 4: return sharedKernelFor<4>(channels, radius, kernels);
    case 8: return sharedKernelFor<8>(channels, radius, kernels);
    default: return nullptr;
    }
}

// "1, 2, 3, 7 and 15": the radii 1..kSharedMaxRadius for which built(radius) holds.
template <class Built> std::string radiiList(Built built) {
    std::vector<int> radii;
    for (int r = 1; r <= kSharedMaxRadius; ++r)
        if (built(r)) radii.push_back(r);
    std::string s;
    for (std::size_t i = 0; i < radii.size(); ++i)
        s += (i == 0 ? "" : i + 1 == radii.size() ? " and " : ", ") + std::to_string(radii[i]);
    return s.empty() ? "none" : s;
}

Refusal planShared(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    const KernelMath& m = f.math;
    const int rx = m.kw / 2, ry = m.kh / 2, C = f.channels, K = m.kernelCount;
    // Defaults from the autotuner's table: 2 columns x 8 rows for small 3x3
    // sums, else 2 x 4; a second column doubles the tile's width, so each
    // block stages less halo per output (docs/performance.md). One square
    // gray kernel of a quad radius: 4 adjacent columns x 4 rows
    // (shared_quad.cu), the only kernel with 4 columns there.
    const bool quadBuilt = C == 1 && K == 1 && rx == ry && sharedQuadRadiusBuilt(rx);
    const int defaultRows = rx == 1 && ry == 1 && C * K <= 4 ? 8 : 4;
    const int px = pickCount(want.perThreadX, quadBuilt && want.radius != RadiusPath::Runtime ? 4 : 2, {1, 2, 4});
    const int py = pickCount(want.perThreadY, defaultRows, {1, 2, 4, 8});
    if (px < 0 || py < 0)
        return "the shared mode computes 1, 2 or 4 columns and 1, 2, 4 or 8 rows per thread";
    const bool quad = quadBuilt && px == 4 && want.radius != RadiusPath::Runtime;
    if (quad && py != kSharedQuadRows)
        return "the shared mode's gray kernel with 4 adjacent columns computes " + std::to_string(kSharedQuadRows) +
               " rows per thread";
    if (!quad && !sharedRowsBuilt(py))
        return "the shared mode's kernels for " + std::to_string(py) +
               " rows per thread are not in this build (4 and 8 rows are; -DFS_CUDA_ALL_VARIANTS=ON builds the "
               "others)";
    const bool compilable = quad || (rx == ry && sharedRadiusBuilt(py, rx, K, C));
    if (want.radius == RadiusPath::Compiled && !compilable)
        return "the shared mode has compiled radii " +
               radiiList([&](int r) { return sharedRadiusBuilt(py, r, K, C); }) + " for square " +
               (K > 1 ? "magnitudes" : "kernels") + " at " + std::to_string(py) + " rows per thread" +
               (C == 1 && K == 1 ? ", and " + radiiList(sharedQuadRadiusBuilt) + " at 4 adjacent columns" : "") +
               "; this one needs the run-time radius";
    const bool compiled = compilable && want.radius != RadiusPath::Runtime;
    if (!compiled && !sharedRuntimeBuilt(py))
        return "the shared mode's run-time radius kernel computes 4 rows per thread in this build "
               "(-DFS_CUDA_ALL_VARIANTS=ON builds the others)";
    const HaloScheme halo = want.halo == HaloScheme::Default ? HaloScheme::Cooperative : want.halo;
    const SharedBytesFor tileBytes = quad ? sharedQuadTileBytes : sharedTileBytes;

    if (want.blockX > 0 && want.blockY > 0) {
        out.block = pickBlock(want, dim3(32, 8));
    } else {
        const TileShape shape = chooseTileShape(width, rows, rx, ry, C, K, px, py, tileBytes);
        if (!shape.ok)
            return {RefusalReason::FilterUnsupported,
                    "the tile with its halo for this kernel size does not fit in shared memory"};
        out.block = shape.block;
    }
    out.kernel = quad ? sharedQuadKernelFor(rx) : sharedVariant(py, C, compiled ? rx : -1, K);
    out.grid = gridFor(width, rows, out.block, px, py);
    out.sharedBytes = tileBytes(static_cast<int>(out.block.x) * px, static_cast<int>(out.block.y) * py, rx, ry, C, K);
    out.config = LaunchConfig{static_cast<int>(out.block.x), static_cast<int>(out.block.y), px, py, halo,
                              compiled ? RadiusPath::Compiled : RadiusPath::Runtime};
    out.variant = std::string("shared, ") + (compiled ? "compiled radius " + std::to_string(rx) : "run-time radius") +
                  ", " + haloSchemeName(halo) + " halo, " + std::to_string(px) + "x" + std::to_string(py) +
                  (quad ? " adjacent outputs per thread" : " outputs per thread");
    return checkPlan(out);
}

Refusal supportsShared(const PreparedFilter& f) { return supportedIfPlans(planShared, f); }

std::vector<LaunchConfig> sharedCandidates() {
    if constexpr (kAllVariants) return candidateGrid({{1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 2}, {2, 4}, {2, 8}, {4, 4}});
    return candidateGrid({{1, 4}, {1, 8}, {2, 4}, {2, 8}, {4, 4}});
}

cudaError_t prepareShared(const PreparedFilter& f, cudaStream_t stream) {
    for (cudaError_t (*upload)(const PreparedFilter&, cudaStream_t) : {
#if defined(FS_CUDA_ALL_VARIANTS)
             uploadSharedWeights<1>, uploadSharedWeights<2>,
#endif
             uploadSharedWeights<4>, uploadSharedWeights<8>, uploadSharedQuadWeights})
        if (const cudaError_t err = upload(f, stream); err != cudaSuccess) return err;
    return cudaSuccess;
}

cudaError_t launchShared(const LaunchArgs& a, cudaStream_t stream) {
    LaunchPlan plan;
    if (!planShared(*a.filter, a.config, a.geom.width, a.geom.outRows, plan).ok())
        return cudaErrorInvalidConfiguration;
    return launchPlanned<GeomMathIntIntKernel>(plan, stream, a.geom, a.filter->math, plan.config.perThreadX,
                         plan.config.halo == HaloScheme::PerThread ? 1 : 0);
}

}  // namespace

const ModeImpl& sharedMode() {
    static const ModeImpl mode{"shared",
                               "Tiles with a halo copied to shared memory once, weights in constant memory, and "
                               "several outputs per thread; the tile shape comes from the device's properties.",
                               supportsShared, prepareShared, planShared, launchShared, sharedCandidates};
    return mode;
}

}  // namespace fs::gpu
