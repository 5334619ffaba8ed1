"""The CUDA backend against the CLI, and GPU arrays (CuPy, torch): run on a GPU machine, skipped with the reason elsewhere.

A CuPy array or torch CUDA tensor is filtered on the device by the engine
(fs::gpu::Engine::run on a DeviceInput) with no host copy: these tests hold
every CUDA mode's result against the CPU reference for contiguous, row-strided,
aligned and non-packed views, the result's kind and device, the untouched
input, and that nothing went through the host (no upload, no download, the
host entry points booby-trapped, the result in the buffer the module allocated).
"""
import os
import subprocess

import numpy as np
import pytest

import filterstudio as fs
from conftest import DATA_DIR, assert_within_mode_tolerance, cuda_mode_runs, cuda_reason


@pytest.fixture
def cuda():
    reason = cuda_reason()
    if reason:
        pytest.skip(reason)


@pytest.fixture
def cupy(cuda):
    cp = pytest.importorskip("cupy", reason="this Python has no CuPy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # CuPy without a driver or device
        pytest.skip(f"CuPy sees no CUDA device: {e}")
    return cp


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch", reason="this Python has no torch")
    return torch


@pytest.fixture
def torch_cuda(cuda, torch):
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


class DLPackOnly:
    """A device array that speaks only DLPack (no __cuda_array_interface__)."""

    def __init__(self, tensor):
        self._tensor = tensor

    def __dlpack__(self, stream=None, **kwargs):
        return self._tensor.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self._tensor.__dlpack_device__()


# --- the CUDA backend on NumPy images: the CLI's bytes ---------------------------------------------------------

@pytest.mark.parametrize("kernel", ["gaussian:7:1.5", "sobel-mag", "log:9:1.4"])
def test_every_cuda_mode_equals_the_cli(cuda, tmp_path, kernel):
    cli = os.environ.get("FS_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("filterstudio-cli is not built in this build folder")
    source = os.path.join(DATA_DIR, "fruits.jpg")
    image = fs.read_image(source)
    reference, _ = fs.filter(image, kernel, border="replicate", mode="reference")
    for row, run in cuda_mode_runs(image, kernel, border="replicate"):
        target = tmp_path / f"{row['mode']}.png"
        cli_run = subprocess.run([cli, "apply", "-i", source, "-o", str(target), "-k", kernel, "--border", "replicate",
                                  "--backend", "cuda", "--mode", row["mode"]], capture_output=True, text=True)
        # A mode that refuses this filter refuses it in both.
        assert (cli_run.returncode == 0) == (run is not None), f"{row['mode']}: {cli_run.stderr}"
        if run is None:
            continue
        out, timing = run
        assert timing.backend == "cuda" and timing.upload_ms is not None and timing.kernel_ms is not None
        np.testing.assert_array_equal(out, fs.read_image(target), err_msg=row["mode"])
        assert_within_mode_tolerance(out, reference, row, kernel, image)


def test_cuda_calls_from_many_threads_agree(cuda):
    from concurrent.futures import ThreadPoolExecutor

    images = [fs.random_image(700, 500, channels=3, seed=i + 1) for i in range(12)]
    kernels = ["gaussian:7:2", "sobel-mag", "box:5", "log:9:1.4"]
    serial = [fs.filter(im, kernels[i % 4], backend="cuda")[0] for i, im in enumerate(images)]
    with ThreadPoolExecutor(6) as pool:
        parallel = list(pool.map(lambda i: fs.filter(images[i], kernels[i % 4], backend="cuda")[0], range(12)))
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)


# --- GPU arrays: one library-neutral harness, run for CuPy and for torch ----------------------------------------

class CupyLib:
    name = "cupy"

    def __init__(self, cp):
        self.cp = cp

    def from_host(self, image):
        return self.cp.asarray(image)

    def to_host(self, array):
        return self.cp.asnumpy(array)

    def is_kind(self, array):
        return isinstance(array, self.cp.ndarray)

    def device(self, array):
        return array.device.id

    def pointer(self, array):
        return array.data.ptr

    def snapshot(self, array):
        return array.copy()

    def equal(self, a, b):
        return bool(self.cp.array_equal(a, b))

    def as_strided(self, flat, shape, byte_strides):
        return self.cp.lib.stride_tricks.as_strided(flat, shape=shape, strides=byte_strides)

    def extra_views(self, image):
        return [("flipped", self.from_host(image[::-1].copy())[::-1])]  # negative row stride


class TorchLib:
    name = "torch"

    def __init__(self, torch):
        self.torch = torch

    def from_host(self, image):
        return self.torch.from_numpy(np.ascontiguousarray(image)).cuda()

    def to_host(self, tensor):
        return tensor.cpu().numpy()

    def is_kind(self, array):
        return isinstance(array, self.torch.Tensor)

    def device(self, tensor):
        return tensor.device

    def pointer(self, tensor):
        return tensor.data_ptr()

    def snapshot(self, tensor):
        return tensor.clone()

    def equal(self, a, b):
        return bool(self.torch.equal(a, b))

    def as_strided(self, flat, shape, byte_strides):
        return flat.as_strided(shape, tuple(s // flat.element_size() for s in byte_strides))

    def extra_views(self, image):
        if image.ndim == 2:
            return []
        # Planes in memory, H x W x C only as a view (channels last).
        return [("channels-last-view", self.from_host(np.moveaxis(image, 2, 0)).permute(1, 2, 0))]


def device_views(lib, image):
    """(name, device view of `image`): contiguous, row-strided (rows not 512-byte aligned), rows on 512-byte
    boundaries (read in place), column-strided, and the library's own odd layout."""
    h, w = image.shape[:2]
    channels = image.shape[2] if image.ndim == 3 else 1
    item = image.itemsize
    dense = lib.from_host(image)
    big = lib.from_host(np.zeros((h + 5, w + 9) + image.shape[2:], image.dtype))
    big[3:3 + h, 5:5 + w] = dense
    wide = lib.from_host(np.zeros((h, 2 * w) + image.shape[2:], image.dtype))
    wide[:, ::2] = dense
    pitch = -(-w * channels * item // 512) * 512
    flat = lib.from_host(np.zeros((h * pitch + 512) // item, image.dtype))
    skip = (-lib.pointer(flat)) % 512 // item
    aligned = lib.as_strided(flat[skip:], image.shape, (pitch, channels * item, item)[:image.ndim])
    aligned[...] = dense
    return [("contiguous", dense), ("row-strided", big[3:3 + h, 5:5 + w]), ("aligned-rows", aligned),
            ("column-strided", wide[:, ::2])] + lib.extra_views(image)


@pytest.fixture(params=["cupy", "torch"])
def lib(request):
    if request.param == "cupy":
        return CupyLib(request.getfixturevalue("cupy"))
    return TorchLib(request.getfixturevalue("torch_cuda"))


# (channels, depth of the image, depth option) at odd sizes
CASES = [(1, "u8", "same"), (3, "u8", "same"), (4, "u8", "same"), (1, "f32", "same"), (3, "f32", "same"),
         (4, "f32", "same"), (3, "u8", "f32")]


def host_refusals(image, kernel, **options):
    """{CUDA mode: its FilterError on the host image, or None where it runs}."""
    refusals = {}
    for row in fs.modes():
        if row["backend"] == "cuda" and row["available"]:
            try:
                fs.filter(image, kernel, backend="cuda", mode=row["mode"], **options)
                refusals[row["mode"]] = None
            except fs.FilterError as e:
                refusals[row["mode"]] = e
    return refusals


def device_mode_runs(array, kernel, refusals, **options):
    """(mode row, (result, Timing) or None where the mode refuses) for every available CUDA mode on a GPU array."""
    runs = []
    for row in fs.modes():
        if row["backend"] != "cuda" or not row["available"]:
            continue
        try:
            run = fs.filter(array, kernel, mode=row["mode"], **options)
        except fs.FilterError as e:
            run = e
        # A mode refuses a GPU array exactly where it refuses the same pixels from the host.
        host_error = refusals[row["mode"]]
        assert isinstance(run, Exception) == (host_error is not None), \
            f"{row['mode']}: device {run if isinstance(run, Exception) else 'ran'}, host {host_error or 'ran'}"
        runs.append((row, None if isinstance(run, Exception) else run))
    assert any(run for _, run in runs), f"every CUDA mode refused {kernel}"
    return runs


@pytest.mark.parametrize("channels,depth,out_depth", CASES, ids=[f"{c}x{d}-{o}" for c, d, o in CASES])
@pytest.mark.parametrize("size", [(301, 257), (97, 61)], ids=["301x257", "97x61"])
def test_gpu_array_is_filtered_on_its_device_by_every_mode(lib, channels, depth, out_depth, size):
    kernel = "gaussian:7:1.5"
    image = fs.random_image(*size, channels=channels, depth=depth, seed=channels * 7 + size[0])
    reference, _ = fs.filter(image, kernel, mode="reference", depth=out_depth)
    expected_dtype = np.float32 if out_depth == "f32" else image.dtype
    refusals = host_refusals(image, kernel, depth=out_depth)
    for view_name, view in device_views(lib, image):
        before = lib.snapshot(view)
        host = lib.to_host(view)
        np.testing.assert_array_equal(host, image, err_msg=f"{view_name}: the test's view")
        for row, run in device_mode_runs(view, kernel, refusals, depth=out_depth):
            if run is None:
                continue
            out, timing = run
            what = f"{lib.name} {view_name} {row['mode']}"
            assert lib.is_kind(out), f"{what}: result is {type(out)}"
            assert lib.device(out) == lib.device(view), what
            assert tuple(out.shape) == image.shape, what
            assert timing.backend == "cuda" and timing.mode == row["mode"], what
            assert timing.upload_ms is None and timing.download_ms is None, f"{what}: {timing}"
            assert timing.kernel_ms is not None and timing.total_ms is not None, f"{what}: {timing}"
            back = lib.to_host(out)
            assert back.dtype == expected_dtype, what
            assert_within_mode_tolerance(back, reference, row, kernel, image)
        assert lib.equal(view, before), f"{lib.name} {view_name}: the input changed"


def test_aligned_rows_are_read_in_place_and_others_copied_on_the_device(lib):
    """Rows on 512-byte boundaries go to the kernels as they are; others take one device copy, timed as layout."""
    image = fs.random_image(301, 257, channels=1, seed=11)
    views = dict(device_views(lib, image))
    _, aligned = fs.filter(views["aligned-rows"], "box:5", mode="global")
    _, strided = fs.filter(views["row-strided"], "box:5", mode="global")
    assert aligned.layout_ms is None, aligned
    assert strided.layout_ms is not None and strided.upload_ms is None, strided


def test_sobel_magnitude_alpha_and_valid_size_follow_the_host_rules(lib):
    image = fs.random_image(131, 77, channels=4, seed=5)
    for options in ({}, {"filter_alpha": True}, {"output_size": "valid"}, {"depth": "f32", "output_size": "valid"}):
        reference, _ = fs.filter(image, "sobel-mag", mode="reference", **options)
        out, timing = fs.filter(lib.from_host(image), "sobel-mag", **options)
        back = lib.to_host(out)
        assert back.shape == reference.shape and back.dtype == reference.dtype, options
        if not options.get("filter_alpha"):  # the input's alpha, as cv2 keeps it
            np.testing.assert_array_equal(back[..., 3], reference[..., 3])
        row = next(r for r in fs.modes() if r["backend"] == "cuda" and r["mode"] == timing.mode)
        assert_within_mode_tolerance(back, reference, row, "sobel-mag", image)


def test_no_host_copy_is_made(lib, monkeypatch):
    """The host entry points are booby-trapped; the result is the one array the module allocated (input's library)."""
    image = fs.random_image(257, 129, channels=3, seed=9)
    view = dict(device_views(lib, image))["row-strided"]  # read through the engine's device copy

    def host_copy(*args, **kwargs):
        raise AssertionError("a GPU array went through the host")

    allocated = []
    if lib.name == "cupy":
        cp = lib.cp
        real_empty = cp.empty
        monkeypatch.setattr(cp, "asnumpy", host_copy)
        monkeypatch.setattr(cp, "empty", lambda *a, **k: allocated.append(real_empty(*a, **k)) or allocated[-1])
    else:
        t = lib.torch
        real_empty = t.empty
        for name in ("cpu", "numpy", "__array__", "tolist"):
            monkeypatch.setattr(t.Tensor, name, host_copy)
        monkeypatch.setattr(t, "empty", lambda *a, **k: allocated.append(real_empty(*a, **k)) or allocated[-1])
    monkeypatch.setattr(np, "from_dlpack", host_copy)
    monkeypatch.setattr(fs, "_host_array", host_copy)
    monkeypatch.setattr(fs._core, "filter", host_copy)
    out, timing = fs.filter(view, "gaussian:9:2")
    monkeypatch.undo()
    assert len(allocated) == 1 and lib.pointer(out) == lib.pointer(allocated[0])
    assert timing.upload_ms is None and timing.download_ms is None and timing.host_prep_ms is None, timing
    reference, _ = fs.filter(image, "gaussian:9:2", mode="reference")
    row = next(r for r in fs.modes() if r["backend"] == "cuda" and r["mode"] == timing.mode)
    assert_within_mode_tolerance(lib.to_host(out), reference, row, "gaussian:9:2", image)


def test_gpu_arrays_from_several_threads_agree(lib):
    from concurrent.futures import ThreadPoolExecutor

    images = [fs.random_image(333, 211, channels=3, seed=i + 1) for i in range(8)]
    arrays = [lib.from_host(im) for im in images]
    serial = [lib.to_host(fs.filter(a, "log:9:1.4")[0]) for a in arrays]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda a: lib.to_host(fs.filter(a, "log:9:1.4")[0]), arrays))
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)


def test_gpu_array_refuses_other_backends_and_host_only_calls(lib):
    array = lib.from_host(fs.random_image(64, 48, channels=3))
    with pytest.raises(fs.DeviceArrayUnsupported, match="backend 'cuda', not 'cpu'"):
        fs.filter(array, "box:3", backend="cpu")
    with pytest.raises(fs.DeviceArrayUnsupported, match="only filter"):
        fs.bench(array, "box:3", backend="cuda", repeats=1)
    with pytest.raises(TypeError, match="dtype"):
        fs.filter(lib.from_host(np.zeros((8, 8), np.int32)), "box:3")
    with pytest.raises(ValueError, match="channels"):
        fs.filter(lib.from_host(np.zeros((8, 8, 2), np.uint8)), "box:3")


# --- DLPack only, and torch on the CPU ----------------------------------------------------------------------------

def test_dlpack_only_device_array_comes_back_for_from_dlpack(torch_cuda):
    image = fs.random_image(123, 45, channels=3, depth="f32", seed=4)
    tensor = torch_cuda.from_numpy(image).cuda()
    out, timing = fs.filter(DLPackOnly(tensor), "box:5", depth="f32")
    assert timing.upload_ms is None
    back = torch_cuda.from_dlpack(out)  # a CuPy array or torch tensor: either speaks DLPack
    assert back.is_cuda
    reference, _ = fs.filter(image, "box:5", mode="reference", depth="f32")
    row = next(r for r in fs.modes() if r["backend"] == "cuda" and r["mode"] == timing.mode)
    assert_within_mode_tolerance(back.cpu().numpy(), reference, row, "box:5", image)


def test_torch_cpu_tensor_is_read_in_place(torch):
    image = fs.random_image(53, 37, channels=3, seed=3)
    tensor = torch.from_numpy(image.copy())
    assert np.shares_memory(fs._host_array(tensor), tensor.numpy()), "a CPU tensor is read through DLPack, not copied"
    out, _ = fs.filter(tensor, "sobel-mag")
    np.testing.assert_array_equal(out, fs.filter(image, "sobel-mag")[0])
