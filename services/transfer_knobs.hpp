#pragma once
// The CUDA lessons on transfers as knobs the CLI, the benchmark and the
// studio share: pageable vs pinned host memory, serial vs overlapped
// transfers, and a device-memory budget that forces strips (the course
// paper's images larger than its 2 GB GPU). No CUDA header.
#include <cstddef>
#include <memory>
#include <string>

#include "fs/image.hpp"

namespace fs {

enum class HostMemory { Pageable, Pinned };
enum class Transfers { Overlapped, Serial };
const char* hostMemoryName(HostMemory h);  // "pageable", "pinned"
const char* transfersName(Transfers t);    // "overlapped", "serial"

struct TransferKnobs {
    HostMemory host = HostMemory::Pageable;
    Transfers transfers = Transfers::Overlapped;  // serial: the whole image in one piece, upload then kernel then download
    std::size_t deviceBudgetBytes = 0;            // 0: the engine's own (80% of free memory); less forces strips
    bool isDefault() const {
        return host == HostMemory::Pageable && transfers == Transfers::Overlapped && deviceBudgetBytes == 0;
    }
};

// Sets the CUDA backend's process-wide knobs (serial/overlapped, budget).
// Empty on success; why not when this build has no CUDA and a knob is not its default.
std::string applyTransferKnobs(const TransferKnobs& knobs);

// The image a run reads: a page-locked copy for HostMemory::Pinned (kept
// alive by `memory`), else the image itself.
struct HostInput {
    ConstImageView view;
    std::shared_ptr<void> memory;
    std::string error;
    bool ok() const { return error.empty(); }
};
HostInput hostInputFor(ConstImageView image, HostMemory host);

}  // namespace fs
