#pragma once
// How an image is split between a quad kernel and its frame. A quad kernel
// computes `pixels` adjacent outputs x `rows` rows per thread from plain
// vector loads wherever all its taps lie inside the image: its span. The
// outputs outside the span (the frame: the first and last quad columns and
// row groups, or the whole image when rows or pointers are not aligned for
// those loads) run one per thread in extra leading rows of blocks of the same
// launch (quad_rows.cuh, quadFrameBlock): the edge path inlined into the
// quads doubled their registers and halved their occupancy, and a second
// launch added its whole latency (docs/performance.md). The host sizes those
// blocks with the same arithmetic that the kernels test.
#include <cstdint>

#include "fs/host_device.hpp"
#include "launch.hpp"

namespace fs::gpu {

// Quad columns [x0, x1) and row groups [y0, y1); row group q starts at row
// outRow0 + q x rows. Empty: all zero.
struct QuadSpan {
    int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    FS_HD bool contains(int qx, int qy) const { return qx >= x0 && qx < x1 && qy >= y0 && qy < y1; }
};

// The quads of `pixels` x `rows` outputs whose taps (`radius` rows above and
// below, `side` pixels left and right) lie inside the image and whose rows
// lie inside this launch, when `alignBits` (the pitches and pointers that are
// read or written as vectors, or-ed) is a multiple of `alignment`.
FS_HD QuadSpan quadSpan(const KernelGeom& g, int pixels, int rows, int radius, int side, std::uintptr_t alignBits,
                        unsigned alignment) {
    QuadSpan s;
    if ((alignBits & (alignment - 1u)) != 0) return s;
    const int x0 = (side + pixels - 1) / pixels;
    const int x1 = g.width >= pixels + side ? (g.width - pixels - side) / pixels + 1 : 0;
    const int firstRow = radius - g.outRow0;  // group q needs q x rows >= firstRow
    const int y0 = firstRow > 0 ? (firstRow + rows - 1) / rows : 0;
    const int imageEnd = g.imageHeight - radius, launchEnd = g.outRow0 + g.outRows;
    const int lastRow = (imageEnd < launchEnd ? imageEnd : launchEnd) - rows - g.outRow0;  // and q x rows <= lastRow
    const int y1 = lastRow >= 0 ? lastRow / rows + 1 : 0;
    if (x0 < x1 && y0 < y1) s = QuadSpan{x0, x1, y0, y1};
    return s;
}

// The gray quads' span (denseQuadKernel, separableQuadKernel): neighbours of
// a u8 quad come from the (radius + 3) / 4 words each side (3x3: a byte each
// side), of an f32 quad from as many 16-byte vectors each side; every row is
// loaded, and stored unless u8 is written as floats, as one vector of the
// quad's bytes.
FS_HD QuadSpan grayQuadSpan(const KernelGeom& g, const KernelMath& m, int sampleBytes, int pixels, int radius,
                            int rows) {
    const bool vectorStore = sampleBytes != 1 || !m.outFloat;
    const std::uintptr_t alignBits =
        g.srcPitch | reinterpret_cast<std::uintptr_t>(g.src) |
        (vectorStore ? g.dstPitch | reinterpret_cast<std::uintptr_t>(g.dst) : std::uintptr_t{0});
    return quadSpan(g, pixels, rows, radius, radius == 1 ? 1 : (radius + 3) / 4 * 4, alignBits,
                    static_cast<unsigned>(pixels * sampleBytes));
}

// grayQuadSpan for the quads of u8 and of f32 images, as LaunchPlan::quadSpan.
inline QuadSpan grayU8QuadSpan(const KernelGeom& g, const KernelMath& m, int pixels, int rows) {
    return grayQuadSpan(g, m, 1, pixels, m.kw / 2, rows);
}
inline QuadSpan grayF32QuadSpan(const KernelGeom& g, const KernelMath& m, int pixels, int rows) {
    return grayQuadSpan(g, m, 4, pixels, m.kw / 2, rows);
}

// The colour quads' span (the separable mode's, and the registers mode's
// BGR8 quads), stored as vectors of the quad's pixels unless u8 is written
// as floats.
// - RGBA8: each row loaded as one vector of the quad's pixels, neighbours
//   from the vectors of as many pixels each side (radius 1: a pixel each
//   side);
// - BGR8 (4 pixels): the quad's 12 bytes and the ceil(3R / 4) words each
//   side, 4-byte loads and stores.
FS_HD constexpr int bgr8SideWords(int radius) { return (3 * radius + 3) / 4; }
FS_HD QuadSpan colourQuadSpan(const KernelGeom& g, const KernelMath& m, int channels, int pixels, int radius,
                              int rows) {
    const std::uintptr_t alignBits =
        g.srcPitch | reinterpret_cast<std::uintptr_t>(g.src) |
        (m.outFloat ? std::uintptr_t{0} : g.dstPitch | reinterpret_cast<std::uintptr_t>(g.dst));
    if (channels == 3) {
        const int side = (4 * bgr8SideWords(radius) + 2) / 3;  // pixels the side words touch
        return quadSpan(g, pixels, rows, radius, side, alignBits, 4);
    }
    const int side = radius == 1 ? 1 : (radius + pixels - 1) / pixels * pixels;
    return quadSpan(g, pixels, rows, radius, side, alignBits, static_cast<unsigned>(pixels * 4));
}
// colourQuadSpan as LaunchPlan::quadSpan.
inline QuadSpan rgba8QuadSpan(const KernelGeom& g, const KernelMath& m, int pixels, int rows) {
    return colourQuadSpan(g, m, 4, pixels, m.kw / 2, rows);
}
inline QuadSpan bgr8QuadSpan(const KernelGeom& g, const KernelMath& m, int pixels, int rows) {
    return colourQuadSpan(g, m, 3, pixels, m.kw / 2, rows);
}

// quadKernel's span (3x3 on 4-byte pixels: gray f32, RGBA8): a pixel each
// side, the source rows loaded as 16-byte vectors.
FS_HD QuadSpan pixelQuadSpan(const KernelGeom& g, int rows) {
    return quadSpan(g, 4, rows, 1, 1, g.srcPitch | reinterpret_cast<std::uintptr_t>(g.src), 16);
}

// Every quad of the launch outside `span`, numbered: the row groups above the
// span, then the quads left and right of it row group by row group, then the
// row groups below.
struct QuadFrame {
    int pixels = 4;   // outputs per quad
    int quadsX = 0;   // quads per row group
    int groupsY = 0;  // row groups in the launch
    QuadSpan span;

