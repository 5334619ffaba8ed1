"""filterstudio: every argument type and error of the module's calls, on the CPU (GPU cases skip with the reason)."""
import json
import os
import pickle
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import filterstudio as fs
from conftest import DATA_DIR, assert_within_mode_tolerance, cuda_mode_runs, cuda_reason, gold

SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=np.float32)
SOBEL_Y = SOBEL_X.T.copy()


# --- results against a gold reference --------------------------------------------------------------------------

@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("border", ["replicate", "reflect101", "wrap", "constant:7"])
def test_integer_kernel_matches_gold_exactly(rng, channels, border):
    # Integer weights on integer samples: every sum is exact in float, so f32 output equals float64 gold.
    shape = (37, 53) if channels == 1 else (37, 53, channels)
    image = rng.integers(0, 256, shape, dtype=np.uint8)
    out, timing = fs.filter(image, SOBEL_X, border=border, depth="f32", filter_alpha=True)
    rule, _, value = border.partition(":")
    assert out.dtype == np.float32 and out.shape == image.shape
    np.testing.assert_array_equal(out, gold(image, SOBEL_X, rule, float(value or 0)).astype(np.float32))
    assert timing.backend == "cpu" and timing.mode and timing.total_ms is not None


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_same_depth_rounds_and_saturates(rng, dtype):
    image = (rng.random((20, 30)) * (1 if dtype == np.float32 else np.iinfo(dtype).max)).astype(dtype)
    out, _ = fs.filter(image, SOBEL_X, abs=True)
    assert out.dtype == dtype and out.shape == image.shape
    expected = np.abs(gold(image, SOBEL_X))
    if dtype != np.float32:
        expected = np.clip(np.rint(expected), 0, np.iinfo(dtype).max).astype(dtype)
        np.testing.assert_array_equal(out, expected)
    else:
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_scale_offset_abs_in_convert_scale_abs_order(rng):
    image = rng.integers(0, 256, (16, 16), dtype=np.uint8)
    out, _ = fs.filter(image, SOBEL_X, scale=0.5, offset=-3, abs=True, depth="f32")
    np.testing.assert_array_equal(out, np.abs(0.5 * gold(image, SOBEL_X) - 3).astype(np.float32))


def test_alpha_is_kept_unless_filtered(rng):
    image = rng.integers(0, 256, (12, 14, 4), dtype=np.uint8)
    out, _ = fs.filter(image, "box:3")
    np.testing.assert_array_equal(out[:, :, 3], image[:, :, 3])
    filtered, _ = fs.filter(image, "box:3", filter_alpha=True)
    assert not np.array_equal(filtered[:, :, 3], image[:, :, 3])


def test_valid_output_is_the_interior(rng):
    image = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    same, _ = fs.filter(image, "gaussian:7:1.5", border="wrap")
    valid, _ = fs.filter(image, "gaussian:7:1.5", output_size="valid")
    assert valid.shape == (24, 34, 3)
    np.testing.assert_array_equal(valid, same[3:-3, 3:-3])


def test_shapes_h_w_and_h_w_1(rng):
    image = rng.integers(0, 256, (9, 11), dtype=np.uint8)
    assert fs.filter(image, "box:3")[0].shape == (9, 11)
    assert fs.filter(image[:, :, None], "box:3")[0].shape == (9, 11, 1)


# --- images: views and array protocols -------------------------------------------------------------------------

@pytest.mark.parametrize("view", ["crop", "step", "transpose", "reversed", "fortran", "channel-slice"])
def test_strided_views_equal_their_contiguous_copy(rng, view):
    base = rng.integers(0, 65536, (64, 80, 4), dtype=np.uint16)
    image = {"crop": base[5:50, 7:70, :3], "step": base[::2, ::3, 0], "transpose": base[:, :, 0].T,
             "reversed": base[::-1, :, :3], "fortran": np.asfortranarray(base[:, :, :3]),
             "channel-slice": base[:, :, 1]}[view]
    out, _ = fs.filter(image, "gaussian:5:1")
    expected, _ = fs.filter(np.ascontiguousarray(image), "gaussian:5:1")
    np.testing.assert_array_equal(out, expected)


def test_input_is_not_modified(rng):
    image = rng.integers(0, 256, (20, 20, 3), dtype=np.uint8)
    before = image.copy()
    fs.filter(image, "sharpen")
    np.testing.assert_array_equal(image, before)


