#pragma once
// Internal: kernel launches that keep the kernel's function type. Each
// argument is converted to the parameter type the kernel declares before its
// address goes to cudaLaunchKernel, so a missing, extra or wrongly typed
// argument fails to compile instead of reading the wrong bytes at run time.
#include <cuda_runtime.h>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace fs::gpu {

namespace detail {

// `From` becomes `To` implicitly and, between arithmetic types, without
// narrowing (no float to int, no wider to narrower, no signed to unsigned).
template <class To, class From, class = void> struct NarrowingFree : std::false_type {};
template <class To, class From>
struct NarrowingFree<To, From, std::void_t<decltype(To{std::declval<From>()})>> : std::true_type {};

template <class Param, class Arg> constexpr bool argumentFits() {
    using P = std::remove_cv_t<Param>;
    using A = std::remove_cv_t<std::remove_reference_t<Arg>>;
    if constexpr (!std::is_convertible_v<Arg, P>) return false;
    else if constexpr (std::is_arithmetic_v<P> && std::is_arithmetic_v<A> && !std::is_same_v<P, A>)
        return NarrowingFree<P, Arg>::value;
    else return true;
}

template <class... T> struct TypeList {};

template <class... Params, class... Args> constexpr bool allFit(TypeList<Params...>, TypeList<Args...>) {
    if constexpr (sizeof...(Params) != sizeof...(Args)) return false;
    else return (argumentFits<Params, Args>() && ...);
}

template <class Kernel, class... Args> struct Launchable : std::false_type {};
template <class... Params, class... Args> struct Launchable<void (*)(Params...), Args...> {
    static constexpr bool value = allFit(TypeList<Params...>{}, TypeList<Args...>{});
};

// One address per parameter list: the tag a KernelRef keeps of its kernel's type.
template <class... Params> inline constexpr char kSignatureTag = 0;

template <class Tuple, std::size_t... I>
cudaError_t launchTuple(const void* kernel, dim3 grid, dim3 block, std::size_t sharedBytes, cudaStream_t stream,
                        Tuple& values, std::index_sequence<I...>) {
    void* params[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(values))...};
    return cudaLaunchKernel(kernel, grid, block, params, sharedBytes, stream);
}

}  // namespace detail

// A __global__ function chosen at run time among several of one family (a
// plan's kernel), with its parameter list kept as a tag: launchKernel(ref, ...)
// launches it only with arguments of exactly those types, so a kernel whose
// parameters change cannot be fed the old arguments' bytes.
class KernelRef {
public:
    KernelRef() = default;
    KernelRef(std::nullptr_t) {}
    template <class... Params>
    KernelRef(void (*kernel)(Params...))
        : address_(reinterpret_cast<const void*>(kernel)), signature_(&detail::kSignatureTag<std::remove_cv_t<Params>...>) {}

    // For the runtime's attribute and occupancy queries.
    const void* address() const { return address_; }
    explicit operator bool() const { return address_ != nullptr; }
    // Whether its parameters are exactly Args (top-level const aside).
    template <class... Args> bool takes() const { return signature_ == &detail::kSignatureTag<Args...>; }

private:
    const void* address_ = nullptr;
    const char* signature_ = nullptr;
};

// Whether kernel(args...) compiles as launchKernel's call: for tests and for
// callers that pick among kernels at compile time.
template <class Kernel, class... Args>
constexpr bool kLaunchable = detail::Launchable<std::decay_t<Kernel>, Args...>::value;

// kernel<<<grid, block, sharedBytes, stream>>>(args...), checked against the
// kernel's own parameter list. Returns the launch's error (cudaGetLastError
// is not needed after it).
template <class... Params, class... Args>
cudaError_t launchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t sharedBytes,
                         cudaStream_t stream, Args&&... args) {
    static_assert(sizeof...(Params) == sizeof...(Args), "launchKernel: wrong number of kernel arguments");
    static_assert(kLaunchable<void (*)(Params...), Args&&...>,
                  "launchKernel: an argument does not convert to its kernel parameter (or narrows)");
    std::tuple<std::remove_cv_t<Params>...> values(static_cast<std::remove_cv_t<Params>>(std::forward<Args>(args))...);
    return detail::launchTuple(reinterpret_cast<const void*>(kernel), grid, block, sharedBytes, stream, values,
                               std::index_sequence_for<Params...>{});
}

// A KernelRef's kernel with `args`, whose types must be its parameters'
// exactly; cudaErrorInvalidDeviceFunction, launching nothing, when they are not.
template <class... Args>
cudaError_t launchKernel(KernelRef kernel, dim3 grid, dim3 block, std::size_t sharedBytes, cudaStream_t stream,
                         Args... args) {
    if (!kernel.takes<Args...>()) return cudaErrorInvalidDeviceFunction;
    void* params[sizeof...(Args) + 1] = {static_cast<void*>(&args)...};
    return cudaLaunchKernel(kernel.address(), grid, block, params, sharedBytes, stream);
}

}  // namespace fs::gpu
