// Mode "auto" and the mode registry. Auto runs the registers mode for kernels
// up to 7x7, the separable mode for larger rank-1 kernels (kw + kh work
// instead of kw * kh), otherwise the shared-memory mode: the fastest correct
// choice in filterstudio-bench's table of every mode (bench/results/).
#include <algorithm>

#include "launch.hpp"

namespace fs::gpu {

const ModeImpl& chooseAutoMode(const PreparedFilter& f) {
    if (std::max(f.math.kw, f.math.kh) <= 7) return registersMode();
    if (f.separable && separableMode().supports(f).empty()) return separableMode();
    if (sharedMode().supports(f).empty()) return sharedMode();
    return constantMode();
}

const std::vector<const char*>& modeIds() {
    static const std::vector<const char*> ids{"global", "constant", "shared", "texture", "separable", "registers", "auto"};
    return ids;
}

const ModeImpl* findModeImpl(const std::string& id, const PreparedFilter& f) {
    if (id == "auto") return &chooseAutoMode(f);
    for (const ModeImpl* m :
         {&globalMode(), &constantMode(), &sharedMode(), &textureMode(), &separableMode(), &registersMode()})
        if (id == m->id) return m;
    return nullptr;
}

}  // namespace fs::gpu
