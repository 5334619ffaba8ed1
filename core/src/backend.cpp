#include "fs/backend.hpp"

namespace fs {

std::optional<ModeInfo> Backend::findMode(const std::string& mode) const {
    for (ModeInfo& m : modes())
        if (m.id == mode) return std::move(m);
    return std::nullopt;
}

std::string validateRun(const FilterSpec& spec, ConstImageView input) {
    if (std::string why = validateImage(input); !why.empty()) return why;
    if (std::string why = validateSpec(spec); !why.empty()) return why;
    return {};
}

}  // namespace fs
