"""FilterStudio from Python: convolution filters on NumPy images.

    import filterstudio as fs
    out, timing = fs.filter(image, "gaussian:9:2", backend="cpu")

Images are NumPy arrays, H x W or H x W x C (C = 1, 3 or 4, BGR(A) order as
in cv2), uint8, uint16 or float32; any view is accepted (rows with a stride
are read in place, other views copied). filter() also takes CuPy arrays and
torch CUDA tensors (and other __cuda_array_interface__ or DLPack device
arrays) and filters them on the GPU with no host copy; the result is the
same kind of array on the same device. A kernel is a preset ("sobel-x",
"gaussian:9:2"; see presets()), a kernel file's path, a Kernel, a 2-D array
of weights, or a list of 2-D arrays (their magnitude). Errors: ValueError or
TypeError for a bad argument (the CLI's messages), OSError for a file,
DeviceUnavailable when a backend or mode cannot run here, FilterError when a
run fails. The GIL is released while filtering; calls from several threads
are safe. filterstudio.dask filters dask arrays and spreads files over a
cluster. docs/python.md has the rest.
"""
import sys
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as _np

from . import _core
from ._core import DeviceUnavailable, FilterError, Kernel

__all__ = [
    "filter", "kernel", "modes", "backends", "presets", "bench", "bench_preset", "pipeline", "layer",
    "random_image", "read_image", "write_image", "Timing", "Kernel", "DeviceUnavailable", "FilterError",
    "DeviceArrayUnsupported",
]

_DLPACK_CPU = 1  # kDLCPU
_DLPACK_CUDA = 2  # kDLCUDA
_DLPACK_CUDA_HOST = 3  # kDLCUDAHost: pinned host memory, readable in place
_DLPACK_CUDA_MANAGED = 13  # kDLCUDAManaged
_DEPTHS = {"uint8": "u8", "uint16": "u16", "float32": "f32"}


class DeviceArrayUnsupported(TypeError):
    """A GPU array was given where only host arrays are taken, or one this module cannot hold.

    filter() filters GPU arrays on the device with backend "cuda" (its default
    for them). Every other backend and call (bench, pipeline, layer,
    write_image) reads host memory, and this module never copies a GPU array
    to the host behind your back: copy it yourself (cupy.asnumpy(a),
    tensor.cpu().numpy()) and pass the NumPy array. A GPU array of a library
    other than CuPy or torch is taken through CuPy or torch, so one of them
    must be installed.
    """


def _is_device_array(image):
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(image, torch.Tensor):
        return image.is_cuda  # its __cuda_array_interface__ raises RuntimeError for a tensor that requires grad
    if hasattr(image, "__cuda_array_interface__"):
        return True
    if hasattr(image, "__dlpack__") and hasattr(image, "__dlpack_device__"):
        return int(image.__dlpack_device__()[0]) in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED)
    return False


def _cupy_or_torch(image, what):
    """("cupy" | "torch", the GPU array `image` as that library's array, without a copy)."""
    cupy, torch = sys.modules.get("cupy"), sys.modules.get("torch")
    if cupy is not None and isinstance(image, cupy.ndarray):
        return "cupy", image
    if torch is not None and isinstance(image, torch.Tensor):
        return "torch", image.detach()  # the result is data, not part of the autograd graph
    # Another library's device array: read in place through CuPy or torch, which honour its stream.
    for row in _core.backends():
        if row["backend"] == "cuda" and not row["available"]:
            raise DeviceUnavailable(f"cuda is unavailable: {row['reason']}; {what} is a GPU array")
    if not any(row["backend"] == "cuda" for row in _core.backends()):
        raise DeviceUnavailable(f"no backend 'cuda' in this build; {what} is a GPU array")
    dlpack = hasattr(image, "__dlpack__")
    for name in ("cupy", "torch"):
        try:
            lib = __import__(name)
        except ImportError:
            continue
        if name == "cupy":
            return name, lib.from_dlpack(image) if dlpack else lib.asarray(image)
        return name, lib.from_dlpack(image) if dlpack else lib.as_tensor(image, device="cuda")
    raise DeviceArrayUnsupported(
        f"{what} is a GPU array of {type(image).__module__}.{type(image).__name__}: filterstudio takes such arrays "
        "through CuPy or torch, and this Python has neither; install one, or copy the array to the host")


