// Included once by each of parallel_simd_avx512.cpp, parallel_simd_avx2.cpp
// and parallel_simd_sse2.cpp, which compile it with different instruction
// sets; Vec hides the width.
// Stores follow fs::saturateU8/U16: NaN and -Inf to 0, +Inf to the maximum,
// round half to even (cvtps2dq under the default rounding mode).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cpu_common.hpp"
#include "parallel_simd.hpp"

namespace fs::cpu::detail::simd {
namespace FS_SIMD_NAMESPACE {
namespace {

#if defined(__AVX512F__)
struct Vec {
    static constexpr int N = 16;
    using F = __m512;
    static F load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, F v) { _mm512_storeu_ps(p, v); }
    static F set1(float v) { return _mm512_set1_ps(v); }
    static F zero() { return _mm512_setzero_ps(); }
    static F add(F a, F b) { return _mm512_add_ps(a, b); }
    static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
    static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
    static F fused(F w, F x, F acc) { return _mm512_fmadd_ps(w, x, acc); }
    static F max(F a, F b) { return _mm512_max_ps(a, b); }  // b when either is NaN
    static F min(F a, F b) { return _mm512_min_ps(a, b); }
    static F sqrt(F a) { return _mm512_sqrt_ps(a); }
    static F abs(F a) { return _mm512_abs_ps(a); }
    static F fromU8(const std::uint8_t* p) {
        return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }
    static F fromU16(const std::uint16_t* p) {
        return _mm512_cvtepi32_ps(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
    }
    static F fromI32(const std::int32_t* p) { return _mm512_cvtepi32_ps(_mm512_loadu_si512(p)); }
    // v already clamped to [0, 255] or [0, 65535]: the saturating narrowings never saturate.
    static void storeU8(std::uint8_t* p, F v) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(v)));
    }
    static void storeU16(std::uint16_t* p, F v) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtusepi32_epi16(_mm512_cvtps_epi32(v)));
    }
    // Non-temporal stores, p aligned to the bytes stored: large outputs skip
    // the read-for-ownership of lines that are only written.
    static constexpr bool kStreams = true;
    static void streamF32(float* p, F v) { _mm512_stream_ps(p, v); }
    static void streamU8(std::uint8_t* p, F v) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(v)));
    }
    static void streamU16(std::uint16_t* p, F v) {
        _mm256_stream_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtusepi32_epi16(_mm512_cvtps_epi32(v)));
    }
};
inline float fusedScalar(float w, float x, float acc) { return std::fma(w, x, acc); }
#elif defined(__AVX2__) && defined(__FMA__)
struct Vec {
    static constexpr int N = 8;
    using F = __m256;
    static F load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, F v) { _mm256_storeu_ps(p, v); }
    static F set1(float v) { return _mm256_set1_ps(v); }
    static F zero() { return _mm256_setzero_ps(); }
    static F add(F a, F b) { return _mm256_add_ps(a, b); }
    static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
    static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
    static F fused(F w, F x, F acc) { return _mm256_fmadd_ps(w, x, acc); }
    static F max(F a, F b) { return _mm256_max_ps(a, b); }  // b when either is NaN
    static F min(F a, F b) { return _mm256_min_ps(a, b); }
    static F sqrt(F a) { return _mm256_sqrt_ps(a); }
    static F abs(F a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
    static F fromU8(const std::uint8_t* p) {
        return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
    }
    static F fromU16(const std::uint16_t* p) {
        return _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }
    static F fromI32(const std::int32_t* p) {
        return _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    }
    // v already clamped to [0, 255].
    static void storeU8(std::uint8_t* p, F v) {
        const __m256i i = _mm256_cvtps_epi32(v);
        const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(w, w));
    }
    static void storeU16(std::uint16_t* p, F v) {
        const __m256i i = _mm256_cvtps_epi32(v);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                         _mm_packus_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1)));
    }
    static constexpr bool kStreams = false;  // finishTyped never streams with this set
    static void streamF32(float* p, F v) { store(p, v); }
    static void streamU8(std::uint8_t* p, F v) { storeU8(p, v); }
    static void streamU16(std::uint16_t* p, F v) { storeU16(p, v); }
};
inline float fusedScalar(float w, float x, float acc) { return std::fma(w, x, acc); }
#else
struct Vec {
    static constexpr int N = 4;
    using F = __m128;
    static F load(const float* p) { return _mm_loadu_ps(p); }
    static void store(float* p, F v) { _mm_storeu_ps(p, v); }
    static F set1(float v) { return _mm_set1_ps(v); }
    static F zero() { return _mm_setzero_ps(); }
    static F add(F a, F b) { return _mm_add_ps(a, b); }
    static F sub(F a, F b) { return _mm_sub_ps(a, b); }
    static F mul(F a, F b) { return _mm_mul_ps(a, b); }
    static F fused(F w, F x, F acc) { return _mm_add_ps(_mm_mul_ps(w, x), acc); }
    static F max(F a, F b) { return _mm_max_ps(a, b); }
    static F min(F a, F b) { return _mm_min_ps(a, b); }
    static F sqrt(F a) { return _mm_sqrt_ps(a); }
    static F abs(F a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
    static F fromU8(const std::uint8_t* p) {
        std::int32_t bits;
        __builtin_memcpy(&bits, p, 4);
        const __m128i z = _mm_setzero_si128();
        const __m128i w = _mm_unpacklo_epi8(_mm_cvtsi32_si128(bits), z);
        return _mm_cvtepi32_ps(_mm_unpacklo_epi16(w, z));
    }
    static F fromU16(const std::uint16_t* p) {
        const __m128i w = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
        return _mm_cvtepi32_ps(_mm_unpacklo_epi16(w, _mm_setzero_si128()));
    }
    static F fromI32(const std::int32_t* p) { return _mm_cvtepi32_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
    static void storeU8(std::uint8_t* p, F v) {
        const __m128i i = _mm_cvtps_epi32(v);
        const __m128i w = _mm_packs_epi32(i, i);
        const int bits = _mm_cvtsi128_si32(_mm_packus_epi16(w, w));
        __builtin_memcpy(p, &bits, 4);
    }
    static void storeU16(std::uint16_t* p, F v) {
        // SSE2 has no unsigned 32->16 pack: shift into signed range, pack, shift back.
        const __m128i i = _mm_sub_epi32(_mm_cvtps_epi32(v), _mm_set1_epi32(32768));
        const __m128i w = _mm_xor_si128(_mm_packs_epi32(i, i), _mm_set1_epi16(static_cast<short>(0x8000)));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(p), w);
    }
    static constexpr bool kStreams = false;  // finishTyped never streams with this set
    static void streamF32(float* p, F v) { store(p, v); }
    static void streamU8(std::uint8_t* p, F v) { storeU8(p, v); }
    static void streamU16(std::uint16_t* p, F v) { storeU16(p, v); }
};
inline float fusedScalar(float w, float x, float acc) { return acc + w * x; }
#endif

using F = Vec::F;
constexpr int N = Vec::N;

void widenU8(const std::uint8_t* src, float* dst, int n) {
    int i = 0;
    for (; i + N <= n; i += N) Vec::store(dst + i, Vec::fromU8(src + i));
    for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

void widenU16(const std::uint16_t* src, float* dst, int n) {
    int i = 0;
    for (; i + N <= n; i += N) Vec::store(dst + i, Vec::fromU16(src + i));
    for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

// Calls step(i) for vectors covering [i, n) and returns n, the last vector
// overlapping the one before instead of leaving a scalar tail: every function
// here computes a sample from its inputs alone, so writing it twice writes
// the same value. Needs n >= N; otherwise returns i for a scalar loop.
template <class Step> int vectorSteps(int i, int n, Step step) {
    if (i >= n || n < N) return i;
    for (; i + N <= n; i += N) step(i);
    if (i < n) step(n - N);
    return n;
}

// Several output rows at once: each source row is loaded once and feeds
// every output row it falls under, so the source rows, which live in L2,
// are read once per group of rows, not once per output row. R rows x B
// vectors of accumulators stay in registers across all taps.
//
// Rows: dst[r][i] = sum over t of weights[t] * rows[r + t][i].
// Accumulators that fit the register file beside the loaded vectors
// (AVX-512 has 32 vector registers, the others 16).
constexpr int kAccumulators = N == 16 ? 16 : 8;

inline F loadAny(const float* p) { return Vec::load(p); }
inline F loadAny(const std::uint8_t* p) { return Vec::fromU8(p); }
inline F loadAny(const std::uint16_t* p) { return Vec::fromU16(p); }

template <int R, class Src>
void columnRowsFusedFixed(const Src* const* rows, const float* weights, int k, bool skipZeros, float* const* dst, int n) {
    constexpr int B = kAccumulators / R;
    int i = 0;
    const auto block = [&](auto vectors) {
        constexpr int V = decltype(vectors)::value;
        F a[R][V];
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 16
            for (int b = 0; b < V; ++b) a[r][b] = Vec::zero();
        for (int j = 0; j < k + R - 1; ++j) {
            F x[V];
#pragma GCC unroll 16
            for (int b = 0; b < V; ++b) x[b] = loadAny(rows[j] + i + b * N);
#pragma GCC unroll 4
            for (int r = 0; r < R; ++r) {
                const int t = j - r;
                if (t < 0 || t >= k || (skipZeros && weights[t] == 0.0f)) continue;
                const F w = Vec::set1(weights[t]);
#pragma GCC unroll 16
                for (int b = 0; b < V; ++b) a[r][b] = Vec::fused(w, x[b], a[r][b]);
            }
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 16
            for (int b = 0; b < V; ++b) Vec::store(dst[r] + i + b * N, a[r][b]);
    };
    for (; i + B * N <= n; i += B * N) block(std::integral_constant<int, B>{});
    i = vectorSteps(i, n, [&](int at) {
        i = at;
        block(std::integral_constant<int, 1>{});
    });
    for (; i < n; ++i)
        for (int r = 0; r < R; ++r) {
            float acc = 0.0f;
            for (int t = 0; t < k; ++t)
                if (!(skipZeros && weights[t] == 0.0f)) acc = fusedScalar(weights[t], static_cast<float>(rows[r + t][i]), acc);
            dst[r][i] = acc;
        }
}

template <class Src>
void columnRowsFused(const Src* const* rows, const float* weights, int k, bool skipZeros, int outRows, float* const* dst,
                     int n) {
    switch (outRows) {
    case 4: return columnRowsFusedFixed<4>(rows, weights, k, skipZeros, dst, n);
    case 3: return columnRowsFusedFixed<3>(rows, weights, k, skipZeros, dst, n);
    case 2: return columnRowsFusedFixed<2>(rows, weights, k, skipZeros, dst, n);
    default: return columnRowsFusedFixed<1>(rows, weights, k, skipZeros, dst, n);
    }
}

// 2-D kernels of KH x KW taps known at compile time (3x3, 5x5), exact: the
// taps unrolled, their weights and rows fetched once a call, eight vectors
// of accumulators (a rounded add waits on the one before: eight keep both
// add ports busy). Every tap is a rounded multiply then a rounded add, zero
// weights included: on integer samples 0 * x adds nothing, and branching
// per tap to skip it, or to add a weight of 1's sample unmultiplied, cost
// more than the arithmetic it saved.
template <int KH, int KW>
void denseRowExactFixed(const float* const* rows, const float* weights, const std::ptrdiff_t* offsets, float* dst, int n) {
    constexpr int T = KH * KW, B = 8;
    const float* src[T];
    F w[T];
    for (int t = 0; t < T; ++t) {
        src[t] = rows[t / KW] + offsets[t % KW];
        w[t] = Vec::set1(weights[t]);
    }
    const auto block = [&](auto vectors, int at) {
        constexpr int V = decltype(vectors)::value;
        F a[V];
#pragma GCC unroll 8
        for (int b = 0; b < V; ++b) a[b] = Vec::zero();
#pragma GCC unroll 25
        for (int t = 0; t < T; ++t)
#pragma GCC unroll 8
            for (int b = 0; b < V; ++b) a[b] = Vec::add(a[b], Vec::mul(w[t], Vec::load(src[t] + at + b * N)));
#pragma GCC unroll 8
        for (int b = 0; b < V; ++b) Vec::store(dst + at + b * N, a[b]);
    };
    int i = 0;
    for (; i + B * N <= n; i += B * N) block(std::integral_constant<int, B>{}, i);
    i = vectorSteps(i, n, [&](int at) { block(std::integral_constant<int, 1>{}, at); });
    for (; i < n; ++i) {
        float a = 0.0f;
        for (int t = 0; t < T; ++t) a = a + weights[t] * src[t][i];
        dst[i] = a;
    }
}

// 2-D, exact: four vectors of accumulators in registers across all taps;
// each output adds its taps in the reference's order.
void denseRowExact(const float* const* rows, const float* weights, int kh, int kw, const std::ptrdiff_t* offsets,
                   bool skipZeros, float* dst, int n) {
    if (kh == 3 && kw == 3) return denseRowExactFixed<3, 3>(rows, weights, offsets, dst, n);
    if (kh == 5 && kw == 5) return denseRowExactFixed<5, 5>(rows, weights, offsets, dst, n);
    const auto skip = [&](float w) { return skipZeros && w == 0.0f; };
    int i = 0;
    // Eight vectors of accumulators: each rounded add waits on the one before
    // (3-4 cycles) and two issue a cycle, so four left the adders half idle.
    constexpr int B = 8;
    for (; i + B * N <= n; i += B * N) {
        F a[B];
#pragma GCC unroll 8
        for (int b = 0; b < B; ++b) a[b] = Vec::zero();
        for (int ky = 0; ky < kh; ++ky) {
            const float* row = rows[ky] + i;
            const float* w = weights + ky * kw;
            for (int kx = 0; kx < kw; ++kx) {
                if (skip(w[kx])) continue;
                const float* src = row + offsets[kx];
                const F wv = Vec::set1(w[kx]);
#pragma GCC unroll 8
                for (int b = 0; b < B; ++b) a[b] = Vec::add(a[b], Vec::mul(wv, Vec::load(src + b * N)));
            }
        }
#pragma GCC unroll 8
        for (int b = 0; b < B; ++b) Vec::store(dst + i + b * N, a[b]);
    }
    for (; i + 4 * N <= n; i += 4 * N) {
        F a0 = Vec::zero(), a1 = Vec::zero(), a2 = Vec::zero(), a3 = Vec::zero();
        for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx) {
                const float weight = weights[ky * kw + kx];
                if (skip(weight)) continue;
                const float* s = rows[ky] + offsets[kx] + i;
                const F w = Vec::set1(weight);
                a0 = Vec::add(a0, Vec::mul(w, Vec::load(s)));
                a1 = Vec::add(a1, Vec::mul(w, Vec::load(s + N)));
                a2 = Vec::add(a2, Vec::mul(w, Vec::load(s + 2 * N)));
                a3 = Vec::add(a3, Vec::mul(w, Vec::load(s + 3 * N)));
            }
        Vec::store(dst + i, a0);
        Vec::store(dst + i + N, a1);
        Vec::store(dst + i + 2 * N, a2);
        Vec::store(dst + i + 3 * N, a3);
    }
    i = vectorSteps(i, n, [&](int at) {
        F a = Vec::zero();
        for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx) {
                const float weight = weights[ky * kw + kx];
                if (!skip(weight)) a = Vec::add(a, Vec::mul(Vec::set1(weight), Vec::load(rows[ky] + offsets[kx] + at)));
            }
        Vec::store(dst + at, a);
    });
    for (; i < n; ++i) {
        float a = 0.0f;
        for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx) {
                const float weight = weights[ky * kw + kx];
                if (!skip(weight)) a = a + weight * rows[ky][i + offsets[kx]];
            }
        dst[i] = a;
    }
}

// Exact integer passes on u8 (integerColumnU8, integerRowU8): 16-bit lanes
// with wrapping adds and multiplies. The caller proves the final sum fits the
// lane (signed or unsigned), so however the partial sums wrap, the lane ends
// at the exact value. AVX-512F has no 16-bit operations (those are AVX-512BW),
// so that build uses the AVX2 lanes.
#if defined(__AVX2__)
struct IVec {
    static constexpr int N = 16;
    using I = __m256i;
    static I widenU8(const std::uint8_t* p) { return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
    static I load(const std::int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    static void store(std::int16_t* p, I v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
    static I set1(std::int16_t v) { return _mm256_set1_epi16(v); }
    static I zero() { return _mm256_setzero_si256(); }
    static I add(I a, I b) { return _mm256_add_epi16(a, b); }
    static I sub(I a, I b) { return _mm256_sub_epi16(a, b); }
    static I mul(I a, I b) { return _mm256_mullo_epi16(a, b); }
    static I band(I a, I b) { return _mm256_and_si256(a, b); }
    static I sra(I a, __m128i c) { return _mm256_sra_epi16(a, c); }
    static I srl(I a, __m128i c) { return _mm256_srl_epi16(a, c); }
    static I subsU(I a, I b) { return _mm256_subs_epu16(a, b); }
    // 32-bit lanes, for integerRowWideU8.
    static I madd(I a, I b) { return _mm256_madd_epi16(a, b); }
    static I lo(I a, I b) { return _mm256_unpacklo_epi16(a, b); }
    static I hi(I a, I b) { return _mm256_unpackhi_epi16(a, b); }
    static I add32(I a, I b) { return _mm256_add_epi32(a, b); }
    static I sra32(I a, __m128i c) { return _mm256_sra_epi32(a, c); }
    static I set1x32(int v) { return _mm256_set1_epi32(v); }
    static I packs32(I a, I b) { return _mm256_packs_epi32(a, b); }
    // Lanes in [-32768, 32767] saturated to [0, 255].
    static void storeU8(std::uint8_t* p, I v) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                         _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
    }
};
#else
struct IVec {
    static constexpr int N = 8;
    using I = __m128i;
    static I widenU8(const std::uint8_t* p) {
        return _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), _mm_setzero_si128());
    }
    static I load(const std::int16_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
    static void store(std::int16_t* p, I v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
    static I set1(std::int16_t v) { return _mm_set1_epi16(v); }
    static I zero() { return _mm_setzero_si128(); }
    static I add(I a, I b) { return _mm_add_epi16(a, b); }
    static I sub(I a, I b) { return _mm_sub_epi16(a, b); }
    static I mul(I a, I b) { return _mm_mullo_epi16(a, b); }
    static I band(I a, I b) { return _mm_and_si128(a, b); }
    static I sra(I a, __m128i c) { return _mm_sra_epi16(a, c); }
    static I srl(I a, __m128i c) { return _mm_srl_epi16(a, c); }
    static I subsU(I a, I b) { return _mm_subs_epu16(a, b); }
    static I madd(I a, I b) { return _mm_madd_epi16(a, b); }
    static I lo(I a, I b) { return _mm_unpacklo_epi16(a, b); }
    static I hi(I a, I b) { return _mm_unpackhi_epi16(a, b); }
    static I add32(I a, I b) { return _mm_add_epi32(a, b); }
    static I sra32(I a, __m128i c) { return _mm_sra_epi32(a, c); }
    static I set1x32(int v) { return _mm_set1_epi32(v); }
    static I packs32(I a, I b) { return _mm_packs_epi32(a, b); }
    static void storeU8(std::uint8_t* p, I v) { _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(v, v)); }
};
#endif
using I = IVec::I;

// Like vectorSteps, for vectors of W lanes.
template <int W, class Step> int laneSteps(int i, int n, Step step) {
    if (i >= n || n < W) return i;
    for (; i + W <= n; i += W) step(i);
    if (i < n) step(n - W);
    return n;
}

// acc + w * x; weights of 1, -1 and 2 (most taps of small binomials and Sobel) skip the multiply.
inline I tapInto(I acc, I x, std::int16_t w) {
    if (w == 1) return IVec::add(acc, x);
    if (w == -1) return IVec::sub(acc, x);
    if (w == 2) return IVec::add(acc, IVec::add(x, x));
    return IVec::add(acc, IVec::mul(x, IVec::set1(w)));
}

void integerColumnU8(const std::uint8_t* const* rows, const std::int16_t* weights, int k, std::int16_t* dst, int n) {
    constexpr int W = IVec::N;
    // Mirrored taps of a symmetric column share one multiply (Gaussian 7:
    // four instead of seven), two vectors at a time for the multiplier's latency.
    bool symmetric = k > 1;
    for (int t = 0; t < k; ++t) symmetric = symmetric && weights[t] == weights[k - 1 - t];
    const int pairs = symmetric ? k / 2 : 0;
    const auto column = [&](int at) {
        I a = IVec::zero();
        for (int p = 0; p < pairs; ++p)
            a = tapInto(a, IVec::add(IVec::widenU8(rows[p] + at), IVec::widenU8(rows[k - 1 - p] + at)), weights[p]);
        for (int t = pairs; t < k - pairs; ++t)
            if (weights[t] != 0) a = tapInto(a, IVec::widenU8(rows[t] + at), weights[t]);
        return a;
    };
    int i = 0;
    if (symmetric)
        for (; i + 2 * W <= n; i += 2 * W) {
            I a = IVec::zero(), b = IVec::zero();
            for (int p = 0; p < pairs; ++p) {
                const std::uint8_t *top = rows[p] + i, *bottom = rows[k - 1 - p] + i;
                a = tapInto(a, IVec::add(IVec::widenU8(top), IVec::widenU8(bottom)), weights[p]);
                b = tapInto(b, IVec::add(IVec::widenU8(top + W), IVec::widenU8(bottom + W)), weights[p]);
            }
            if (k % 2 != 0) {
                a = tapInto(a, IVec::widenU8(rows[pairs] + i), weights[pairs]);
                b = tapInto(b, IVec::widenU8(rows[pairs] + i + W), weights[pairs]);
            }
            IVec::store(dst + i, a);
            IVec::store(dst + i + W, b);
        }
    for (; i + 2 * W <= n; i += 2 * W) {
        I a = IVec::zero(), b = IVec::zero();
        for (int t = 0; t < k; ++t) {
            if (weights[t] == 0) continue;
            a = tapInto(a, IVec::widenU8(rows[t] + i), weights[t]);
            b = tapInto(b, IVec::widenU8(rows[t] + i + W), weights[t]);
        }
        IVec::store(dst + i, a);
        IVec::store(dst + i + W, b);
    }
    i = laneSteps<W>(i, n, [&](int at) { IVec::store(dst + at, column(at)); });
    for (; i < n; ++i) {
        std::uint16_t a = 0;
        for (int t = 0; t < k; ++t) a = static_cast<std::uint16_t>(a + static_cast<std::uint16_t>(weights[t]) * rows[t][i]);
        dst[i] = static_cast<std::int16_t>(a);
    }
}

// s * 2^-shift rounded half to even, saturated to [0, 255]: floor((s + half - 1
// + (q & 1)) / 2^shift) with q = floor(s / 2^shift) rounds up exactly when the
// remainder passes half, or equals it with q odd. The caller keeps s + half in the lane.
template <bool Signed> I roundShift(I s, int shift) {
    if (shift > 0) {
        const __m128i count = _mm_cvtsi32_si128(shift);
        const auto down = [&](I v) { return Signed ? IVec::sra(v, count) : IVec::srl(v, count); };
        const I odd = IVec::band(down(s), IVec::set1(1));
        s = down(IVec::add(IVec::add(s, IVec::set1(static_cast<std::int16_t>((1 << (shift - 1)) - 1))), odd));
    }
    if constexpr (!Signed) s = IVec::sub(s, IVec::subsU(s, IVec::set1(255)));  // unsigned min(s, 255)
    return s;
}

template <bool Signed>
void integerRowU8Typed(const std::int16_t* src, const std::ptrdiff_t* offsets, const std::int16_t* weights, int taps,
                       int shift, std::uint8_t* dst, int n) {
    constexpr int W = IVec::N;
    int i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
        I a = IVec::zero(), b = IVec::zero();
        for (int t = 0; t < taps; ++t) {
            const std::int16_t* s = src + offsets[t] + i;
            a = tapInto(a, IVec::load(s), weights[t]);
            b = tapInto(b, IVec::load(s + W), weights[t]);
        }
        IVec::storeU8(dst + i, roundShift<Signed>(a, shift));
        IVec::storeU8(dst + i + W, roundShift<Signed>(b, shift));
    }
    i = laneSteps<W>(i, n, [&](int at) {
        I a = IVec::zero();
        for (int t = 0; t < taps; ++t) a = tapInto(a, IVec::load(src + offsets[t] + at), weights[t]);
        IVec::storeU8(dst + at, roundShift<Signed>(a, shift));
    });
    for (; i < n; ++i) {
        std::uint16_t a = 0;
        for (int t = 0; t < taps; ++t)
            // Wraps like the 16-bit lanes; unsigned 32-bit products so the wrap is defined.
            a = static_cast<std::uint16_t>(a + std::uint32_t{static_cast<std::uint16_t>(weights[t])} *
                                                   static_cast<std::uint16_t>(src[offsets[t] + i]));
        const int s = Signed ? static_cast<int>(static_cast<std::int16_t>(a)) : static_cast<int>(a);
        const int rounded = shift > 0 ? (s + (1 << (shift - 1)) - 1 + ((s >> shift) & 1)) >> shift : s;
        dst[i] = static_cast<std::uint8_t>(std::clamp(rounded, 0, 255));
    }
}

void integerRowU8(const std::int16_t* src, const std::ptrdiff_t* offsets, const std::int16_t* weights, int taps, int shift,
                  bool isSigned, std::uint8_t* dst, int n) {
    if (isSigned) integerRowU8Typed<true>(src, offsets, weights, taps, shift, dst, n);
    else integerRowU8Typed<false>(src, offsets, weights, taps, shift, dst, n);
}

// Row pass with 32-bit sums of signed 16-bit column sums: taps in pairs
// interleaved and multiplied-and-added (pmaddwd), whose lane order the final
// 32-to-16 pack undoes; then the rounding shift of roundShift in 32 bits.

inline I roundShift32(I s, int shift) {
    if (shift == 0) return s;
    const __m128i count = _mm_cvtsi32_si128(shift);
    const I odd = IVec::band(IVec::sra32(s, count), IVec::set1x32(1));
    return IVec::sra32(IVec::add32(IVec::add32(s, IVec::set1x32((1 << (shift - 1)) - 1)), odd), count);
}

// weightPairs[p]: weights 2p (low half) and 2p + 1 (high half) of the taps, an
// odd count's last pair with weight 0 and offsets[taps] = offsets[taps - 1].
void integerRowWideU8(const std::int16_t* src, const std::ptrdiff_t* offsets, const std::int32_t* weightPairs, int taps,
                      int shift, std::uint8_t* dst, int n) {
    constexpr int W = IVec::N;
    const int pairs = (taps + 1) / 2;
    const auto one = [&](int at) {
        I a = IVec::zero(), b = IVec::zero();
        for (int p = 0; p < pairs; ++p) {
            const I x = IVec::load(src + offsets[2 * p] + at), y = IVec::load(src + offsets[2 * p + 1] + at);
            const I w = IVec::set1x32(weightPairs[p]);
            a = IVec::add32(a, IVec::madd(IVec::lo(x, y), w));
            b = IVec::add32(b, IVec::madd(IVec::hi(x, y), w));
        }
        IVec::storeU8(dst + at, IVec::packs32(roundShift32(a, shift), roundShift32(b, shift)));
    };
    const int i = laneSteps<W>(0, n, one);
    for (int j = i; j < n; ++j) {
        long long a = 0;
        for (int p = 0; p < pairs; ++p) {
            const auto low = static_cast<std::int16_t>(weightPairs[p] & 0xFFFF), high = static_cast<std::int16_t>(weightPairs[p] >> 16);
            a += static_cast<long long>(low) * src[offsets[2 * p] + j] + static_cast<long long>(high) * src[offsets[2 * p + 1] + j];
        }
        const long long rounded = shift > 0 ? (a + (1LL << (shift - 1)) - 1 + ((a >> shift) & 1)) >> shift : a;
        dst[j] = static_cast<std::uint8_t>(std::clamp(rounded, 0LL, 255LL));
    }
}

// Fixed-point passes (fixedColumnU8, fixedRowU8): a kernel's k sources become
// terms, each a source or, when Fold is +1 (-1), the sum (difference) of two
// mirrored sources sharing a weight, then the middle source of an odd k; the
// terms are multiplied and added in pairs (pmaddwd) into exact 32-bit sums,
// which the lane order of the final 32-to-16 pack undoes. The caller bounds
// every sum, and every folded term, to its lane.
template <int Fold, class Source> I foldedTerm(Source source, int k, int p) {
    if (Fold == 0 || p >= k / 2) return source(p);
    const I a = source(p), b = source(k - 1 - p);
    return Fold > 0 ? IVec::add(a, b) : IVec::sub(a, b);
}

template <int Fold> constexpr int termCount(int k) { return Fold == 0 ? k : k / 2 + k % 2; }

// The 32-bit sums of the terms' products, as low and high halves (the
// lanes of IVec::lo and IVec::hi); w[q]: weightPairs[q] in every lane. K > 0
// fixes the source count at compile time (the loop unrolls), 0 takes k.
template <int Fold, int K, class Source> void fixedSums(Source source, int k, const I* w, I& lo, I& hi) {
    if constexpr (K > 0) k = K;
    const int terms = termCount<Fold>(k);
    lo = IVec::zero();
    hi = IVec::zero();
#pragma GCC unroll 16
    for (int p = 0; p + 1 < terms; p += 2) {
        const I x = foldedTerm<Fold>(source, k, p), y = foldedTerm<Fold>(source, k, p + 1);
        lo = IVec::add32(lo, IVec::madd(IVec::lo(x, y), w[p / 2]));
        hi = IVec::add32(hi, IVec::madd(IVec::hi(x, y), w[p / 2]));
    }
    if (terms % 2 != 0) {  // the last pair's high weight is 0
        const I x = foldedTerm<Fold>(source, k, terms - 1);
        lo = IVec::add32(lo, IVec::madd(IVec::lo(x, IVec::zero()), w[terms / 2]));
        hi = IVec::add32(hi, IVec::madd(IVec::hi(x, IVec::zero()), w[terms / 2]));
    }
}

// Room for every kernel's broadcast weight pairs.
constexpr int kMaxFixedTaps = kMaxKernelSize;

template <int Fold> void broadcastPairs(const std::int32_t* weightPairs, int k, I* w) {
    for (int q = 0; q < (termCount<Fold>(k) + 1) / 2; ++q) w[q] = IVec::set1x32(weightPairs[q]);
}

// s / 2^shift rounded half up.
inline I roundUp32(I s, int shift) {
    if (shift == 0) return s;
    return IVec::sra32(IVec::add32(s, IVec::set1x32(1 << (shift - 1))), _mm_cvtsi32_si128(shift));
}

// The scalar form of fixedSums at one sample.
template <int Fold, class Sample> long long fixedSumAt(Sample sample, int k, const std::int32_t* weightPairs) {
    const int terms = termCount<Fold>(k);
    long long sum = 0;
    for (int p = 0; p < terms; ++p) {
        long long term = sample(p);
        if (Fold != 0 && p < k / 2) term = Fold > 0 ? term + sample(k - 1 - p) : term - sample(k - 1 - p);
        const std::int32_t pair = weightPairs[p / 2];
        sum += term * static_cast<std::int16_t>(p % 2 == 0 ? pair & 0xFFFF : (pair >> 16) & 0xFFFF);
    }
    return sum;
}

inline long long roundUpScalar(long long s, int shift) { return shift == 0 ? s : (s + (1LL << (shift - 1))) >> shift; }

template <int Fold, int K>
void fixedColumnU8Typed(const std::uint8_t* const* rows, const std::int32_t* weightPairs, int k, int shift, std::int16_t* dst,
                        int n) {
    constexpr int W = IVec::N;
    I w[kMaxFixedTaps / 2 + 1];
    broadcastPairs<Fold>(weightPairs, k, w);
    const auto one = [&](int at) {
        I lo, hi;
        fixedSums<Fold, K>([&](int t) { return IVec::widenU8(rows[t] + at); }, k, w, lo, hi);
        IVec::store(dst + at, IVec::packs32(roundUp32(lo, shift), roundUp32(hi, shift)));
    };
    const int i = laneSteps<W>(0, n, one);
    for (int j = i; j < n; ++j) {
        const long long s = fixedSumAt<Fold>([&](int t) { return static_cast<long long>(rows[t][j]); }, k, weightPairs);
        dst[j] = static_cast<std::int16_t>(std::clamp(roundUpScalar(s, shift), -32768LL, 32767LL));
    }
}

template <int Fold, int K>
void fixedRowU8Typed(const std::int16_t* src, const std::ptrdiff_t* offsets, const std::int32_t* weightPairs, int k,
                     int shift, std::uint8_t* dst, int n) {
    constexpr int W = IVec::N;
    I w[kMaxFixedTaps / 2 + 1];
    broadcastPairs<Fold>(weightPairs, k, w);
    const auto one = [&](int at) {
        I lo, hi;
        fixedSums<Fold, K>([&](int t) { return IVec::load(src + offsets[t] + at); }, k, w, lo, hi);
        IVec::storeU8(dst + at, IVec::packs32(roundUp32(lo, shift), roundUp32(hi, shift)));
    };
    const int i = laneSteps<W>(0, n, one);
    for (int j = i; j < n; ++j) {
        const long long s = fixedSumAt<Fold>([&](int t) { return static_cast<long long>(src[offsets[t] + j]); }, k, weightPairs);
        dst[j] = static_cast<std::uint8_t>(std::clamp(roundUpScalar(s, shift), 0LL, 255LL));
    }
}

// Symmetric kernels (Gaussians) of 3 to 15 taps unrolled; the rest in loops.
template <class Run> void withFixedShape(int k, int fold, Run run) {
    if (fold > 0) {
        switch (k) {
        case 3: return run(std::integral_constant<int, 1>{}, std::integral_constant<int, 3>{});
        case 5: return run(std::integral_constant<int, 1>{}, std::integral_constant<int, 5>{});
        case 7: return run(std::integral_constant<int, 1>{}, std::integral_constant<int, 7>{});
        case 9: return run(std::integral_constant<int, 1>{}, std::integral_constant<int, 9>{});
        case 11: return run(std::integral_constant<int, 1>{}, std::integral_constant<int, 11>{});
        case 13: return run(std::integral_constant<int, 1>{}, std::integral_constant<int, 13>{});
        case 15: return run(std::integral_constant<int, 1>{}, std::integral_constant<int, 15>{});
        default: return run(std::integral_constant<int, 1>{}, std::integral_constant<int, 0>{});
        }
    }
    if (fold < 0) return run(std::integral_constant<int, -1>{}, std::integral_constant<int, 0>{});
    run(std::integral_constant<int, 0>{}, std::integral_constant<int, 0>{});
}

void fixedColumnU8(const std::uint8_t* const* rows, const std::int32_t* weightPairs, int k, int fold, int shift,
                   std::int16_t* dst, int n) {
    withFixedShape(k, fold, [&](auto f, auto taps) {
        fixedColumnU8Typed<decltype(f)::value, decltype(taps)::value>(rows, weightPairs, k, shift, dst, n);
    });
}

void fixedRowU8(const std::int16_t* src, const std::ptrdiff_t* offsets, const std::int32_t* weightPairs, int k, int fold,
                int shift, std::uint8_t* dst, int n) {
    withFixedShape(k, fold, [&](auto f, auto taps) {
        fixedRowU8Typed<decltype(f)::value, decltype(taps)::value>(src, offsets, weightPairs, k, shift, dst, n);
    });
}

// sums[i] += add[i] - sub[i] in wrapping 16-bit lanes (a running column sum).
void integerSlideU8(std::int16_t* sums, const std::uint8_t* add, const std::uint8_t* sub, int n) {
    constexpr int W = IVec::N;
    int i = 0;
    for (; i + W <= n; i += W)
        IVec::store(sums + i, IVec::add(IVec::load(sums + i), IVec::sub(IVec::widenU8(add + i), IVec::widenU8(sub + i))));
    for (; i < n; ++i) sums[i] = static_cast<std::int16_t>(static_cast<std::uint16_t>(sums[i]) + add[i] - sub[i]);
}

// Unsigned 16-bit lanes s to u8: saturate(round half to even(float(s) * scale)).
inline void storeScaledU8(std::uint8_t* p, I s, __m128 scale) {
#if defined(__AVX2__)
    const __m256 scale8 = _mm256_set_m128(scale, scale);
    const __m256i lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(s)), hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(s, 1));
    const __m256i a = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_cvtepi32_ps(lo), scale8));
    const __m256i b = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_cvtepi32_ps(hi), scale8));
    IVec::storeU8(p, _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
#else
    const __m128i zero = _mm_setzero_si128();
    const __m128i a = _mm_cvtps_epi32(_mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(s, zero)), scale));
    const __m128i b = _mm_cvtps_epi32(_mm_mul_ps(_mm_cvtepi32_ps(_mm_unpackhi_epi16(s, zero)), scale));
    IVec::storeU8(p, _mm_packs_epi32(a, b));
