// The registry of CUDA modes: the one list the backend, "auto", the tuner,
// the batch runner and the tools read. A mode's id lives in its ModeImpl only.
#include "launch.hpp"

namespace fs::gpu {

const std::vector<const ModeImpl*>& registeredModes() {
    // The teaching variants sit beside the tuned modes they explain.
    static const std::vector<const ModeImpl*> modes{
        &globalMode(),    &global1dMode(),  &constantMode(), &sharedTextbookMode(), &sharedMode(), &textureMode(),
        &separableMode(), &registersMode(), &fftMode(),      &tensorMode(),         &autoMode()};
    return modes;
}

const ModeImpl* findRegisteredMode(const std::string& id) {
    for (const ModeImpl* m : registeredModes())
        if (id == m->id) return m;
    return nullptr;
}

const ModeImpl& modeFor(const ModeImpl& mode, const PreparedFilter& f) {
    return mode.choosesPerFilter() ? mode.choose(f) : mode;
}

const ModeImpl* findModeImpl(const std::string& id, const PreparedFilter& f) {
    const ModeImpl* m = findRegisteredMode(id);
    return m ? &modeFor(*m, f) : nullptr;
}

}  // namespace fs::gpu