def _filter_on_device(kind, array, kernel, backend, mode, border, scale, offset, abs, depth, output_size,
                      filter_alpha):
    """filter() on a CuPy array or torch CUDA tensor: the engine reads and writes device memory only."""
    if kind == "cupy":
        import cupy as lib
        dtype_name, shape = str(array.dtype), tuple(array.shape)
        item = array.itemsize
        strides = tuple(array.strides)
    else:
        import torch as lib
        dtype_name, shape = str(array.dtype).replace("torch.", ""), tuple(array.shape)
        item = array.element_size()
        strides = tuple(st * item for st in array.stride())
    if dtype_name not in _DEPTHS:
        raise TypeError(f"image has dtype {dtype_name}: FilterStudio takes uint8, uint16 or float32 "
                        "(convert with .astype)")
    if len(shape) not in (2, 3):
        raise ValueError(f"image must be H x W or H x W x C, not {len(shape)}-dimensional")
    channels = shape[2] if len(shape) == 3 else 1
    if channels not in (1, 3, 4):
        raise ValueError(f"image has {channels} channels: FilterStudio takes 1, 3 or 4 (BGR(A) order)")
    height, width = shape[:2]
    # Pixels packed within a row, rows at any positive stride: read in place; other views compacted on the device.
    packed = (width <= 1 or strides[1] == channels * item) \
        and (len(shape) == 2 or channels == 1 or strides[2] == item) \
        and (height <= 1 or (strides[0] >= width * channels * item and strides[0] % item == 0))
    if not packed:
        array = lib.ascontiguousarray(array) if kind == "cupy" else array.contiguous()
        strides = (width * channels * item, channels * item, item)
    pitch = strides[0] if height > 1 else width * channels * item
    if kind == "cupy":
        data, device = array.data.ptr, array.device
        stream = lib.cuda.get_current_stream().ptr
    else:
        data, device = array.data_ptr(), array.device
        stream = lib.cuda.current_stream(device).cuda_stream
    source = {"data": data, "height": height, "width": width, "channels": channels, "depth": _DEPTHS[dtype_name],
              "pitch": pitch, "stream": stream or 1}  # 0 is the legacy default stream, 1 in the protocol's numbers

    def allocate(h, w, c, out_depth):
        out_shape = (h, w) if len(shape) == 2 else (h, w, c)
        out_dtype = {"u8": "uint8", "u16": "uint16", "f32": "float32"}[out_depth]
        if kind == "cupy":
            with device:
                out = lib.empty(out_shape, dtype=out_dtype)
            return out, out.data.ptr, w * c * out.itemsize
        out = lib.empty(out_shape, dtype=getattr(lib, out_dtype), device=device)
        return out, out.data_ptr(), w * c * out.element_size()

    out, timing, keep_alpha, valid = _core.filter_device(source, allocate, kernel, backend, mode, border, scale,
                                                         offset, abs, depth, output_size, filter_alpha)
    if keep_alpha:
        out[..., 3] = array[..., 3]
    if valid is not None:
        top, left, h, w = valid
        out = out[top:top + h, left:left + w]
    return out, Timing(**timing)


@dataclass(frozen=True)
class Timing:
    """Where a run spent its time, in milliseconds; None for a part the run did not have."""

    backend: str
    mode: str
    launch: str
    kernel_variant: str
    host_prep_ms: Optional[float]
    upload_ms: Optional[float]
    kernel_ms: Optional[float]
    layout_ms: Optional[float]
    download_ms: Optional[float]
    total_ms: Optional[float]

    def as_dict(self):
        return asdict(self)


def _host_array(image, what="image"):
    """A NumPy array for `image`: NumPy as it is, DLPack CPU tensors without a copy; GPU arrays refused."""
    if isinstance(image, _np.ndarray):
        return image
    if hasattr(image, "__cuda_array_interface__"):
        raise DeviceArrayUnsupported(
            f"{what} is a GPU array (__cuda_array_interface__): only filter() with backend 'cuda' takes GPU "
            "arrays, and nothing is copied to the host behind your back; copy it to the host "
            "(cupy.asnumpy(a), tensor.cpu().numpy()) and pass the NumPy array")
    if hasattr(image, "__dlpack__") and hasattr(image, "__dlpack_device__"):
        device_type = int(image.__dlpack_device__()[0])
        if device_type not in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
            raise DeviceArrayUnsupported(
                f"{what} is a DLPack array on device type {device_type} (not the CPU): only filter() with backend "
                "'cuda' takes GPU arrays, and nothing is copied to the host behind your back; copy it to the host "
                "and pass a NumPy array")
        return _np.from_dlpack(image)
    return image  # the engine names the type in its TypeError


