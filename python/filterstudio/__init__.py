"""FilterStudio from Python: convolution filters on NumPy images.

    import filterstudio as fs
    out, timing = fs.filter(image, "gaussian:9:2", backend="cpu")

Images are NumPy arrays, H x W or H x W x C (C = 1, 3 or 4, BGR(A) order as
in cv2), uint8, uint16 or float32; any view is accepted (rows with a stride
are read in place, other views copied). A kernel is a preset ("sobel-x",
"gaussian:9:2"; see presets()), a kernel file's path, a Kernel, a 2-D array
of weights, or a list of 2-D arrays (their magnitude). Errors: ValueError or
TypeError for a bad argument (the CLI's messages), OSError for a file,
DeviceUnavailable when a backend or mode cannot run here, FilterError when a
run fails. The GIL is released while filtering; calls from several threads
are safe. filterstudio.dask filters dask arrays and spreads files over a
cluster. docs/python.md has the rest.
"""
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
_DLPACK_CUDA_HOST = 3  # kDLCUDAHost: pinned host memory, readable in place


class DeviceArrayUnsupported(TypeError):
    """A GPU array (__cuda_array_interface__ or DLPack on a device) was given.

    FilterStudio's CUDA engine takes its input from host memory only: its
    public interface (fs::gpu::Engine::upload, run, runToDevice) uploads from a
    host image and has no call that adopts device memory someone else owns.
    Filtering such an array would need a copy to the host and back, which this
    module does not do behind your back: copy it yourself (cupy.asnumpy(a),
    tensor.cpu().numpy()) and pass the NumPy array.
    """


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
            f"{what} is a GPU array (__cuda_array_interface__): FilterStudio's CUDA engine filters only images it "
            "uploads from host memory, so it cannot take device memory without a copy; copy it to the host "
            "(cupy.asnumpy(a), tensor.cpu().numpy()) and pass the NumPy array")
    if hasattr(image, "__dlpack__") and hasattr(image, "__dlpack_device__"):
        device_type = int(image.__dlpack_device__()[0])
        if device_type not in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
            raise DeviceArrayUnsupported(
                f"{what} is a DLPack array on device type {device_type} (not the CPU): FilterStudio's CUDA engine "
                "filters only images it uploads from host memory, so it cannot take device memory without a copy; "
                "copy it to the host and pass a NumPy array")
        return _np.from_dlpack(image)
    return image  # the engine names the type in its TypeError


def filter(image, kernel, backend="cpu", mode=None, border=None, scale=None, offset=None, abs=False,
           depth="same", output_size="same", filter_alpha=False):
    """Filters `image` with `kernel`; returns (result, Timing).

    backend: "cpu", "cuda", "opencl", "opencl-cpu" (see backends()); mode: one of
    its modes (see modes()), default the backend's default. border: "replicate",
    "reflect101", "constant[:V]" or "wrap" (default: the kernel's, reflect101).
    scale, offset, abs: v = |scale * v + offset|, as cv2.convertScaleAbs. depth:
    "same" (rounded and saturated to the input's dtype) or "f32". output_size:
    "same" or "valid" (only pixels whose whole window lies inside the image).
    filter_alpha: filter a 4th channel too (by default the input's alpha is kept).
    """
    out, timing = _core.filter(_host_array(image), kernel, backend, mode, border, scale, offset, abs, depth,
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
