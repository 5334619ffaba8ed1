#pragma once
// Row loops of mode "parallel", built once per instruction set (AVX-512,
// AVX2 + FMA, and an SSE2 baseline every x86-64 has) and picked at run time.
#include <cstddef>
#include <cstdint>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"

namespace fs::cpu::detail::simd {

// What happens to each pixel once its kernel responses are known.
struct FinishParams {
    Combine combine = Combine::Single;
    float scale = 1.0f, offset = 0.0f;
    bool absolute = false;
    Depth outDepth = Depth::F32;
    bool stream = false;  // non-temporal stores where the set has them (large outputs)
};

struct RowOps {
    const char* isa = "";
    // Samples to floats, exactly.
    void (*widenU8)(const std::uint8_t* src, float* dst, int n) = nullptr;
    void (*widenU16)(const std::uint16_t* src, float* dst, int n) = nullptr;
    // dst[i] = sum over taps of weight * source[i], as fused multiply-adds where
    // the instruction set has them (separable passes). The first 2 * pairs
    // sources come in pairs sharing weights[p] (a symmetric kernel's mirrored
    // taps), added, or subtracted when `anti`, before the multiply; then
    // `singles` sources with weights[pairs + s].
    void (*weightedSumFused)(const float* const* sources, const float* weights, int pairs, int singles, bool anti,
                             float* dst, int n) = nullptr;
    // Column pass for outRows (1..4) output rows at once, fused:
    // dst[r][i] = sum over t < k of weights[t] * rows[r + t][i]; zero weights
    // are skipped when skipZeros (finite samples only).
    void (*columnRowsFused)(const float* const* rows, const float* weights, int k, bool skipZeros, int outRows,
                            float* const* dst, int n) = nullptr;
    // The same, converting integer samples as it reads them.
    void (*columnRowsFusedU8)(const std::uint8_t* const* rows, const float* weights, int k, bool skipZeros, int outRows,
                              float* const* dst, int n) = nullptr;
    void (*columnRowsFusedU16)(const std::uint16_t* const* rows, const float* weights, int k, bool skipZeros, int outRows,
                               float* const* dst, int n) = nullptr;
    // 2-D kernel, in the reference's arithmetic bit for bit: dst[i] = sum
    // over ky, kx of weights[ky * kw + kx] * rows[ky][i + offsets[kx]], from
    // 0, in (ky, kx) order, each product and sum rounded on its own.
    void (*denseRowExact)(const float* const* rows, const float* weights, int kh, int kw, const std::ptrdiff_t* offsets,
                          bool skipZeros, float* dst, int n) = nullptr;
    // dst[i] = a[i] + b[i]
    void (*add)(float* dst, const float* a, const float* b, int n) = nullptr;
    // dst[i] = previous[i] + (add[i] - sub[i]) (running sums of integers: exact).
    void (*slide)(float* dst, const float* previous, const float* add, const float* sub, int n) = nullptr;
    // Combine, map and store n samples (second is read for Combine::Magnitude only).
    void (*finish)(const float* first, const float* second, const FinishParams& p, void* dst, int n) = nullptr;
    // Orders a thread's non-temporal stores before what it does next.
    void (*storeFence)() = nullptr;
    // Exact integer separable passes on u8, in 16-bit lanes that wrap; the
    // caller proves every final sum fits a lane (signed when isSigned).
    // Column: dst[i] = sum over t < k of weights[t] * rows[t][i].
    void (*integerColumnU8)(const std::uint8_t* const* rows, const std::int16_t* weights, int k, std::int16_t* dst,
                            int n) = nullptr;
    // Row: dst[i] = saturate(round half to even(sum over t of weights[t] *
    // src[offsets[t] + i] / 2^shift)).
    void (*integerRowU8)(const std::int16_t* src, const std::ptrdiff_t* offsets, const std::int16_t* weights, int taps,
                         int shift, bool isSigned, std::uint8_t* dst, int n) = nullptr;
    // Box filters: sums[i] += add[i] - sub[i] (a running column sum, wrapping),
    // and dst[i] = saturate(round half to even(float(S) * scale)) with S the
    // unsigned sum of src[i + t * step] over t < taps (below 2^16).
    void (*integerSlideU8)(std::int16_t* sums, const std::uint8_t* add, const std::uint8_t* sub, int n) = nullptr;
    void (*integerBoxRowU8)(const std::int16_t* src, int taps, int step, float scale, std::uint8_t* dst, int n) = nullptr;
    // integerRowU8 with 32-bit sums of signed 16-bit sources (no wrapping):
    // weightPairs[p] holds tap 2p's weight in its low 16 bits and tap 2p + 1's
    // in its high 16 bits; offsets has an even count (an odd last tap pairs
    // with a weight of 0).
    void (*integerRowWideU8)(const std::int16_t* src, const std::ptrdiff_t* offsets, const std::int32_t* weightPairs,
                             int taps, int shift, std::uint8_t* dst, int n) = nullptr;
    // Fixed-point separable passes on u8 for weights of any value, rounded to
    // integers by the caller, in exact 32-bit sums; the caller bounds every
    // sum to its lane. The k sources of a pass are folded when fold is +1
    // (-1): term p < k / 2 is source p plus (minus) source k - 1 - p, then
    // the middle source of an odd k; otherwise each source is a term.
    // weightPairs[q] holds term 2q's weight in its low 16 bits and term
    // 2q + 1's (0 past the last) in its high 16 bits. Both round half up.
    // Column: dst[i] = (sum over terms of weight * term[i]) / 2^shift, in
    // 16 bits, the sources being rows[t][i].
    void (*fixedColumnU8)(const std::uint8_t* const* rows, const std::int32_t* weightPairs, int k, int fold, int shift,
                          std::int16_t* dst, int n) = nullptr;
    // Row: dst[i] = saturate((sum over terms of weight * term[i]) / 2^shift),
    // the sources being src[offsets[t] + i].
    void (*fixedRowU8)(const std::int16_t* src, const std::ptrdiff_t* offsets, const std::int32_t* weightPairs, int k,
                       int fold, int shift, std::uint8_t* dst, int n) = nullptr;
    // u8 boxes in exact 32-bit sums: dst[i] = sum over t < k of rows[t][i];
    // sums[i] += add[i] - sub[i]; dst[i] = saturate(round half to
    // even(float(S) * scale)) with S the sum of src[i + t * step] over t <
    // taps (below 2^24), step 1, 3 or 4 (the channels).
    void (*boxColumnU32)(const std::uint8_t* const* rows, int k, std::int32_t* dst, int n) = nullptr;
    void (*boxSlideU32)(std::int32_t* sums, const std::uint8_t* add, const std::uint8_t* sub, int n) = nullptr;
    void (*boxRowU32)(const std::int32_t* src, int taps, int step, float scale, std::uint8_t* dst, int n) = nullptr;
    // dst[i] = w * x[i] + base[i], the product rounded then the sum (base
    // null: the product alone); dst may be base.
    void (*productAdd)(float* dst, const float* x, float w, const float* base, int n) = nullptr;
};

const RowOps& avx512RowOps();    // needs AVX-512F
const RowOps& avx2RowOps();      // needs AVX2 and FMA
const RowOps& baselineRowOps();  // SSE2
bool cpuHasAvx512();
bool cpuHasAvx2Fma();
// The set mode "parallel" uses: the fastest this CPU runs unless a test chose
// another with useRowOps (so the baseline is checked on AVX2 machines too).
const RowOps& activeRowOps();
void useRowOps(const RowOps& ops);

}  // namespace fs::cpu::detail::simd