#endif
}

void integerBoxRowU8(const std::int16_t* src, int taps, int step, float scale, std::uint8_t* dst, int n) {
    constexpr int W = IVec::N;
    const __m128 scale4 = _mm_set1_ps(scale);
    int i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
        I a = IVec::load(src + i), b = IVec::load(src + i + W);
        for (int t = 1; t < taps; ++t) {
            a = IVec::add(a, IVec::load(src + t * step + i));
            b = IVec::add(b, IVec::load(src + t * step + i + W));
        }
        storeScaledU8(dst + i, a, scale4);
        storeScaledU8(dst + i + W, b, scale4);
    }
    i = laneSteps<W>(i, n, [&](int at) {
        I a = IVec::load(src + at);
        for (int t = 1; t < taps; ++t) a = IVec::add(a, IVec::load(src + t * step + at));
        storeScaledU8(dst + at, a, scale4);
    });
    for (; i < n; ++i) {
        std::uint16_t a = 0;
        for (int t = 0; t < taps; ++t) a = static_cast<std::uint16_t>(a + static_cast<std::uint16_t>(src[t * step + i]));
        dst[i] = static_cast<std::uint8_t>(std::min(std::nearbyint(static_cast<float>(a) * scale), 255.0f));
    }
}

// u8 boxes in 32-bit sums (boxColumnU32, boxSlideU32, boxRowU32): plain
// loops the compiler vectorizes for this file's instruction set, and a row
// pass that slides along the row, two adds a sample whatever the width.
void boxColumnU32(const std::uint8_t* const* rows, int k, std::int32_t* dst, int n) {
    for (int i = 0; i < n; ++i) dst[i] = rows[0][i];
    for (int t = 1; t < k; ++t) {
        const std::uint8_t* row = rows[t];
        for (int i = 0; i < n; ++i) dst[i] += row[i];
    }
}

