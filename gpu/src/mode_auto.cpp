// Mode "auto" and the mode registry. Auto runs the separable mode for rank-1
// kernels wider than 3 taps (kw + kh work instead of kw * kh), otherwise the
// shared-memory mode: the fastest correct pair measured by filterstudio-bench.
#include <algorithm>

#include "launch.hpp"

namespace fs::gpu {

const ModeImpl& chooseAutoMode(const PreparedFilter& f) {
    if (f.separable && std::max(f.math.kw, f.math.kh) > 3 && separableMode().supports(f).empty())
        return separableMode();
    if (sharedMode().supports(f).empty()) return sharedMode();
    return constantMode();
}

const std::vector<const char*>& modeIds() {
    static const std::vector<const char*> ids{"global", "constant", "shared", "texture", "separable", "auto"};
    return ids;
}

const ModeImpl* findModeImpl(const std::string& id, const PreparedFilter& f) {
    if (id == "auto") return &chooseAutoMode(f);
    for (const ModeImpl* m : {&globalMode(), &constantMode(), &sharedMode(), &textureMode(), &separableMode()})
        if (id == m->id) return m;
    return nullptr;
}

}  // namespace fs::gpu
