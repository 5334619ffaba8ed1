// What the host says of itself: the NVIDIA module's version for benchmark
// records and the device list, from both forms of the driver's version line.
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "fs/host_info.hpp"

namespace fs {
namespace {

TEST(HostInfo, NvidiaModuleVersionIsReadFromTheDriversVersionFile) {
    const std::string path = ::testing::TempDir() + "fs-nvidia-version";
    std::ofstream(path) << "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
                           "(dvs-builder@U22-I3-AF03-09-1)  Tue Sep 23 09:41:17 UTC 2025\n";
    EXPECT_EQ(nvidiaModuleVersion(path), "580.95.05");
    std::ofstream(path) << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 2025\n";
    EXPECT_EQ(nvidiaModuleVersion(path), "580.159.04");
    std::remove(path.c_str());
    EXPECT_EQ(nvidiaModuleVersion("/nonexistent/nvidia/version"), "");
}

}  // namespace
}  // namespace fs