void boxSlideU32(std::int32_t* sums, const std::uint8_t* add, const std::uint8_t* sub, int n) {
    for (int i = 0; i < n; ++i) sums[i] += static_cast<std::int32_t>(add[i]) - static_cast<std::int32_t>(sub[i]);
}

// Output i of a channel is output i - Step plus d[i], the sum that enters
// minus the one that leaves. With AVX2, eight outputs at a time: the d of
// eight lanes summed within the vector along lanes Step apart (log steps),
// plus the previous eight outputs' last Step lanes; scalar elsewhere.
inline std::uint8_t boxSampleU8(std::int32_t sum, float scale) {
    return static_cast<std::uint8_t>(std::nearbyint(std::min(static_cast<float>(sum) * scale, 255.0f)));
}

template <int Step> void boxRowU32Typed(const std::int32_t* src, int taps, float scale, std::uint8_t* dst, int n) {
    const std::ptrdiff_t enter = static_cast<std::ptrdiff_t>(taps - 1) * Step;
    std::int32_t run[Step];
    for (int c = 0; c < Step; ++c) {
        run[c] = 0;
        for (int t = 0; t < taps; ++t) run[c] += src[c + t * Step];
    }
    int i = 0;
#if defined(__AVX2__)
    if (n >= 16) {
        alignas(32) std::int32_t first[8];
        for (; i < 8; i += Step)
            for (int c = 0; c < Step && i + c < 8; ++c) {
                if (i > 0) run[c] += src[i + c + enter] - src[i + c - Step];
                first[i + c] = run[c];
            }
        __m256i previous = _mm256_load_si256(reinterpret_cast<const __m256i*>(first));
        const __m256 scaleV = _mm256_set1_ps(scale), top = _mm256_set1_ps(255.0f);
        const auto store = [&](int at, __m256i sums) {
            const __m256 v = _mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(sums), scaleV), top);
            const __m256i r = _mm256_cvtps_epi32(v);
            const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
            _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + at), _mm_packus_epi16(w, w));
        };
        store(0, previous);
        // Lane j of the carry: the previous vector's lane 8 - Step + j % Step.
        const __m256i carryIndex = _mm256_setr_epi32(8 - Step, 8 - Step + 1 % Step, 8 - Step + 2 % Step, 8 - Step + 3 % Step,
                                                     8 - Step + 4 % Step, 8 - Step + 5 % Step, 8 - Step + 6 % Step,
                                                     8 - Step + 7 % Step);
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        for (i = 8; i + 8 <= n; i += 8) {
            const __m256i enters = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + enter));
            const __m256i leaves = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i - Step));
            __m256i x = _mm256_sub_epi32(enters, leaves);
            for (int shift = Step; shift < 8; shift *= 2) {
                const __m256i from = _mm256_sub_epi32(lane, _mm256_set1_epi32(shift));
                const __m256i moved = _mm256_permutevar8x32_epi32(x, from);
                x = _mm256_add_epi32(x, _mm256_andnot_si256(_mm256_srai_epi32(from, 31), moved));
            }
            previous = _mm256_add_epi32(x, _mm256_permutevar8x32_epi32(previous, carryIndex));
            store(i, previous);
        }
        alignas(32) std::int32_t last[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(last), previous);
        for (int c = 0; c < Step; ++c) run[(i - Step + c) % Step] = last[8 - Step + c];
    }
