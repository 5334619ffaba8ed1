#include "fs/timing.hpp"

#include <algorithm>
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

double coveredMs(std::vector<std::pair<double, double>> intervals) {
    std::sort(intervals.begin(), intervals.end());
    double covered = 0, reached = -1e300;
    for (const auto& [begin, end] : intervals) {
        const double from = std::max(begin, reached);
        if (end > from) covered += end - from;
        reached = std::max(reached, end);
    }
    return covered;
}

}  // namespace fs
