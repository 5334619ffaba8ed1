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

template <class Tuple, std::size_t... I>
cudaError_t launchTuple(const void* kernel, dim3 grid, dim3 block, std::size_t sharedBytes, cudaStream_t stream,
                        Tuple& values, std::index_sequence<I...>) {
    void* params[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(values))...};
    return cudaLaunchKernel(kernel, grid, block, params, sharedBytes, stream);
}

}  // namespace detail

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

}  // namespace fs::gpu