#endif
    for (; i < n; ++i) {  // run[c]: the latest sum of channel c
        std::int32_t& sum = run[i % Step];
        if (i >= Step) sum += src[i + enter] - src[i - Step];
        dst[i] = boxSampleU8(sum, scale);
    }
}

void boxRowU32(const std::int32_t* src, int taps, int step, float scale, std::uint8_t* dst, int n) {
    switch (step) {
    case 1: boxRowU32Typed<1>(src, taps, scale, dst, n); break;
    case 3: boxRowU32Typed<3>(src, taps, scale, dst, n); break;
    default: boxRowU32Typed<4>(src, taps, scale, dst, n); break;
    }
}

// Symmetric kernels fold: sources 2p and 2p + 1 share weights[p] and are added
// (subtracted when Anti) before one multiply-add; then `singles` plain taps.
template <bool Anti> F pairValue(F a, F b) {
    if constexpr (Anti) return Vec::sub(a, b);
    else return Vec::add(a, b);
}
template <bool Anti>
void weightedSumFolded(const float* const* sources, const float* weights, int pairs, int singles, float* dst, int n) {
    const float* const* singleSources = sources + 2 * pairs;
    const float* singleWeights = weights + pairs;
    // Eight accumulators: a fused multiply-add waits ~4 cycles for its
    // accumulator, and two issue per cycle.
    constexpr int B = 8;
    int i = 0;
    for (; i + B * N <= n; i += B * N) {
        F a[B];
#pragma GCC unroll 8
        for (int b = 0; b < B; ++b) a[b] = Vec::zero();
        for (int t = 0; t < singles; ++t) {
            const float* s = singleSources[t] + i;
            const F w = Vec::set1(singleWeights[t]);
#pragma GCC unroll 8
            for (int b = 0; b < B; ++b) a[b] = Vec::fused(w, Vec::load(s + b * N), a[b]);
        }
        for (int p = 0; p < pairs; ++p) {
            const float* s = sources[2 * p] + i;
            const float* u = sources[2 * p + 1] + i;
            const F w = Vec::set1(weights[p]);
#pragma GCC unroll 8
            for (int b = 0; b < B; ++b) a[b] = Vec::fused(w, pairValue<Anti>(Vec::load(s + b * N), Vec::load(u + b * N)), a[b]);
        }
#pragma GCC unroll 8
        for (int b = 0; b < B; ++b) Vec::store(dst + i + b * N, a[b]);
    }
    i = vectorSteps(i, n, [&](int at) {
        F a = Vec::zero();
        for (int t = 0; t < singles; ++t) a = Vec::fused(Vec::set1(singleWeights[t]), Vec::load(singleSources[t] + at), a);
        for (int p = 0; p < pairs; ++p) {
            const F x = Vec::load(sources[2 * p] + at), y = Vec::load(sources[2 * p + 1] + at);
            a = Vec::fused(Vec::set1(weights[p]), pairValue<Anti>(x, y), a);
        }
        Vec::store(dst + at, a);
    });
    for (; i < n; ++i) {
        float a = 0.0f;
        for (int t = 0; t < singles; ++t) a = fusedScalar(singleWeights[t], singleSources[t][i], a);
        for (int p = 0; p < pairs; ++p) {
            const float x = sources[2 * p][i], y = sources[2 * p + 1][i];
            a = fusedScalar(weights[p], Anti ? x - y : x + y, a);
        }
        dst[i] = a;
    }
}

