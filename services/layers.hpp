#pragma once
// N:M:M layers (fs/layer.hpp) for the CLI and the studio: each backend's own
// one-launch runner, and the one-by-one way it is compared with.
#include <memory>
#include <string>
#include <vector>

#include "fs/backend.hpp"
#include "fs/layer.hpp"

namespace fs {

// The layer runner of backend `backendId` ("cpu": output rows over the cores;
// "cuda": one launch for all outputs), or nullptr when that backend has none
// in this build.
std::unique_ptr<LayerRunner> makeLayerRunner(const std::string& backendId);

// The same layer the long way: N x M runs of `backend` in `mode`, each with a
// raw float result, added on the host in input order, then the bank's
// mapping. Timing: the parts summed over the runs, totalMs the whole.
LayerResult runLayerOneByOne(Backend& backend, const std::string& mode, const KernelBank& bank,
                             const std::vector<ConstImageView>& inputs);

}  // namespace fs
