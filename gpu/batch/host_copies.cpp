#include "host_copies.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace fs::gpu::batch {

namespace {

// Maps the whole pages inside [p, p + bytes) writable in one call; false when
// the kernel does not know MADV_POPULATE_WRITE (the copy then faults them in).
bool populate(unsigned char* p, std::size_t bytes) {
    static const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) / page * page;
    if (end <= begin) return true;
    return madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0;
}

}  // namespace

HostCopier::HostCopier(int threads, bool prefault) : prefault_(prefault) {
    for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this] { workerLoop(); });
}

HostCopier::~HostCopier() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
}

int HostCopier::defaultThreads() {
    const unsigned cores = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(cores, 1u, 8u));
}

void HostCopier::run(const std::vector<RowCopy>& copies) {
    std::vector<RowCopy> pieces;
    for (const RowCopy& c : copies) {
        if (c.rows <= 0 || c.rowBytes == 0) continue;
        const int rowsPerPiece = static_cast<int>(std::max<std::size_t>(1, kPieceBytes / c.rowBytes));
        for (int r = 0; r < c.rows; r += rowsPerPiece) {
            RowCopy p = c;
            p.dst += static_cast<std::size_t>(r) * c.dstPitch;
            p.src += static_cast<std::size_t>(r) * c.srcPitch;
            p.rows = std::min(rowsPerPiece, c.rows - r);
            pieces.push_back(p);
        }
    }
    if (pieces.empty()) return;
    const bool alone = workers_.empty() || pieces.size() == 1;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pieces_ = std::move(pieces);
        next_ = 0;
        if (!alone) {
            active_ = static_cast<int>(workers_.size());
            ++generation_;
        }
    }
    if (!alone) wake_.notify_all();
    drain();
    if (alone) return;
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return active_ == 0; });
}

void HostCopier::drain() {
    for (std::size_t i; (i = next_.fetch_add(1)) < pieces_.size();) {
        const RowCopy& p = pieces_[i];
        if (p.freshDst && prefault_.load(std::memory_order_relaxed) &&
            !populate(p.dst, p.dstPitch * static_cast<std::size_t>(p.rows - 1) + p.rowBytes))
            prefault_ = false;  // an older kernel: plain page faults from now on
        if (p.dstPitch == p.rowBytes && p.srcPitch == p.rowBytes) {
            std::memcpy(p.dst, p.src, p.rowBytes * static_cast<std::size_t>(p.rows));
            continue;
        }
        for (int r = 0; r < p.rows; ++r)
            std::memcpy(p.dst + static_cast<std::size_t>(r) * p.dstPitch, p.src + static_cast<std::size_t>(r) * p.srcPitch,
                        p.rowBytes);
    }
}

void HostCopier::workerLoop() {
    std::uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
        }
        drain();
        std::lock_guard<std::mutex> lock(mutex_);
        if (--active_ == 0) finished_.notify_one();
    }
}

}  // namespace fs::gpu::batch