void weightedSumFused(const float* const* sources, const float* weights, int pairs, int singles, bool anti, float* dst,
                      int n) {
    if (anti) weightedSumFolded<true>(sources, weights, pairs, singles, dst, n);
    else weightedSumFolded<false>(sources, weights, pairs, singles, dst, n);
}

void add(float* dst, const float* a, const float* b, int n) {
    int i = 0;
    for (; i + N <= n; i += N) Vec::store(dst + i, Vec::add(Vec::load(a + i), Vec::load(b + i)));
    for (; i < n; ++i) dst[i] = a[i] + b[i];
}

void storeFence() { _mm_sfence(); }

void productAdd(float* dst, const float* x, float w, const float* base, int n) {
    const F wv = Vec::set1(w);
    int i = 0;
    if (base) {
        for (; i + N <= n; i += N) Vec::store(dst + i, Vec::add(Vec::mul(wv, Vec::load(x + i)), Vec::load(base + i)));
        for (; i < n; ++i) dst[i] = w * x[i] + base[i];
    } else {
        for (; i + N <= n; i += N) Vec::store(dst + i, Vec::mul(wv, Vec::load(x + i)));
        for (; i < n; ++i) dst[i] = w * x[i];
    }
}

void slide(float* dst, const float* previous, const float* add, const float* sub, int n) {
    int i = 0;
    for (; i + N <= n; i += N)
        Vec::store(dst + i, Vec::add(Vec::load(previous + i), Vec::sub(Vec::load(add + i), Vec::load(sub + i))));
    for (; i < n; ++i) dst[i] = previous[i] + (add[i] - sub[i]);
}

