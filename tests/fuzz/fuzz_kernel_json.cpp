// libFuzzer target: any bytes given to the kernel-file parser either parse
// into a valid FilterSpec or come back as an error message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fs/kernel_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fs::FilterSpec spec;
    std::string error;
    const bool ok = fs::parseKernelJson(text, spec, &error);
    if (ok != error.empty()) std::abort();  // exactly one of: a spec, or a reason
    if (ok) {
        if (!fs::validateSpec(spec).empty()) std::abort();
        // What we write we must read back unchanged.
        fs::FilterSpec again;
        if (!fs::parseKernelJson(fs::kernelToJson(spec), again, &error)) std::abort();
        if (!(again.kernels == spec.kernels) || !(again.border == spec.border) || !(again.output == spec.output))
            std::abort();
    }
    return 0;
}
