#pragma once
// Internal, plain C++: the engine's pinned host staging, one growable buffer
// per key (a pipeline or batch slot's input or output side), kept between
// runs and freed together under memory pressure. The allocator is a
// parameter so the bookkeeping is tested without a device.
#include <cstddef>
#include <map>
#include <utility>

namespace fs::gpu {

// Who stages through which buffer: keys never collide between clients.
enum class StagingUser { Pipeline = 0, Batch = 1 };
enum class StagingSide { In = 0, Out = 1 };
constexpr int stagingKey(StagingUser user, int slot, StagingSide side) {
    return static_cast<int>(user) * 1024 + slot * 2 + static_cast<int>(side);
}

// Allocator: void* allocate(std::size_t) (nullptr on failure), void free(void*).
template <class Allocator> class StagingPool {
public:
    explicit StagingPool(Allocator allocator = {}) : allocator_(std::move(allocator)) {}
    ~StagingPool() { releaseAll(); }
    StagingPool(const StagingPool&) = delete;
    StagingPool& operator=(const StagingPool&) = delete;

    // At least `bytes` for `key`: the buffer it had when large enough, else a
    // new one (the old contents are dropped). nullptr when allocation fails;
    // the key then holds nothing.
    unsigned char* reserve(int key, std::size_t bytes) {
        Entry& e = entries_[key];
        if (e.ptr && e.bytes >= bytes) return static_cast<unsigned char*>(e.ptr);
        drop(e);
        e.ptr = allocator_.allocate(bytes);
        if (e.ptr) {
            e.bytes = bytes;
            total_ += bytes;
            ++allocations_;
        }
        return static_cast<unsigned char*>(e.ptr);
    }

    // The key's buffer (nullptr when it has none) and its size.
    unsigned char* data(int key) const {
        const auto it = entries_.find(key);
        return it == entries_.end() ? nullptr : static_cast<unsigned char*>(it->second.ptr);
    }
    std::size_t bytes(int key) const {
        const auto it = entries_.find(key);
        return it == entries_.end() ? 0 : it->second.bytes;
    }
    std::size_t totalBytes() const { return total_; }
    int allocations() const { return allocations_; }  // successful allocations so far

    void release(int key) {
        if (auto it = entries_.find(key); it != entries_.end()) {
            drop(it->second);
            entries_.erase(it);
        }
    }
    void releaseAll() {
        for (auto& [key, e] : entries_) drop(e);
        entries_.clear();
    }

    Allocator& allocator() { return allocator_; }

private:
    struct Entry {
        void* ptr = nullptr;
        std::size_t bytes = 0;
    };
    void drop(Entry& e) {
        if (e.ptr) allocator_.free(e.ptr);
        total_ -= e.bytes;
        e = Entry{};
    }

    Allocator allocator_;
    std::map<int, Entry> entries_;
    std::size_t total_ = 0;
    int allocations_ = 0;
};

}  // namespace fs::gpu