class HostDLPack:
    """A foreign CPU array that speaks only DLPack (as a torch CPU tensor does)."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class FakeDeviceArray:
    def __init__(self, interface=None, dlpack_device=None):
        if interface:
            self.__cuda_array_interface__ = {"shape": (4, 4), "typestr": "|u1", "data": (0, False), "version": 3}
        if dlpack_device is not None:
            self.__dlpack_device__ = lambda: (dlpack_device, 0)
            self.__dlpack__ = lambda stream=None: None


def test_dlpack_cpu_array_is_filtered_in_place(rng):
    image = rng.integers(0, 256, (15, 17), dtype=np.uint8)
    out, _ = fs.filter(HostDLPack(image), "box:3")
    np.testing.assert_array_equal(out, fs.filter(image, "box:3")[0])


@pytest.mark.parametrize("array", [FakeDeviceArray(interface=True), FakeDeviceArray(dlpack_device=2)],
                         ids=["cuda-array-interface", "dlpack-cuda"])
def test_device_arrays_go_to_cuda_only_never_to_the_host(array):
    """A GPU array is filtered by backend 'cuda' on the device (test_gpu_arrays.py); elsewhere it is refused, not copied."""
    with pytest.raises(fs.DeviceArrayUnsupported, match="backend 'cuda', not 'cpu'"):
        fs.filter(array, "box:3", backend="cpu")
    with pytest.raises(fs.DeviceArrayUnsupported, match="only filter\\(\\) with backend 'cuda' takes GPU arrays"):
        fs.bench(array, "box:3", backend="cpu", repeats=1)
    assert issubclass(fs.DeviceArrayUnsupported, TypeError)
    if cuda_reason():  # no usable device here: the default backend for a GPU array says so
        with pytest.raises(fs.DeviceUnavailable, match="cuda"):
            fs.filter(array, "box:3")


# --- kernels ---------------------------------------------------------------------------------------------------

def test_every_kernel_argument_type(rng, tmp_path):
    image = rng.integers(0, 256, (25, 31), dtype=np.uint8)
    expected, _ = fs.filter(image, "sobel-x", depth="f32")
    path = tmp_path / "sobel.json"
    path.write_text(fs.kernel("sobel-x").to_json())
    for k in ["sobel-x", fs.kernel("sobel-x"), SOBEL_X, SOBEL_X.astype(np.float64), SOBEL_X.astype(np.int32),
              SOBEL_X.tolist(), [SOBEL_X], str(path), path]:
        out, _ = fs.filter(image, k, depth="f32")
        np.testing.assert_array_equal(out, expected, err_msg=repr(k))


def test_list_of_two_arrays_is_the_magnitude(rng):
    image = rng.integers(0, 256, (25, 31), dtype=np.uint8)
    out, _ = fs.filter(image, [SOBEL_X, SOBEL_Y], depth="f32")
    expected = np.sqrt(gold(image, SOBEL_X) ** 2 + gold(image, SOBEL_Y) ** 2)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert fs.kernel([SOBEL_X, SOBEL_Y]).combine == "magnitude"


def test_kernel_object(tmp_path):
    k = fs.kernel("gaussian:9:2", border="wrap", scale=2, offset=1, abs=True)
    assert k.name == "gaussian:9:2" and k.border == "wrap" and k.radius == (4, 4)
    assert (k.scale, k.offset, k.abs) == (2.0, 1.0, True)
    (w,) = k.weights
    assert w.shape == (9, 9) and w.dtype == np.float32 and abs(float(w.sum()) - 1) < 1e-5
    assert "gaussian:9:2" in repr(k)
    again = pickle.loads(pickle.dumps(k))
    assert again.to_json() == k.to_json()
    path = tmp_path / "k.json"
    path.write_text(k.to_json())
    assert fs.kernel(path).border == "wrap"


def test_kernel_files_bundled_with_the_studio():
    folder = os.path.join(DATA_DIR, "..", "..", "resources", "kernels")
    for name in sorted(os.listdir(folder)):
        assert fs.kernel(os.path.join(folder, name)).weights


# --- listings --------------------------------------------------------------------------------------------------

def test_modes_backends_presets():
    rows = fs.modes()
    cpu = [r for r in rows if r["backend"] == "cpu"]
    assert any(r["reference"] for r in cpu) and sum(r["default"] for r in cpu) == 1
    assert all(set(r) >= {"backend", "mode", "available", "reason", "description"} for r in rows)
    assert all(r["reason"] for r in rows if not r["available"])
    backends = {b["backend"]: b for b in fs.backends()}
    assert backends["cpu"]["available"]
    names = [p["name"] for p in fs.presets()]
    assert "sobel-x[:SIZE]" in names and all(p["summary"] for p in fs.presets())


def test_bench_rows_load_into_pandas(rng):
    pandas = pytest.importorskip("pandas")
    image = rng.integers(0, 256, (64, 64), dtype=np.uint8)
    rows = fs.bench(image, "gaussian:5", modes="all", repeats=2, warmup=0)
    frame = pandas.DataFrame(rows)
    available = [r["mode"] for r in fs.modes() if r["backend"] == "cpu" and r["available"]]
    assert list(frame["mode"]) == available
    assert (frame["median_ms"] > 0).all() and (frame["repeats"] == 2).all()
    assert set(frame.columns) >= {"backend", "kernel", "width", "height", "channels", "depth", "border", "min_ms",
                                  "max_ms", "std_ms", "upload_ms", "kernel_ms", "download_ms", "device"}
    assert len(fs.bench(image, "box:3", modes="reference", repeats=1)) == 1
    assert len(fs.bench(image, "box:3", repeats=1)) == 1


def test_bench_preset_rows():
    rows = fs.bench_preset("course-table1", quick=True, sizes=[64])
    done = [r for r in rows if not r["error"]]
    assert done and all(r["width"] == 64 and r["total_ms"] > 0 for r in done)
    assert all(r["skipped"] for r in rows if r["error"] and "unavailable" in r["error"])
    with pytest.raises(ValueError):
        fs.bench_preset("no-such-table")


# --- pipeline and layer ----------------------------------------------------------------------------------------

PIPELINE = {"format": "filterstudio-pipeline", "version": 1, "name": "edges", "steps": [
    {"op": "grayscale"}, {"op": "convolve", "filter": "gaussian:5:1.2"},
    {"op": "threshold", "threshold": 100}, {"op": "label"}]}


def test_pipeline_from_dict_and_file(tmp_path):
    image = fs.read_image(os.path.join(DATA_DIR, "fruits.jpg"))
    out, info = fs.pipeline(image, PIPELINE)
    assert out.dtype == np.float32 and out.shape == image.shape[:2]
    assert [s["label"] for s in info["steps"]][0] == "grayscale" and len(info["steps"]) == 4
    assert info["object_count"] == int(out.max()) > 0
    path = tmp_path / "p.json"
    path.write_text(json.dumps(PIPELINE))
    again, _ = fs.pipeline(image, str(path))
    np.testing.assert_array_equal(out, again)


def test_pipeline_errors(tmp_path):
    image = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(ValueError, match="steps"):
        fs.pipeline(image, {"format": "filterstudio-pipeline", "version": 1, "steps": [{"op": "nope"}]})
    with pytest.raises(ValueError, match="label"):
        fs.pipeline(image, {"format": "filterstudio-pipeline", "version": 1, "steps": [{"op": "label"}]})
    with pytest.raises(ValueError):
        fs.pipeline(image, str(tmp_path / "missing.json"))
    with pytest.raises(TypeError):
        fs.pipeline(image, 42)


BANK = {"format": "filterstudio-kernel-bank", "version": 1, "name": "edges", "inputs": 2, "outputs": 2,
        "kernels": [[{"weights": [[1, 0, -1]]}, {"weights": [[1], [0], [-1]]}],
                    [{"weights": [[0.5]]}, {"weights": [[0.25, 0.5, 0.25]]}]],
        "border": {"mode": "reflect101"}, "output": {"abs": True}}


def test_layer_sums_the_inputs_filtered(rng):
    a = rng.integers(0, 256, (20, 24), dtype=np.uint8)
    b = rng.integers(0, 256, (20, 24), dtype=np.uint8)
    outputs, timing = fs.layer([a, b], BANK)
    assert len(outputs) == 2 and timing.backend == "cpu"
    expected0 = np.abs(gold(a, [[1, 0, -1]]) + gold(b, [[0.5]]))
    np.testing.assert_array_equal(outputs[0], np.clip(np.rint(expected0), 0, 255).astype(np.uint8))
    with pytest.raises(ValueError):
        fs.layer([a], BANK)
    with pytest.raises(ValueError):
        fs.layer([a, b[:10]], BANK)


# --- files -----------------------------------------------------------------------------------------------------

def test_read_and_write_images(tmp_path, rng):
    image = fs.read_image(os.path.join(DATA_DIR, "fruits.jpg"))
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    target = tmp_path / "out.png"
    sixteen = rng.integers(0, 65536, (10, 12, 3), dtype=np.uint16)
    fs.write_image(target, sixteen)
    np.testing.assert_array_equal(fs.read_image(target), sixteen)
    with pytest.raises(OSError, match="exists"):
        fs.write_image(target, sixteen)
    fs.write_image(target, sixteen, overwrite=True)
    assert sorted(os.listdir(tmp_path)) == ["out.png"]  # no temporary file left behind
    with pytest.raises(OSError, match="missing.png"):
        fs.read_image(tmp_path / "missing.png")


def test_result_equals_the_cli(tmp_path):
    cli = os.environ.get("FS_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("filterstudio-cli is not built in this build folder")
    source = os.path.join(DATA_DIR, "fruits.jpg")
    target = tmp_path / "cli.png"
    subprocess.run([cli, "apply", "-i", source, "-o", str(target), "-k", "sobel-mag", "--border", "replicate"],
                   check=True, capture_output=True)
    out, _ = fs.filter(fs.read_image(source), "sobel-mag", border="replicate")
    np.testing.assert_array_equal(out, fs.read_image(target))


# --- threads ---------------------------------------------------------------------------------------------------

def test_calls_from_many_threads_agree(rng):
    images = [rng.integers(0, 256, (120, 90, 3), dtype=np.uint8) for _ in range(8)]
    kernels = ["gaussian:7:2", "sobel-mag", "box:5", "sharpen"]
    serial = [fs.filter(im, kernels[i % 4])[0] for i, im in enumerate(images)]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda i: fs.filter(images[i], kernels[i % 4])[0], range(8)))
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)


def test_gil_is_released_while_filtering():
    image = fs.random_image(800, 800)
    start = time.perf_counter()
    fs.filter(image, "gaussian:13:3", mode="reference")
    alone = time.perf_counter() - start
    worker = threading.Thread(target=fs.filter, args=(image, "gaussian:13:3"), kwargs={"mode": "reference"})
    stamps = [time.perf_counter()]
    worker.start()
    while worker.is_alive():  # a filter holding the GIL would stop this loop for the whole run
        stamps.append(time.perf_counter())
    worker.join()
    assert len(stamps) > 1 and np.diff(stamps).max() < alone / 2, (alone, np.diff(stamps).max())


# --- errors: the CLI's messages --------------------------------------------------------------------------------

@pytest.mark.parametrize("image, error, message", [
    ([[1, 2], [3, 4]], TypeError, "must be a NumPy array"),
    (np.zeros((4, 4), np.int32), TypeError, "dtype int32"),
    (np.zeros((4, 4), np.float64), TypeError, "uint8, uint16 or float32"),
    (np.zeros((4, 4, 2), np.uint8), ValueError, "2 channels"),
    (np.zeros((2, 4, 4, 3), np.uint8), ValueError, "4-dimensional"),
    (np.zeros((0, 4), np.uint8), ValueError, "empty"),
    (np.zeros(4, np.uint8), ValueError, "1-dimensional"),
])
def test_bad_images(image, error, message):
    with pytest.raises(error, match=message):
        fs.filter(image, "box:3")


@pytest.mark.parametrize("kernel, error, message", [
    ("no-such-kernel", ValueError, "no-such-kernel"),
    ("gaussian:4:1", ValueError, "4"),
    (np.ones((2, 3)), ValueError, "even"),
    (np.ones((3, 3, 3)), ValueError, "2-D"),
    (np.ones((65, 65)), ValueError, "odd, 1 to 63"),
    (np.array([[1, np.nan, 1]]), ValueError, "finite"),
    ([np.ones((3, 3))] * 3, ValueError, "give 2 arrays, not 3"),
    (np.array([["a"]]), TypeError, "numbers"),
    (42, TypeError, "kernel must be"),
    ("missing-kernel.json", OSError, "missing-kernel.json"),
])
def test_bad_kernels(kernel, error, message):
    with pytest.raises(error, match=message):
        fs.filter(np.zeros((8, 8), np.uint8), kernel)


@pytest.mark.parametrize("options, error, message", [
    ({"border": "mirror"}, ValueError, "mirror"),
    ({"depth": "f64"}, ValueError, "depth must be 'same' or 'f32', not 'f64'"),
    ({"output_size": "full"}, ValueError, "output_size must be 'same' or 'valid', not 'full'"),
    ({"scale": float("inf")}, ValueError, "scale needs a finite number"),
    ({"offset": 1e39}, ValueError, "offset must fit a 32-bit float"),
    ({"scale": "2"}, TypeError, "scale must be a number, not str"),
    ({"border": 3}, TypeError, "border must be text"),
    ({"backend": "metal"}, ValueError, "no backend 'metal' \\(FilterStudio has cpu, cuda and opencl; this build has cpu"),
    ({"mode": "warp-speed"}, ValueError, "cpu has no mode 'warp-speed' \\(have: "),
    ({"output_size": "valid", "kernel": "box:63"}, ValueError, "box:63"),
])
def test_bad_options(options, error, message):
    kernel = options.pop("kernel", "box:3")
    with pytest.raises(error, match=message):
        fs.filter(np.zeros((16, 16), np.uint8), kernel, **options)


def test_missing_device_is_a_runtime_error():
    reason = cuda_reason()
    if reason is None:
        pytest.skip("a CUDA device is here")
    with pytest.raises(fs.DeviceUnavailable, match="cuda") as info:
        fs.filter(np.zeros((8, 8), np.uint8), "box:3", backend="cuda")
    assert isinstance(info.value, RuntimeError) and "backend='cpu'" in str(info.value)


def test_every_unavailable_backend_is_a_device_error():
    missing = [b for b in fs.backends() if not b["available"]]
    if not missing:
        pytest.skip("every backend of this build is available here")
    for b in missing:
        with pytest.raises(fs.DeviceUnavailable) as info:
            fs.filter(np.zeros((8, 8), np.uint8), "box:3", backend=b["backend"])
        assert b["reason"] in str(info.value)


def test_unavailable_mode_is_a_device_error():
    usable = {b["backend"] for b in fs.backends() if b["available"]}
    missing = [r for r in fs.modes() if not r["available"] and r["backend"] in usable]
    if not missing:
        pytest.skip("every mode of every available backend is available here")
    with pytest.raises(fs.DeviceUnavailable, match="unavailable"):
        fs.filter(np.zeros((8, 8), np.uint8), "box:3", backend=missing[0]["backend"], mode=missing[0]["mode"])


# --- GPU -------------------------------------------------------------------------------------------------------

def test_cuda_modes_match_the_cpu_reference(rng):
    reason = cuda_reason()
    if reason:
        pytest.skip(reason)
    image = rng.integers(0, 256, (301, 257, 3), dtype=np.uint8)
    expected, _ = fs.filter(image, "gaussian:7:1.5", mode="reference")
    for row, run in cuda_mode_runs(image, "gaussian:7:1.5"):
        if run:
            out, timing = run
            assert timing.upload_ms is not None and timing.kernel_ms is not None
            assert_within_mode_tolerance(out, expected, row, "gaussian:7:1.5", image)


# --- errors: the same words and kind as the CLI's --------------------------------------------------------------

CLI_EXIT_ERRORS = {2: ValueError, 3: OSError, 4: fs.DeviceUnavailable}


@pytest.mark.parametrize("options, cli_args", [
    ({"backend": "metal"}, ["--backend", "metal"]),
    ({"backend": "cuda"}, ["--backend", "cuda"]),
    ({"mode": "warp-speed"}, ["--mode", "warp-speed"]),
    ({"border": "mirror"}, ["--border", "mirror"]),
    ({"depth": "f64"}, ["--depth", "f64"]),
    ({"scale": float("inf")}, ["--scale", "inf"]),
    ({"offset": 1e39}, ["--offset", "1e39"]),
    ({"output_size": "full"}, ["--output-size", "full"]),
    ({"kernel": "no-such-kernel"}, ["-k", "no-such-kernel"]),
    ({"kernel": "gaussian:4:1"}, ["-k", "gaussian:4:1"]),
    ({"kernel": "missing-kernel.json"}, ["-k", "missing-kernel.json"]),
], ids=lambda v: str(v) if isinstance(v, dict) else None)
def test_errors_carry_the_clis_message(tmp_path, options, cli_args):
    cli = os.environ.get("FS_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("filterstudio-cli is not built in this build folder")
    if options.get("backend") == "cuda" and cuda_reason() is None:
        pytest.skip("a CUDA device is here: nothing to refuse")
    source = os.path.join(DATA_DIR, "fruits.jpg")
    args = [cli, "apply", "-i", source, "-o", str(tmp_path / "out.png")]
    args += cli_args if "-k" in cli_args else ["-k", "box:3"] + cli_args
    run = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    cli_message = run.stderr.splitlines()[0].removeprefix("filterstudio-cli: ")
    options = dict(options)
    kernel = options.pop("kernel", "box:3")
    with pytest.raises(CLI_EXIT_ERRORS[run.returncode]) as info:
        fs.filter(fs.read_image(source), kernel, **options)
    # The CLI names its options (--output-size, --backend cpu); the module its arguments.
    spoken = (cli_message.replace("--output-size", "output_size").replace("--backend cpu", "backend='cpu'")
              .replace("--", ""))
    assert str(info.value) == spoken
    assert not os.path.exists(tmp_path / "out.png")


def test_a_failed_run_is_a_filter_error(tmp_path):
    # The output cannot be allocated under the address-space limit: the run fails, the interpreter goes on.
    script = """
