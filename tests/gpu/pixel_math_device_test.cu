// The device's u8/u16 stores round in the adder (pixel_math.hpp saturateRound)
// instead of with F2I; they must equal the host's nearbyint + clamp for every
// value a filter can produce, ties, NaN and infinities included.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "fs/pixel_math.hpp"
#include "gpu_test_support.hpp"

namespace {

__global__ void saturateOnDevice(const float* in, std::uint8_t* u8, std::uint16_t* u16, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u8[i] = fs::saturateU8(in[i]);
    u16[i] = fs::saturateU16(in[i]);
}

std::vector<float> interestingValues() {
    std::vector<float> v;
    // Every quarter from -4 to 65540: ties (.5) at every integer, both sides of both clamps.
    for (int q = -16; q <= 4 * 65540; ++q) v.push_back(static_cast<float>(q) / 4.0f);
    // Neighbours of ties, one ulp either side, and of the clamp limits.
    for (int k = 0; k < 300; ++k) {
        const float tie = static_cast<float>(k) + 0.5f;
        v.push_back(std::nextafter(tie, 0.0f));
        v.push_back(std::nextafter(tie, 1e9f));
    }
    for (float edge : {0.0f, 255.0f, 65535.0f}) {
        v.push_back(std::nextafter(edge, -1e9f));
        v.push_back(std::nextafter(edge, 1e9f));
    }
    const float inf = std::numeric_limits<float>::infinity();
    for (float special : {-0.0f, std::numeric_limits<float>::quiet_NaN(), inf, -inf, 1e30f, -1e30f,
                          std::numeric_limits<float>::denorm_min(), 4194304.0f, 8388608.5f})
        v.push_back(special);
    std::mt19937 rng(2026);
    std::uniform_real_distribution<float> any(-100.0f, 70000.0f);
    for (int i = 0; i < 200000; ++i) v.push_back(any(rng));
    return v;
}

TEST(DevicePixelMath, SaturatingRoundsEqualTheHost) {
    FS_SKIP_WITHOUT_CUDA();
    const std::vector<float> values = interestingValues();
    const int n = static_cast<int>(values.size());
    float* in = nullptr;
    std::uint8_t* u8 = nullptr;
    std::uint16_t* u16 = nullptr;
    ASSERT_EQ(cudaMalloc(&in, n * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&u8, n), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&u16, n * sizeof(std::uint16_t)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(in, values.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    saturateOnDevice<<<(n + 255) / 256, 256>>>(in, u8, u16, n);
    std::vector<std::uint8_t> got8(n);
    std::vector<std::uint16_t> got16(n);
    ASSERT_EQ(cudaMemcpy(got8.data(), u8, n, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(got16.data(), u16, n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(in);
    cudaFree(u8);
    cudaFree(u16);
    int failures = 0;
    for (int i = 0; i < n && failures < 10; ++i) {
        if (got8[i] != fs::saturateU8(values[i]) || got16[i] != fs::saturateU16(values[i])) {
            ADD_FAILURE() << "value " << values[i] << ": device u8 " << int(got8[i]) << " u16 " << got16[i]
                          << ", host u8 " << int(fs::saturateU8(values[i])) << " u16 " << fs::saturateU16(values[i]);
            ++failures;
        }
    }
    // The sweep reaches both clamps and the ties.
    EXPECT_EQ(fs::saturateU8(2.5f), 2);
    EXPECT_EQ(fs::saturateU16(65534.5f), 65534);
}

}  // namespace
