// The pool behind runOnPool: a queue of small tasks, each a share in one run.
#include "parallel_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace fs::cpu::detail {
namespace {

// One run's bookkeeping, shared with its queued tasks so that a task dequeued
// after the run returned touches only this, never the run's stack.
struct RunState {
    std::mutex mutex;
    std::condition_variable idle;
    bool closed = false;  // the caller is done: tasks not yet started do nothing
    int active = 0;
    std::exception_ptr failure;
    const std::function<void()>* work = nullptr;
};

class Pool {
public:
    Pool() {
        const int threads = coreCount() - 1;
        for (int i = 0; i < threads; ++i) {
            try {
                threads_.emplace_back([this] { loop(); });
            } catch (const std::system_error&) {
                break;  // fewer helpers is slower, not wrong
            }
        }
    }
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : threads_) t.join();
    }

    int size() const { return static_cast<int>(threads_.size()); }

    void submit(const std::shared_ptr<RunState>& run, int count) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (int i = 0; i < count; ++i) queue_.push_back(run);
            queued_.store(static_cast<int>(queue_.size()), std::memory_order_release);
        }
        if (count == 1) wake_.notify_one();
        else wake_.notify_all();
    }

private:
    void loop() {
        for (;;) {
            awaitBriefly();
            std::shared_ptr<RunState> run;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
                if (stopping_) return;
                run = std::move(queue_.front());
                queue_.pop_front();
                queued_.store(static_cast<int>(queue_.size()), std::memory_order_release);
            }
            execute(*run);
        }
    }

    // Before sleeping, a helper yields in a loop for a short while: a thread
    // woken from the condition variable starts tens of microseconds late, as
    // long as a small image's whole run, and runs often come in quick
    // succession (frames, pipeline steps, tiles of a batch). Yielding leaves
    // the core to any other thread that wants it.
    void awaitBriefly() const {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kAwaitMicroseconds);
        while (queued_.load(std::memory_order_acquire) == 0 && !stopping_.load(std::memory_order_relaxed) &&
               std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
    }

    static constexpr int kAwaitMicroseconds = 500;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::shared_ptr<RunState>> queue_;
    std::atomic<int> queued_{0};
    std::atomic<bool> stopping_{false};
    std::vector<std::thread> threads_;

public:
    static void execute(RunState& run) {
        {
            std::lock_guard<std::mutex> lock(run.mutex);
            if (run.closed) return;
            ++run.active;
        }
        try {
            (*run.work)();
        } catch (...) {
            std::lock_guard<std::mutex> lock(run.mutex);
            if (!run.failure) run.failure = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(run.mutex);
        if (--run.active == 0) run.idle.notify_all();
    }
};

Pool& pool() {
    static Pool instance;
    return instance;
}

}  // namespace

int coreCount() {
    static const int cores = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 64u));
    return cores;
}

void runOnPool(int helpers, const std::function<void()>& work) {
    auto run = std::make_shared<RunState>();
    run->work = &work;
    helpers = std::min(helpers, pool().size());
    if (helpers > 0) pool().submit(run, helpers);
    Pool::execute(*run);
    std::unique_lock<std::mutex> lock(run->mutex);
    run->closed = true;
    run->idle.wait(lock, [&] { return run->active == 0; });
    if (run->failure) std::rethrow_exception(run->failure);
}

}  // namespace fs::cpu::detail
