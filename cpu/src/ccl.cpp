// Connected components, 4-connectivity, two passes: the first gives each run
// of foreground a provisional label and merges labels that touch in a
// union-find whose root is always the smallest label; the second renumbers
// roots in increasing order, which is raster order of each object's first pixel.
#include <algorithm>
#include <stdexcept>

#include "cpu_common.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/pipeline.hpp"

namespace fs::cpu {

namespace {

std::int32_t findRoot(std::vector<std::int32_t>& parent, std::int32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];  // path halving keeps trees shallow
        x = parent[x];
    }
    return x;
}

}  // namespace

long long labelComponents(ConstImageView mask, std::vector<std::int32_t>& labels) {
    if (std::string why = validateImage(mask); !why.empty()) throw std::invalid_argument("label: " + why);
    if (mask.channels != 1)
        throw std::invalid_argument("label: needs a 1-channel image, got " + std::to_string(mask.channels) +
                                    " channels (add a grayscale step before it)");
    const std::size_t width = static_cast<std::size_t>(mask.width);
    labels.assign(width * static_cast<std::size_t>(mask.height), 0);
    std::vector<std::int32_t> parent{0};
    detail::withSampleType(mask.depth, [&](auto sample) {
        using T = decltype(sample);
        for (int y = 0; y < mask.height; ++y) {
            const T* src = mask.row<T>(y);
            std::int32_t* row = labels.data() + static_cast<std::size_t>(y) * width;
            const std::int32_t* above = y > 0 ? row - width : nullptr;
            for (std::size_t x = 0; x < width; ++x) {
                if (src[x] == T{0}) continue;  // NaN counts as foreground: it is not zero
                const std::int32_t left = x > 0 ? row[x - 1] : 0;
                const std::int32_t up = above ? above[x] : 0;
                if (left == 0 && up == 0) {
                    row[x] = static_cast<std::int32_t>(parent.size());
                    parent.push_back(row[x]);
                } else if (left != 0 && up != 0 && left != up) {
                    const std::int32_t a = findRoot(parent, left), b = findRoot(parent, up);
                    parent[std::max(a, b)] = std::min(a, b);
                    row[x] = std::min(a, b);
                } else {
                    row[x] = left != 0 ? left : up;
                }
            }
        }
    });
    // A root is the smallest label of its set, so every root comes before its members here.
    std::vector<std::int32_t> final(parent.size(), 0);
    std::int32_t count = 0;
    for (std::size_t i = 1; i < parent.size(); ++i) {
        const std::int32_t root = findRoot(parent, static_cast<std::int32_t>(i));
        final[i] = root == static_cast<std::int32_t>(i) ? ++count : final[static_cast<std::size_t>(root)];
    }
    for (std::int32_t& l : labels) l = final[static_cast<std::size_t>(l)];
    return count;
}

Image labelImage(ConstImageView mask, long long& count) {
    std::vector<std::int32_t> labels;
    count = labelComponents(mask, labels);
    if (count > kMaxLabelCount) throw std::invalid_argument(tooManyObjects(count));
    Image out(mask.width, mask.height, 1, Depth::F32);
    ImageView o = out.view();
    for (int y = 0; y < mask.height; ++y) {
        float* dst = o.row<float>(y);
        const std::int32_t* src = labels.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(mask.width);
        for (int x = 0; x < mask.width; ++x) dst[x] = static_cast<float>(src[x]);
    }
    return out;
}

}  // namespace fs::cpu