    FS_HD long long quads() const {
        return static_cast<long long>(quadsX) * groupsY -
               static_cast<long long>(span.x1 - span.x0) * (span.y1 - span.y0);
    }
    // The quad numbered f; false past the last.
    FS_HD bool locate(long long f, int& qx, int& qy) const {
        const long long above = static_cast<long long>(span.y0) * quadsX;
        if (f < above) {
            qy = static_cast<int>(f / quadsX), qx = static_cast<int>(f % quadsX);
            return true;
        }
        f -= above;
        const int sides = quadsX - (span.x1 - span.x0);
        const long long beside = static_cast<long long>(span.y1 - span.y0) * sides;
        if (f < beside) {
            const int c = static_cast<int>(f % sides);
            qy = span.y0 + static_cast<int>(f / sides), qx = c < span.x0 ? c : span.x1 + (c - span.x0);
            return true;
        }
        f -= beside;
        qy = span.y1 + static_cast<int>(f / quadsX), qx = static_cast<int>(f % quadsX);
        return qy < groupsY;
    }
};

// The frame of a launch of width x outRows outputs in quads of pixels x rows.
FS_HD QuadFrame quadFrame(const KernelGeom& g, int pixels, int rows, const QuadSpan& span) {
    QuadFrame f;
    f.pixels = pixels;
    f.quadsX = (g.width + pixels - 1) / pixels;
    f.groupsY = (g.outRows + rows - 1) / rows;
    f.span = span;
    return f;
}

// Launches a quad kernel planned with plan.quadSpan for `geom`: adds the rows
// of blocks its frame takes to the grid, and passes their count.
inline cudaError_t launchQuadPlan(LaunchPlan plan, const KernelGeom& geom, const KernelMath& m, cudaStream_t stream) {
    const int px = plan.config.perThreadX, py = plan.config.perThreadY;
    const QuadFrame frame = quadFrame(geom, px, py, plan.quadSpan(geom, m, px, py));
    const long long blockRowThreads = static_cast<long long>(plan.grid.x) * plan.block.x * plan.block.y;
    const long long frameBlockRows = (frame.quads() * px * py + blockRowThreads - 1) / blockRowThreads;
    plan.grid.y += static_cast<unsigned>(frameBlockRows);
    return launchPlanned<GeomMathIntKernel>(plan, stream, geom, m, static_cast<int>(frameBlockRows));
}

}  // namespace fs::gpu
