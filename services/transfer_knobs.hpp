#pragma once
// The CUDA lessons on transfers as knobs the CLI, the benchmark and the
// studio share: pageable vs pinned host memory, serial vs overlapped
// transfers, and a device-memory budget that forces strips (the course
// paper's images larger than its 2 GB GPU); or the image kept on the device,
// as the live preview keeps it, and the kernel timed alone. No CUDA header.
#include <cstddef>
#include <memory>
#include <string>

#include "fs/backend.hpp"
#include "fs/image.hpp"
#include "fs/launch.hpp"

namespace fs {

enum class HostMemory { Pageable, Pinned };
// Resident: the CUDA image is uploaded once and each run filters it on the
// device (ResidentImage); other backends run as usual.
enum class Transfers { Overlapped, Serial, Resident };
const char* hostMemoryName(HostMemory h);  // "pageable", "pinned"
const char* transfersName(Transfers t);    // "overlapped", "serial", "resident"

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

// An image kept on the CUDA device: uploaded once, then each run filters it
// there in one launch and downloads the result; its timing has the kernel and
// the download, no upload. Released when destroyed.
class ResidentImage {
public:
    explicit ResidentImage(ConstImageView image);
    ~ResidentImage();
    ResidentImage(const ResidentImage&) = delete;
    ResidentImage& operator=(const ResidentImage&) = delete;

    // Empty when the image is on the device, else why not (no CUDA build or device, out of memory).
    const std::string& error() const { return error_; }
    double uploadMs() const { return uploadMs_; }
    // `spec` (a valid-size output runs as same size: one launch fills the image) in CUDA mode `mode`.
    RunResult run(const FilterSpec& spec, const std::string& mode, const LaunchConfig& launch = {});

private:
    std::uint64_t handle_ = 0;
    ConstImageView image_;
    double uploadMs_ = 0;
    std::string error_;
};

}  // namespace fs