// The same operations as combineResponses, applyMapping and PixelTraits::store,
// in the same order and unfused, so every lane equals the scalar result.
// Mapped: false for scale 1, offset 0 into an integer type, where v * 1 + 0
// is v (only a -0 would change, and the store maps it to 0 either way).
template <Combine C, bool Abs, bool Mapped, class Out>
F finishVector(const float* first, const float* second, F scale, F offset) {
    F v = Vec::load(first);
    if constexpr (C == Combine::Magnitude) {
        const F b = Vec::load(second);
        v = Vec::sqrt(Vec::add(Vec::mul(v, v), Vec::mul(b, b)));
    }
    if constexpr (Mapped) v = Vec::add(Vec::mul(v, scale), offset);
    if constexpr (Abs) v = Vec::abs(v);
    if constexpr (std::is_same_v<Out, std::uint8_t>) v = Vec::min(Vec::max(v, Vec::zero()), Vec::set1(255.0f));
    if constexpr (std::is_same_v<Out, std::uint16_t>) v = Vec::min(Vec::max(v, Vec::zero()), Vec::set1(65535.0f));
    return v;
}

template <class Out> void streamVector(Out* p, F v) {
    if constexpr (std::is_same_v<Out, std::uint8_t>) Vec::streamU8(p, v);
    else if constexpr (std::is_same_v<Out, std::uint16_t>) Vec::streamU16(p, v);
    else Vec::streamF32(p, v);
}