def filter(image, kernel, backend=None, mode=None, border=None, scale=None, offset=None, abs=False,
           depth="same", output_size="same", filter_alpha=False):
    """Filters `image` with `kernel`; returns (result, Timing).

    image: a NumPy array, or a GPU array (CuPy, torch CUDA tensor, any
    __cuda_array_interface__ or DLPack CUDA array) filtered on the device with
    no host copy: the result is a CuPy array for CuPy input, a torch tensor
    for torch input (for other libraries, a CuPy array or torch tensor their
    from_dlpack takes), on the input's device; Timing.upload_ms is None.
    backend: "cpu", "cuda", "opencl", "opencl-cpu" (see backends()); default
    "cpu" for host arrays, "cuda" for GPU arrays. mode: one of
    its modes (see modes()), default the backend's default. border: "replicate",
    "reflect101", "constant[:V]" or "wrap" (default: the kernel's, reflect101).
    scale, offset, abs: v = |scale * v + offset|, as cv2.convertScaleAbs. depth:
    "same" (rounded and saturated to the input's dtype) or "f32". output_size:
    "same" or "valid" (only pixels whose whole window lies inside the image).
    filter_alpha: filter a 4th channel too (by default the input's alpha is kept).
    """
    if _is_device_array(image):
        if backend not in (None, "cuda"):
            raise DeviceArrayUnsupported(
                f"image is a GPU array: filterstudio filters GPU arrays with backend 'cuda', not {backend!r}, and "
                "copies nothing to the host behind your back; pass backend='cuda', or copy it to the host "
                "(cupy.asnumpy(a), tensor.cpu().numpy()) for another backend")
        kind, array = _cupy_or_torch(image, "image")
        return _filter_on_device(kind, array, kernel, "cuda", mode, border, scale, offset, abs, depth, output_size,
                                 filter_alpha)
    out, timing = _core.filter(_host_array(image), kernel, backend or "cpu", mode, border, scale, offset, abs, depth,
                               output_size, filter_alpha)
    return out, Timing(**timing)


def kernel(kernel, border=None, scale=None, offset=None, abs=False, depth="same", output_size="same",
           filter_alpha=False):
    """A Kernel from a preset, a file, an array or a list of arrays, with these options fixed."""
    return _core.kernel(kernel, border, scale, offset, abs, depth, output_size, filter_alpha)


def modes():
    """Every backend's modes as rows (dicts: backend, mode, available, reason, default, reference, ...)."""
    return _core.modes()


def backends():
    """Every backend this build has, as rows (dicts: backend, name, available, reason, devices, default_mode)."""
    return _core.backends()


def presets():
    """The preset kernels as rows (dicts: name, summary)."""
    return _core.presets()


def bench(image, kernel, backend="cpu", modes=None, repeats=10, warmup=2, border=None, scale=None, offset=None,
          abs=False, depth="same", output_size="same"):
    """Times modes as `filterstudio-cli bench` does; one row (dict) per mode, ready for pandas.DataFrame.

    modes: None (the default mode), a name, a list of names, or "all" (every available mode).
    """
    return _core.bench(_host_array(image), kernel, backend, modes, repeats, warmup, border, scale, offset, abs,
                       depth, output_size)


def bench_preset(name, quick=True, seed=1, sizes=None):
    """A paper's table as `filterstudio-cli bench --preset NAME` times it; rows (dicts).

    sizes: image sizes to use instead of the preset's (n for n x n, or (width, height)).
    """
    return _core.bench_preset(name, quick, seed, sizes)


def pipeline(image, pipeline, backend="cpu", mode=None, filter_alpha=False):
    """Runs a pipeline (a file's path, or a dict in the file's format); returns (result, info).

    info: {"steps": [per-step timing dicts with "label"], "object_count": N or None}.
    """
    out, info = _core.pipeline(_host_array(image), pipeline, backend, mode, filter_alpha)
    info["steps"] = [dict(step) for step in info["steps"]]
    return out, info


def layer(images, bank, backend="cpu"):
    """N:M:M convolution: returns ([M results], Timing). bank: a bank file's path or a dict in its format."""
    outputs, timing = _core.layer([_host_array(i, "each layer input") for i in images], bank, backend)
    return outputs, Timing(**timing)


def random_image(width, height, channels=1, depth="u8", seed=1):
    """The seeded random image `bench -i random:WxH:C:D` uses."""
    return _core.random_image(width, height, channels, depth, seed)


def read_image(path, max_pixels=268435456):
    """An image file as the CLI reads it (BGR(A), the file's depth)."""
    return _core.read_image(path, max_pixels)


def write_image(path, image, overwrite=False):
    """Writes through a temporary file renamed into place, as the CLI does; the extension picks the format."""
    _core.write_image(path, _host_array(image), overwrite)