import resource, numpy as np, filterstudio as fs
image = np.zeros((6000, 6000), np.uint8)
fs.filter(image[:8, :8], "box:3", mode="reference")
used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (64 << 20), resource.RLIM_INFINITY))
try:
    fs.filter(image, "box:3", mode="reference", depth="f32")
except fs.FilterError as e:
    assert isinstance(e, RuntimeError)
    print("FilterError:", e)
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ)
    assert run.returncode == 0, run.stderr
    assert "FilterError: " in run.stdout and "memory" in run.stdout


def test_nothing_crashes_the_interpreter():
    # Wrong types and values in every call: each must raise a Python exception, in a process that then exits normally.
    script = """
import numpy as np, filterstudio as fs
img = np.zeros((8, 8), np.uint8)
calls = [
    lambda: fs.filter(None, "box:3"), lambda: fs.filter(img, None), lambda: fs.filter(img, []),
    lambda: fs.filter(img, [[]]), lambda: fs.filter(img, np.zeros((0, 3))), lambda: fs.filter(img, [img, None]),
    lambda: fs.filter(img, "box:3", backend=3), lambda: fs.filter(img, "box:3", mode=3),
    lambda: fs.filter(img, "box:3", scale=object()), lambda: fs.filter(np.zeros((1 << 31, 0), np.uint8), "box:3"),
    lambda: fs.filter(np.zeros((8, 8, 3), np.uint8)[:, :, ::-1].transpose(1, 0, 2), "box:99"),
    lambda: fs.kernel("gaussian:9999:1"), lambda: fs.kernel(np.ones((1, 1)) * np.inf),
    lambda: fs.bench(img, "box:3", repeats=0), lambda: fs.bench(img, "box:3", modes=[]),
    lambda: fs.bench(img, "box:3", modes=[1, 2]), lambda: fs.bench_preset("course-table1", sizes=["x"]),
    lambda: fs.bench_preset("course-table1", sizes=[-5]), lambda: fs.pipeline(img, {"steps": None}),
    lambda: fs.pipeline(img, {}), lambda: fs.layer([], {}), lambda: fs.layer([img], "missing.json"),
    lambda: fs.layer([None], {"format": "filterstudio-kernel-bank"}), lambda: fs.random_image(0, 5),
    lambda: fs.random_image(5, 5, depth="f64"), lambda: fs.read_image("/"), lambda: fs.read_image(None),
    lambda: fs.write_image("/nonexistent/dir/x.png", img), lambda: fs.write_image("/tmp/x.unknown-ext", img),
    lambda: fs._core.batch_plan([], [], "/tmp"), lambda: fs._core.batch_file("/nonexistent.png", [None], "/tmp"),
]
for i, call in enumerate(calls):
    try:
        call()
    except Exception as e:
        assert not isinstance(e, SystemError), (i, e)
    else:
        raise AssertionError(f"call {i} did not raise")
print("all raised")
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ)
    assert run.returncode == 0 and "all raised" in run.stdout, run.stdout + run.stderr
