"""The CUDA backend against the CLI, and GPU arrays (CuPy, torch): run on a GPU machine, skipped with the reason elsewhere.

FilterStudio's CUDA engine reads its input from host memory only (fs::gpu::Engine
has no call that takes device memory it does not own), so a GPU array is refused
with DeviceArrayUnsupported rather than copied to the host behind the caller's
back; these tests hold that, and the explicit host round trip the error suggests.
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

    def __dlpack__(self, stream=None):
        return self._tensor.__dlpack__(stream=stream)

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


# --- CuPy ------------------------------------------------------------------------------------------------------

def test_cupy_array_is_refused_not_copied(cupy):
    device = cupy.asarray(fs.random_image(64, 48, channels=3))
    for backend in ("cuda", "cpu"):
        with pytest.raises(fs.DeviceArrayUnsupported, match="__cuda_array_interface__.*cupy.asnumpy"):
            fs.filter(device, "box:3", backend=backend)
    with pytest.raises(fs.DeviceArrayUnsupported):
        fs.bench(device, "box:3", backend="cuda", repeats=1)


def test_cupy_round_trip_through_the_host_equals_the_reference(cupy):
    image = fs.random_image(301, 257, channels=4, depth="u16", seed=7)
    device = cupy.asarray(image)
    reference, _ = fs.filter(image, "gaussian:9:2", mode="reference")
    for row, run in cuda_mode_runs(cupy.asnumpy(device), "gaussian:9:2"):
        if run:
            back = cupy.asnumpy(cupy.asarray(run[0]))
            assert_within_mode_tolerance(back, reference, row, "gaussian:9:2", image)


# --- torch -----------------------------------------------------------------------------------------------------

def test_torch_cuda_tensor_is_refused_not_copied(torch_cuda):
    tensor = torch_cuda.from_numpy(fs.random_image(40, 30)).cuda()
    with pytest.raises(fs.DeviceArrayUnsupported, match="__cuda_array_interface__"):
        fs.filter(tensor, "box:3", backend="cuda")
    with pytest.raises(fs.DeviceArrayUnsupported, match="DLPack array on device type 2"):
        fs.filter(DLPackOnly(tensor), "box:3", backend="cuda")


def test_torch_cpu_tensor_is_read_in_place(torch):
    image = fs.random_image(53, 37, channels=3, seed=3)
    tensor = torch.from_numpy(image.copy())
    assert np.shares_memory(fs._host_array(tensor), tensor.numpy()), "a CPU tensor is read through DLPack, not copied"
    out, _ = fs.filter(tensor, "sobel-mag")
    np.testing.assert_array_equal(out, fs.filter(image, "sobel-mag")[0])


def test_torch_round_trip_on_cuda_equals_the_reference(torch_cuda):
    image = fs.random_image(640, 480, channels=1, depth="f32", seed=5)
    tensor = torch_cuda.from_numpy(image).cuda()
    reference, _ = fs.filter(image, "sobel-x", depth="f32", mode="reference")
    for row, run in cuda_mode_runs(tensor.cpu().numpy(), "sobel-x", depth="f32"):
        if run:
            back = torch_cuda.from_numpy(run[0]).cuda().cpu().numpy()
            assert_within_mode_tolerance(back, reference, row, "sobel-x", image)
