#pragma once
// Internal, plain C++: why a mode cannot run a filter or a launch
// configuration, typed so callers branch on the reason, never on the text.
#include <string>
#include <utility>

namespace fs::gpu {

enum class RefusalReason {
    None,               // it can run
    UnknownMode,        // no mode is registered under that name
    InvalidFilter,      // the FilterSpec itself cannot run on the device (prepareFilter)
    FilterUnsupported,  // the mode cannot run this filter in any configuration
    ConfigRefused,      // the mode lacks a requested knob or value
    DeviceLimit,        // the device cannot launch it (threads, shared memory, grid, occupancy)
    NoDevice,           // no usable device to ask: the answer may change once there is one
};

const char* refusalReasonName(RefusalReason reason);

struct Refusal {
    RefusalReason reason = RefusalReason::None;
    std::string message;

    Refusal() = default;
    Refusal(RefusalReason r, std::string text) : reason(r), message(std::move(text)) {}
    // A planner's plain text is a refused configuration (the common case in
    // the mode files); empty text accepts.
    Refusal(std::string text)  // NOLINT(google-explicit-constructor)
        : reason(text.empty() ? RefusalReason::None : RefusalReason::ConfigRefused), message(std::move(text)) {}
    Refusal(const char* text) : Refusal(std::string(text)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return reason == RefusalReason::None; }
    // "No refusal", as the string results these replace: callers that only
    // show the text keep reading it as before.
    bool empty() const { return ok(); }
    operator const std::string&() const { return message; }  // NOLINT(google-explicit-constructor)
};

}  // namespace fs::gpu
