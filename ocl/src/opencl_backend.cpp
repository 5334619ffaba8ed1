// Backend "opencl": uploads the input into a cv::UMat, runs the OpenCV filter
// pipeline shared with the CPU "opencv-exact" mode (fs/cpu/opencv_filter.hpp) on it,
// so OpenCV's transparent API runs every step as an OpenCL kernel, and
// downloads the result. The two modes differ only in whether rank-1 kernels
// are split, so they are two rows of one table rather than two files.
#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>

#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "fs/cpu/opencv_filter.hpp"
#include "fs/io/cv_image.hpp"
#include "fs/ocl/opencl_backend.hpp"

namespace fs::opencl {
namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct OclMode {
    ModeInfo info;
    cpu::cvfilter::Separation separation;
};

std::vector<OclMode> openClModes() {
    return {
        {{"filter2d",
          "cv::filter2D on a cv::UMat: OpenCV writes an OpenCL kernel for this exact filter, the device driver "
          "compiles it at first use, and it runs on the OpenCL device. OpenCL is the vendor-neutral standard "
          "(Khronos) for GPUs and CPUs of any maker; CUDA is NVIDIA's own. On an NVIDIA GPU both run on the same "
          "hardware, so the gap to the CUDA modes is compiler and kernel design, not silicon. Always a full 2-D window; "
          "the first run of a new filter also pays for compiling it.",
          true, {}},
         cpu::cvfilter::Separation::Never},
        {{"auto",
          "Like filter2d, but a kernel that splits into a row and a column (rank 1, e.g. Gaussian, Sobel) runs as "
          "cv::sepFilter2D: a row pass then a column pass on the OpenCL device, k+k reads a pixel instead of k*k. "
          "Compare with the CUDA modes: one general library kernel against ones written for this program.",
          true, {}, /*isReference=*/false, /*isDefault=*/true},
         cpu::cvfilter::Separation::WhenRank1},
    };
}

// Says what OpenCL does exist, so a student sees why OpenCV chose no device.
std::string describeMissingDevice() {
    std::vector<cv::ocl::PlatformInfo> platforms;
    cv::ocl::getPlatfomsInfo(platforms);  // (sic) OpenCV's spelling
    if (platforms.empty()) return "no OpenCL platform/device found (no OpenCL driver (ICD) is installed)";
    std::string found;
    bool anyGpu = false;
    for (const cv::ocl::PlatformInfo& p : platforms) {
        for (int i = 0; i < p.deviceNumber(); ++i) {
            cv::ocl::Device d;
            p.getDevice(d, i);
            anyGpu = anyGpu || (d.type() & cv::ocl::Device::TYPE_GPU) != 0;  // also dGPU / iGPU
            found += (found.empty() ? "" : ", ") + p.name() + ": " + d.name();
        }
    }
    if (found.empty()) return "no OpenCL device found (the OpenCL platforms list no devices)";
    if (!anyGpu)
        return "no OpenCL GPU device found (only " + found +
               "; OpenCV's default device skips CPU devices, so it is offered as the backend \"OpenCL on the CPU\")";
    return "OpenCV could not use any OpenCL device (found " + found + "; check OPENCV_OPENCL_DEVICE)";
}

std::string findUnavailableReason() {
    try {
        if (!cv::ocl::haveOpenCL()) return "no OpenCL platform/device found (no OpenCL runtime, or none OpenCV can load)";
        cv::ocl::setUseOpenCL(true);
        if (cv::ocl::useOpenCL() && cv::ocl::Device::getDefault().available()) return {};
        return describeMissingDevice();
    } catch (const cv::Exception& e) {
        return "OpenCL initialisation failed: " + e.msg;
    } catch (const std::exception& e) {
        return std::string("OpenCL initialisation failed: ") + e.what();
    }
}

// PoCL, the usual OpenCL driver for CPUs, aborts the whole process when it
// cannot write its kernel cache or runs out of file descriptors while it
// compiles. These are checked before it is asked to, so the backend says why
// it cannot run instead.
bool poclInstalled() {
    static const bool pocl = [] {
        std::vector<cv::ocl::PlatformInfo> platforms;
        cv::ocl::getPlatfomsInfo(platforms);
        for (const cv::ocl::PlatformInfo& p : platforms)
            if (p.name().find("Portable Computing Language") != std::string::npos) return true;
        return false;
    }();
    return pocl;
}

std::string poclHeadroom() {
    namespace fsys = std::filesystem;
    constexpr rlim_t kFreeDescriptorsNeeded = 64;  // a compile opens its sources, objects and cache files
    if (rlimit limit{}; ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        std::error_code ec;
        rlim_t open = 0;
        for (fsys::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++open;
        if (ec.value() == EMFILE || ec.value() == ENFILE) return "no file descriptor is free (ulimit -n " + std::to_string(limit.rlim_cur) + ")";
        if (!ec && open + kFreeDescriptorsNeeded > limit.rlim_cur)
            return "only " + std::to_string(limit.rlim_cur - std::min(open, limit.rlim_cur)) + " file descriptors are free (ulimit -n " +
                   std::to_string(limit.rlim_cur) + "); PoCL needs about " + std::to_string(kFreeDescriptorsNeeded) + " to compile";
    }
    if (const char* off = std::getenv("POCL_KERNEL_CACHE"); off && std::string(off) == "0") return {};
    fsys::path cache;
    if (const char* dir = std::getenv("POCL_CACHE_DIR"); dir && *dir) cache = dir;
    else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) cache = fsys::path(xdg) / "pocl" / "kcache";
    else if (const char* home = std::getenv("HOME"); home && *home) cache = fsys::path(home) / ".cache" / "pocl" / "kcache";
    else return {};  // PoCL then caches under its own temporary folder
    const std::string fix = " (set POCL_CACHE_DIR to a writable folder, or POCL_KERNEL_CACHE=0)";
    fsys::path probe = cache;  // the folder that exists now, where PoCL would create the rest
    std::error_code ec;
    while (!fsys::exists(probe, ec) && probe.has_parent_path() && probe != probe.parent_path()) probe = probe.parent_path();
    if (!fsys::is_directory(probe, ec))
        return "its kernel cache " + cache.string() + " cannot be made: " + probe.string() + " is not a folder" + fix;
    if (::access(probe.c_str(), W_OK | X_OK) != 0)
        return "its kernel cache " + cache.string() + " cannot be written: " + probe.string() + " is not writable" + fix;
    constexpr unsigned long long kFreeBytesNeeded = 16ull << 20;
    if (struct statvfs disk {}; ::statvfs(probe.c_str(), &disk) == 0) {
        const unsigned long long free = static_cast<unsigned long long>(disk.f_bavail) * disk.f_frsize;
        if (free < kFreeBytesNeeded)
            return "the disk of its kernel cache " + cache.string() + " has " + std::to_string(free >> 10) + " KiB free" + fix;
    }
    return {};
}

// Why PoCL would abort now; empty when it is not the CPU's driver or has room.
std::string cpuDriverHeadroom() { return poclInstalled() ? poclHeadroom() : std::string(); }

// OpenCV's default context never takes a CPU device unless OPENCV_OPENCL_DEVICE says so before the first
// OpenCL call. A context of our own on the first CPU device needs neither the variable nor a restart: runs
// bind it to their thread for their duration (cv::ocl::OpenCLExecutionContextScope).
struct CpuDevice {
    cv::ocl::OpenCLExecutionContext context;
    std::string name;
    std::string reason;  // empty when usable
};

const CpuDevice& cpuDevice() {
    // Never destroyed: releasing an OpenCL context while the driver unloads at exit is not safe.
    static const CpuDevice* const device = new CpuDevice([] {
        CpuDevice d;
        try {
            if (!cv::ocl::haveOpenCL()) {
                d.reason = "no OpenCL runtime, or none OpenCV can load";
                return d;
            }
            cv::ocl::Context context = cv::ocl::Context::create(":CPU:");
            if (context.ptr() == nullptr || context.ndevices() == 0) {
                d.reason = "no OpenCL CPU device found (an OpenCL driver for the CPU, such as PoCL "
                           "(Debian package pocl-opencl-icd), provides one)";
                return d;
            }
            const cv::ocl::Device& cpu = context.device(0);
            d.context = cv::ocl::OpenCLExecutionContext::create(context, cpu);
            d.name = cpu.name();
        } catch (const cv::Exception& e) {
            d.reason = "OpenCL CPU context failed: " + e.msg;
        } catch (const std::exception& e) {
            d.reason = std::string("OpenCL CPU context failed: ") + e.what();
        }
        return d;
    }());
    return *device;
}

// Binds the CPU context to this thread for a run and afterwards puts back what was bound, or nothing, so
// that a later "opencl" run on the thread gets OpenCV's default device again (OpenCV's own scope keeps the
// CPU context bound when the thread had none before).
class CpuContextScope {
public:
    explicit CpuContextScope(const cv::ocl::OpenCLExecutionContext& cpu)
        : previous_(cv::ocl::OpenCLExecutionContext::getCurrentRef()) {
        cpu.bind();
    }
    ~CpuContextScope() {
        if (!previous_.empty()) previous_.bind();
        else cv::ocl::OpenCLExecutionContext::getCurrentRef() = cv::ocl::OpenCLExecutionContext();
    }
    CpuContextScope(const CpuContextScope&) = delete;
    CpuContextScope& operator=(const CpuContextScope&) = delete;

private:
    cv::ocl::OpenCLExecutionContext previous_;
};

const char* const kCpuReason =
    "OpenCL on the CPU: the same OpenCL kernels, compiled by the CPU's OpenCL driver and run on its cores. "
    "OpenCV's default OpenCL device ignores CPUs, so FilterStudio makes an OpenCL context of its own on the CPU "
    "for this choice (no restart, no OPENCV_OPENCL_DEVICE). Compare it with cpu/opencv-exact, the same OpenCV "
    "calls without OpenCL: the difference is what OpenCL's queue and copies cost on one chip. ";

class OpenClBackend final : public Backend {
public:
    enum class Device { Default, Cpu };
    explicit OpenClBackend(Device device) : device_(device) {
        if (device_ == Device::Cpu)
            for (OclMode& m : modes_) {
                m.info.description = kCpuReason + m.info.description;
                m.info.isDefault = false;  // a second OpenCL device is never the default choice
            }
    }

