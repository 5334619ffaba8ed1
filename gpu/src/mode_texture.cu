// Mode "texture": pixels through a texture object, whose hardware addressing
// resolves the border for free when it matches: clamp == Replicate, border
// (zero) == Constant 0. Hardware mirror is BORDER_REFLECT, not Reflect101, and
// wrap needs normalised coordinates that lose exactness on wide images, so
// those borders (and 3-channel images, which have no texel format) read
// through the read-only data cache (__ldg) with fs::borderIndex instead.
#include "constant_weights.cuh"
#include "direct_kernel.cuh"

namespace fs::gpu {
namespace {

template <class T, int C> struct Texel;
template <class T> struct Texel<T, 1> { using type = T; };
template <class T> struct Texel<T, 4> { using type = typename Vec4<T>::type; };

struct TextureSource {
    cudaTextureObject_t tex;
    int rowBase;
    template <class T, int C> __device__ __forceinline__ Px<C> load(const KernelGeom& g, int x, int y) const {
        if constexpr (C == 3) {
            return loadPixel<T, C, true>(g, x, y);  // no 3-component texel format
        } else {
            // Unnormalised coordinates, texel centres at +0.5. The buffer's row 0
            // is image row rowBase; for the two hardware borders its edges are the
            // image's edges wherever a tap can fall outside it.
            const auto t = tex2D<typename Texel<T, C>::type>(tex, static_cast<float>(x) + 0.5f,
                                                              static_cast<float>(y - rowBase) + 0.5f);
            Px<C> v;
            if constexpr (C == 4) {
                v.c[0] = static_cast<float>(t.x), v.c[1] = static_cast<float>(t.y);
                v.c[2] = static_cast<float>(t.z), v.c[3] = static_cast<float>(t.w);
            } else {
                v.c[0] = static_cast<float>(t);
            }
            return v;
        }
    }
};

bool hardwareBorder(const KernelGeom& g, int channels) {
    if (channels == 3) return false;
    return g.border == BorderMode::Replicate || (g.border == BorderMode::Constant && g.borderValue == 0.0f);
}

cudaChannelFormatDesc texelFormat(Depth depth, int channels) {
    const int bits = static_cast<int>(depthBytes(depth)) * 8;
    const int y = channels == 4 ? bits : 0;
    const cudaChannelFormatKind kind = depth == Depth::F32 ? cudaChannelFormatKindFloat : cudaChannelFormatKindUnsigned;
    return cudaCreateChannelDesc(bits, y, y, y, kind);
}

Refusal supportsTexture(const PreparedFilter&) { return {}; }

// Planned with the texture-fetch kernel; borders the hardware cannot resolve
// run the read-only-cache kernel in the same shape.
Refusal planTexture(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    return planDirect("texture", directKernelFor<TextureSource, ConstantWeights>(f), want, width, rows, out);
}

cudaError_t launchTexture(const LaunchArgs& a, cudaStream_t stream) {
    const PreparedFilter& f = *a.filter;
    if (!hardwareBorder(a.geom, f.channels))
        return launchDirect(textureMode(), a, stream, ReadOnlySource{}, ConstantWeights{});

    cudaResourceDesc res{};
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = const_cast<unsigned char*>(a.geom.src);
    res.res.pitch2D.desc = texelFormat(f.inDepth, f.channels);
    res.res.pitch2D.width = static_cast<std::size_t>(a.geom.width);
    res.res.pitch2D.height = static_cast<std::size_t>(a.geom.srcRows);
    res.res.pitch2D.pitchInBytes = a.geom.srcPitch;
    cudaTextureDesc desc{};
    const cudaTextureAddressMode address =
        a.geom.border == BorderMode::Replicate ? cudaAddressModeClamp : cudaAddressModeBorder;
    desc.addressMode[0] = desc.addressMode[1] = address;
    desc.filterMode = cudaFilterModePoint;
    desc.readMode = cudaReadModeElementType;
    desc.normalizedCoords = 0;
    cudaTextureObject_t tex = 0;
    cudaError_t err = cudaCreateTextureObject(&tex, &res, &desc, nullptr);
    if (err != cudaSuccess) return err;
    err = launchDirect(textureMode(), a, stream, TextureSource{tex, a.geom.rowBase}, ConstantWeights{});
    // The object must outlive the kernel; destroying it right after the
    // launch would race, so wait for this piece first.
    const cudaError_t syncErr = cudaStreamSynchronize(stream);
    cudaDestroyTextureObject(tex);
    return err != cudaSuccess ? err : syncErr;
}

}  // namespace

const ModeImpl& textureMode() {
    static const ModeImpl mode{"texture",
                               "One thread per output pixel reading through the texture unit: its clamp/zero "
                               "addressing handles replicate and constant-0 borders in hardware; other borders use "
                               "the read-only data cache.",
                               supportsTexture, uploadConstantWeights, planTexture, launchTexture, directCandidates};
    return mode;
}

}  // namespace fs::gpu
