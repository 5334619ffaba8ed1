#pragma once
// Internal to gpu/batch: host-side row copies spread over a few threads.
// A batch's results must end in freshly allocated (pageable) fs::Image
// buffers; one thread writing 8 MB of new pages per image is slower than the
// PCIe download of those bytes (page faults plus memcpy), so the copies from
// pinned staging into the results are split across threads.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace fs::gpu::batch {

// rows x rowBytes from src (srcPitch apart) to dst (dstPitch apart).
struct RowCopy {
    unsigned char* dst = nullptr;
    std::size_t dstPitch = 0;
    const unsigned char* src = nullptr;
    std::size_t srcPitch = 0;
    std::size_t rowBytes = 0;
    int rows = 0;
    bool freshDst = false;  // dst is newly allocated pageable memory: worth prefaulting
};

class HostCopier {
public:
    // threads: how many run the copies, the calling thread included (>= 1).
    // prefault: map each destination's pages with one madvise(MADV_POPULATE_WRITE)
    // per piece before writing it, instead of one page fault per 4 KB.
    HostCopier(int threads, bool prefault);
    ~HostCopier();
    HostCopier(const HostCopier&) = delete;
    HostCopier& operator=(const HostCopier&) = delete;

    // Runs every copy, split into pieces of about kPieceBytes, and returns
    // when all are done.
    void run(const std::vector<RowCopy>& copies);
    int threads() const { return static_cast<int>(workers_.size()) + 1; }

    // The default thread count: the cores there are, at most 8 (more contend
    // with the driver's threads: 16 swung from slowest to fastest between
    // runs where 8 was steady; docs/performance.md).
    static int defaultThreads();

private:
    static constexpr std::size_t kPieceBytes = 256 * 1024;
    void workerLoop();
    void drain();

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    // Set under mutex_ before generation_ moves; workers read them after.
    std::vector<RowCopy> pieces_;
    std::atomic<std::size_t> next_{0};
    std::uint64_t generation_ = 0;
    int active_ = 0;  // workers still draining this generation
    bool stop_ = false;
    std::atomic<bool> prefault_;
};

}  // namespace fs::gpu::batch
