#include "fs/launch.hpp"

#include <cstdio>
#include <cstdlib>

namespace fs {

const char* haloSchemeName(HaloScheme h) {
    switch (h) {
    case HaloScheme::Cooperative: return "cooperative";
    case HaloScheme::PerThread: return "per-thread";
    default: return "default";
    }
}

bool parseHaloScheme(const std::string& s, HaloScheme& out) {
    for (HaloScheme h : {HaloScheme::Default, HaloScheme::Cooperative, HaloScheme::PerThread})
        if (s == haloSchemeName(h)) return out = h, true;
    return false;
}

const char* radiusPathName(RadiusPath r) {
    switch (r) {
    case RadiusPath::Compiled: return "compiled";
    case RadiusPath::Runtime: return "runtime";
    default: return "default";
    }
}

bool parseRadiusPath(const std::string& s, RadiusPath& out) {
    for (RadiusPath r : {RadiusPath::Default, RadiusPath::Compiled, RadiusPath::Runtime})
        if (s == radiusPathName(r)) return out = r, true;
    return false;
}

const char* channelLayoutName(ChannelLayout l) { return l == ChannelLayout::Planar ? "planar" : "interleaved"; }

bool parseChannelLayout(const std::string& s, ChannelLayout& out) {
    for (ChannelLayout l : {ChannelLayout::Interleaved, ChannelLayout::Planar})
        if (s == channelLayoutName(l)) return out = l, true;
    return false;
}

bool LaunchConfig::isDefault() const { return *this == LaunchConfig{}; }

bool LaunchConfig::operator==(const LaunchConfig& o) const {
    return blockX == o.blockX && blockY == o.blockY && perThreadX == o.perThreadX && perThreadY == o.perThreadY &&
           halo == o.halo && radius == o.radius && layout == o.layout;
}

std::string LaunchConfig::toString() const {
    std::string s;
    auto add = [&s](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
    if (blockX > 0 && blockY > 0) add("block " + std::to_string(blockX) + "x" + std::to_string(blockY));
    if (perThreadX > 0 && perThreadY > 0)
        add(std::to_string(perThreadX) + "x" + std::to_string(perThreadY) + " per thread");
    if (halo != HaloScheme::Default) add(std::string("halo ") + haloSchemeName(halo));
    if (radius != RadiusPath::Default) add(std::string("radius ") + radiusPathName(radius));
    if (layout != ChannelLayout::Interleaved) add(channelLayoutName(layout));
    return s.empty() ? "default launch" : s;
}

std::string LaunchConfig::shortLabel() const {
    auto shape = [](int x, int y) { return x > 0 && y > 0 ? std::to_string(x) + "x" + std::to_string(y) : "-"; };
    return shape(blockX, blockY) + " / " + shape(perThreadX, perThreadY) +
           (layout == ChannelLayout::Planar ? " planar" : "");
}

bool parseShape(const std::string& text, int& x, int& y) {
    const std::size_t sep = text.find_first_of("xX");
    if (sep == std::string::npos || sep == 0 || sep + 1 >= text.size()) return false;
    auto number = [](const std::string& part, int& out) {
        if (part.empty() || part.size() > 4 || part.find_first_not_of("0123456789") != std::string::npos) return false;
        out = std::atoi(part.c_str());
        return out > 0 && out <= 4096;
    };
    int a = 0, b = 0;
    if (!number(text.substr(0, sep), a) || !number(text.substr(sep + 1), b)) return false;
    x = a, y = b;
    return true;
}

bool TuneKey::operator==(const TuneKey& o) const {
    return gpu == o.gpu && mode == o.mode && radiusX == o.radiusX && radiusY == o.radiusY && depth == o.depth &&
           channels == o.channels && kernels == o.kernels && sizeClass == o.sizeClass;
}

std::string sizeClass(int width, int height) {
    const double mp = static_cast<double>(width) * height / (1 << 20);
    for (const auto& [limit, name] : {std::pair{0.25, "<=0.25MP"}, {1.0, "<=1MP"}, {4.0, "<=4MP"}, {16.0, "<=16MP"},
                                       {64.0, "<=64MP"}})
        if (mp <= limit) return name;
    return ">64MP";
}

}  // namespace fs

namespace fs {

std::string Explanation::sentence() const {
    if (!ok()) return "cannot run: " + error;
    std::string s = "runs " + mode;
    if (!rule.empty()) s += " (rule \"" + rule + "\")";
    if (!kernel.empty()) s += ": " + kernel;
    if (!why.empty()) s += " — " + why;
    return s;
}

}  // namespace fs