// A single response has no second row: a null row is passed on, never offset.
inline const float* rowAt(const float* row, int at) { return row ? row + at : nullptr; }

template <Combine C, bool Abs, bool Mapped, class Out>
void finishTyped(const float* first, const float* second, const FinishParams& p, void* dstVoid, int n) {
    Out* dst = static_cast<Out*>(dstVoid);
    const F scale = Vec::set1(p.scale), offset = Vec::set1(p.offset);
    const OutputMapping m{p.scale, p.offset, Abs, false};
    const auto scalar = [&](int i) {
        dst[i] = finishSample<Out>(combineResponses(C, first[i], C == Combine::Magnitude ? second[i] : 0.0f), m);
    };
    int i = 0;
    if constexpr (Vec::kStreams) {
        if (p.stream) {
            // Scalar up to the first aligned vector, then non-temporal stores.
            constexpr std::uintptr_t bytes = sizeof(Out) * N;
            while (i < n && reinterpret_cast<std::uintptr_t>(dst + i) % bytes != 0) scalar(i++);
            for (; i + N <= n; i += N) streamVector(dst + i, finishVector<C, Abs, Mapped, Out>(first + i, rowAt(second, i), scale, offset));
        }
    }
    i = vectorSteps(i, n, [&](int at) {
        const F v = finishVector<C, Abs, Mapped, Out>(first + at, rowAt(second, at), scale, offset);
        if constexpr (std::is_same_v<Out, std::uint8_t>) Vec::storeU8(dst + at, v);
        else if constexpr (std::is_same_v<Out, std::uint16_t>) Vec::storeU16(dst + at, v);
        else Vec::store(dst + at, v);
    });
    for (; i < n; ++i) scalar(i);
}