    std::string id() const override { return device_ == Device::Cpu ? "opencl-cpu" : "opencl"; }

    std::string displayName() const override {
        if (device_ == Device::Cpu) return available() ? "OpenCL on the CPU (" + cpuDevice().name + ")" : "OpenCL on the CPU";
        if (!available()) return "OpenCL";
        return "OpenCL (" + cv::ocl::Device::getDefault().name() + ")";
    }

    // The default device is probed once per process, as OpenCV picks it once too. The CPU device's
    // driver headroom is checked every time, before its context exists and before each run: the
    // cache folder or the free descriptors may change while the program runs.
    std::string unavailableReason() const override {
        if (device_ == Device::Cpu) {
            if (std::string why = cpuDriverHeadroom(); !why.empty())
                return "PoCL, the CPU's OpenCL driver, would abort the program: " + why;
            return cpuDevice().reason;
        }
        static const std::string reason = findUnavailableReason();
        return reason;
    }

    std::vector<ModeInfo> modes() const override {
        std::vector<ModeInfo> infos;
        const std::string reason = unavailableReason();
        for (const OclMode& m : modes_) {
            infos.push_back(m.info);
            infos.back().available = reason.empty();
            infos.back().unavailableReason = reason;
        }
        return infos;
    }

    RunResult run(const FilterSpec& spec, ConstImageView input, const std::string& mode) override {
        RunResult result;
        result.timing.backend = id();
        result.timing.mode = mode;
        const Clock::time_point start = Clock::now();
        const OclMode* chosen = nullptr;
        for (const OclMode& m : modes_)
            if (m.info.id == mode) chosen = &m;
        if (!chosen) {
            result.error = "the " + id() + " backend has no mode '" + mode + "'";
            return result;
        }
        if (std::string why = unavailableReason(); !why.empty()) {
            result.error = "the " + id() + " backend is unavailable: " + why;
            return result;
        }
        if (std::string why = validateRun(spec, input); !why.empty()) {
            result.error = why;
            return result;
        }
        try {
            if (device_ == Device::Cpu) {
                const CpuContextScope onCpu(cpuDevice().context);
                result.output = runOnDevice(spec, input, *chosen, result.timing);
            } else {
                result.output = runOnDevice(spec, input, *chosen, result.timing);
            }
        } catch (const std::bad_alloc&) {
            result.error = "out of host memory for a " + std::to_string(input.width) + "x" +
                           std::to_string(input.height) + " image";
        } catch (const cv::Exception& e) {
            result.error = id() + "/" + mode + " failed: " + e.msg;  // e.g. device out of memory
        } catch (const std::exception& e) {
            result.error = id() + "/" + mode + " failed: " + e.what();
        } catch (...) {
            result.error = id() + "/" + mode + " failed with an unknown error";
        }
        if (result.ok()) {
            result.timing.totalMs = millisecondsSince(start);
        } else {
            result.output = Image();
            result.timing.uploadMs.reset();
            result.timing.kernelMs.reset();
            result.timing.downloadMs.reset();
        }
        return result;
    }

private:
    static Image runOnDevice(const FilterSpec& spec, ConstImageView input, const OclMode& mode, TimingRecord& timing) {
        // The T-API switch is per thread; the GUI runs filters on worker threads.
        cv::ocl::setUseOpenCL(true);
        if (!cv::ocl::useOpenCL()) throw std::runtime_error("OpenCV has OpenCL switched off in this thread");
        Image output(input.width, input.height, input.channels, spec.outputDepth(input.depth));
        // Poisoned so that a path skipping pixels fails its tests instead of passing on zeros.
        output.fillBytes(0xA5);

        Clock::time_point phase = Clock::now();
        cv::UMat uploaded;
        io::asMat(input).copyTo(uploaded);
        cv::ocl::finish();
        timing.uploadMs = millisecondsSince(phase);

        phase = Clock::now();
        const cpu::cvfilter::Source<cv::UMat> source = cpu::cvfilter::prepareSource(spec, uploaded);
        cv::UMat filtered;
        cpu::cvfilter::filterAndMap(spec, source, mode.separation, io::cvTypeOf(output.depth(), output.channels()),
                                    filtered);
        cv::ocl::finish();  // kernels are queued asynchronously; time them to completion
        timing.kernelMs = millisecondsSince(phase);

        phase = Clock::now();
        cv::Mat dst = io::asMat(output.view());
        const void* const target = dst.data;
        filtered.copyTo(dst);
        if (dst.data != target) throw std::logic_error("OpenCV reallocated the output instead of filling it");
        timing.downloadMs = millisecondsSince(phase);
        return output;
    }

    Device device_;
    std::vector<OclMode> modes_ = openClModes();
};

}  // namespace

std::unique_ptr<Backend> makeOpenClBackend() { return std::make_unique<OpenClBackend>(OpenClBackend::Device::Default); }

std::unique_ptr<Backend> makeOpenClCpuBackend() { return std::make_unique<OpenClBackend>(OpenClBackend::Device::Cpu); }

}  // namespace fs::opencl
