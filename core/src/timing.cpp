#include "fs/timing.hpp"

#include <cstdio>

namespace fs {

std::string TimingRecord::toString() const {
    std::string s;
    auto part = [&s](const char* name, const std::optional<double>& ms) {
        if (!ms) return;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%s %.3f ms", s.empty() ? "" : ", ", name, *ms);
        s += buf;
    };
    part("host prep", hostPrepMs);
    part("upload", uploadMs);
    part("kernel", kernelMs);
    part("planes split+merge", layoutMs);
    part("download", downloadMs);
    part("map/unmap", mapMs);
    part("texture+draw", displayMs);
    part("total", totalMs);
    return s.empty() ? "no timings" : s;
}

}  // namespace fs