template <Combine C, bool Abs>
void finishCombined(const float* first, const float* second, const FinishParams& p, void* dst, int n) {
    const bool mapped = p.scale != 1.0f || p.offset != 0.0f;
    switch (p.outDepth) {
    case Depth::U8:
        if (mapped) return finishTyped<C, Abs, true, std::uint8_t>(first, second, p, dst, n);
        return finishTyped<C, Abs, false, std::uint8_t>(first, second, p, dst, n);
    case Depth::U16:
        if (mapped) return finishTyped<C, Abs, true, std::uint16_t>(first, second, p, dst, n);
        return finishTyped<C, Abs, false, std::uint16_t>(first, second, p, dst, n);
    case Depth::F32: break;
    }
    finishTyped<C, Abs, true, float>(first, second, p, dst, n);
}

void finish(const float* first, const float* second, const FinishParams& p, void* dst, int n) {
    if (p.combine == Combine::Magnitude) {
        if (p.absolute) finishCombined<Combine::Magnitude, true>(first, second, p, dst, n);
        else finishCombined<Combine::Magnitude, false>(first, second, p, dst, n);
    } else {
        if (p.absolute) finishCombined<Combine::Single, true>(first, second, p, dst, n);
        else finishCombined<Combine::Single, false>(first, second, p, dst, n);
    }
}

}  // namespace

const RowOps& rowOps() {
    static const RowOps ops{FS_SIMD_ISA_NAME,
                            &widenU8,
                            &widenU16,
                            &weightedSumFused,
                            &columnRowsFused<float>,
                            &columnRowsFused<std::uint8_t>,
                            &columnRowsFused<std::uint16_t>,
                            &denseRowExact,
                            &add,
                            &slide,
                            &finish,
                            &storeFence,
                            &integerColumnU8,
                            &integerRowU8,
                            &integerSlideU8,
                            &integerBoxRowU8,
                            &integerRowWideU8,
                            &fixedColumnU8,
                            &fixedRowU8,
                            &boxColumnU32,
                            &boxSlideU32,
                            &boxRowU32,
                            &productAdd};
    return ops;
}

}  // namespace FS_SIMD_NAMESPACE
}  // namespace fs::cpu::detail::simd
