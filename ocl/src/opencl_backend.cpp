// Backend "opencl": uploads the input into a cv::UMat, runs the OpenCV filter
// pipeline shared with the CPU "opencv-exact" mode (fs/cpu/opencv_filter.hpp) on it,
// so OpenCV's transparent API runs every step as an OpenCL kernel, and
// downloads the result. The two modes differ only in whether rank-1 kernels
// are split, so they are two rows of one table rather than two files.
#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>

#include <chrono>
#include <exception>
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
               "; OpenCV skips CPU OpenCL devices unless OPENCV_OPENCL_DEVICE allows them, e.g. "
               "OPENCV_OPENCL_DEVICE=::)";
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

class OpenClBackend final : public Backend {
public:
    std::string id() const override { return "opencl"; }

    std::string displayName() const override {
        if (!available()) return "OpenCL";
        return "OpenCL (" + cv::ocl::Device::getDefault().name() + ")";
    }

    // Probed once per process: OpenCV picks its default device once too.
    std::string unavailableReason() const override {
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
            result.error = "the opencl backend has no mode '" + mode + "'";
            return result;
        }
        if (std::string why = unavailableReason(); !why.empty()) {
            result.error = "the opencl backend is unavailable: " + why;
            return result;
        }
        if (std::string why = validateRun(spec, input); !why.empty()) {
            result.error = why;
            return result;
        }
        try {
            result.output = runOnDevice(spec, input, *chosen, result.timing);
        } catch (const std::bad_alloc&) {
            result.error = "out of host memory for a " + std::to_string(input.width) + "x" +
                           std::to_string(input.height) + " image";
        } catch (const cv::Exception& e) {
            result.error = "opencl/" + mode + " failed: " + e.msg;  // e.g. device out of memory
        } catch (const std::exception& e) {
            result.error = "opencl/" + mode + " failed: " + e.what();
        } catch (...) {
            result.error = "opencl/" + mode + " failed with an unknown error";
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

    std::vector<OclMode> modes_ = openClModes();
};

}  // namespace

std::unique_ptr<Backend> makeOpenClBackend() { return std::make_unique<OpenClBackend>(); }

}  // namespace fs::opencl
