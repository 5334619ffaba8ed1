"""filterstudio.dask: chunked filtering equal to the whole image, and files over a LocalCluster of 2 worker processes."""
import os
import signal
import time

import numpy as np
import pytest

import filterstudio as fs

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import filterstudio.dask as fsd  # noqa: E402

BORDERS = ["replicate", "reflect101", "wrap", "constant:9"]


def seeded_image(height, width, chunk, channels=None, dtype=np.uint8):
    """A random image made chunk by chunk where it is needed (never sent over the network), the same every time."""
    chunk = chunk if isinstance(chunk, tuple) else (chunk, chunk)
    shape = (height, width) + ((channels,) if channels else ())
    chunks = chunk + ((channels,) if channels else ())
    state = da.random.RandomState(20261129)
    if np.dtype(dtype) == np.float32:
        return state.random_sample(shape, chunks=chunks).astype(np.float32)
    return state.randint(0, np.iinfo(dtype).max + 1, size=shape, chunks=chunks, dtype=dtype)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as c, distributed.Client(c) as client:
        yield client


# --- filter: chunks equal the whole image ----------------------------------------------------------------------

@pytest.mark.parametrize("border", BORDERS)
@pytest.mark.parametrize("kernel, shape, chunk, channels, dtype", [
    ("gaussian:31:5", (420, 530), 100, None, np.uint8),
    ("sobel-mag", (97, 131), 30, 3, np.uint16),
    ("log:9:1.4", (150, 90), 40, 4, np.float32),
    ("box:7", (61, 75), (25, 11), None, np.uint8),  # uneven chunks, some smaller than the kernel
])
def test_chunks_equal_the_whole_image(border, kernel, shape, chunk, channels, dtype):
    array = seeded_image(*shape, chunk, channels, dtype)
    whole = array.compute(scheduler="sync")
    expected, _ = fs.filter(whole, kernel, border=border, filter_alpha=True)
    out = fsd.filter(array, kernel, border=border, filter_alpha=True)
    assert out.dtype == expected.dtype and out.shape == expected.shape
    np.testing.assert_array_equal(out.compute(scheduler="threads"), expected)


def test_valid_output_and_options():
    array = seeded_image(200, 260, 50)
    whole = array.compute(scheduler="sync")
    for options in [dict(output_size="valid"), dict(depth="f32", scale=0.5, offset=-20, abs=True)]:
        expected, _ = fs.filter(whole, "sobel-x", **options)
        out = fsd.filter(array, "sobel-x", **options)
        assert out.shape == expected.shape
        np.testing.assert_array_equal(out.compute(scheduler="threads"), expected)


def test_dask_errors():
    with pytest.raises(TypeError, match="dask.array"):
        fsd.filter(np.zeros((8, 8), np.uint8), "box:3")
    with pytest.raises(TypeError, match="float64"):
        fsd.filter(da.zeros((8, 8), dtype=np.float64), "box:3")
    with pytest.raises(ValueError, match="no-such"):
        fsd.filter(da.zeros((8, 8), dtype=np.uint8), "no-such")
    with pytest.raises(ValueError, match="does not fit"):
        fsd.filter(da.zeros((8, 8), dtype=np.uint8), "box:3", border="constant:300")
    with pytest.raises(ValueError, match="no backend"):
        fsd.filter(da.zeros((8, 8), dtype=np.uint8), "box:3", backend="metal")


def _large_case(client, height, width):
    array = seeded_image(height, width, 1000)
    whole = array.compute(scheduler="sync")
    seconds = {}
    for border in BORDERS:
        start = time.perf_counter()
        expected, _ = fs.filter(whole, "gaussian:31:5", border=border)
        seconds["whole array, " + border] = time.perf_counter() - start
        start = time.perf_counter()
        out = client.compute(fsd.filter(array, "gaussian:31:5", border=border)).result()
        seconds[border] = time.perf_counter() - start
        np.testing.assert_array_equal(out, expected, err_msg=border)
    return seconds


def test_cluster_image_in_1000x1000_chunks(cluster):
    _large_case(cluster, 2000, 3000)


@pytest.mark.large
@pytest.mark.parametrize("workers", [1, 2])
def test_cluster_12000x9000_in_1000x1000_chunks(workers):
    # On 1 worker and on 2, for the times (pytest -s prints them; docs/python.md says what scales).
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as c, distributed.Client(c) as client:
        seconds = _large_case(client, 9000, 12000)
    print(f"12000x9000 in 1000x1000 chunks, gaussian:31:5, {workers} worker(s), seconds:",
          {k: round(v, 2) for k, v in seconds.items()})


# --- filter_files over the cluster -----------------------------------------------------------------------------

def _write_inputs(folder, count):
    folder.mkdir()
    paths = []
    for i in range(count):
        path = folder / f"img{i:03d}.png"
        fs.write_image(path, fs.random_image(160, 120, 3, seed=i + 1))
        paths.append(str(path))
    return paths


def test_files_with_a_worker_killed_mid_run(cluster, tmp_path):
    paths = _write_inputs(tmp_path / "in", 200)
    kernels = ["gaussian:9:2", "sobel-mag"]
    out_dir = tmp_path / "out"
    pids = list(cluster.run(os.getpid).values())
    killer_done = []

    def kill_one_worker_when_started():
        # Once some outputs exist, one worker process dies the hard way (its nanny starts a new one).
        deadline = time.time() + 60
        while time.time() < deadline and (not out_dir.exists() or len(os.listdir(out_dir)) < 40):
            time.sleep(0.01)
        os.kill(pids[0], signal.SIGKILL)
        killer_done.append(len(os.listdir(out_dir)))

    import threading
    killer = threading.Thread(target=kill_one_worker_when_started)
    killer.start()
    results = fsd.filter_files(paths, kernels, out_dir, client=cluster)
    killer.join()
    assert killer_done and killer_done[0] < 400, "the worker was killed after the run had finished"
    assert [r["input"] for r in results] == paths
    assert all(r["ok"] for r in results), [r for r in results if not r["ok"]][:3]
    expected_names = {f"img{i:03d}__{k}.png" for i in range(200) for k in ("gaussian-9-2", "sobel-mag")}
    finished = {n for n in os.listdir(out_dir) if not n.startswith(".")}
    assert finished == expected_names
    for path in paths:  # every output whole and right, the killed worker's included
        image = fs.read_image(path)
        for k, name in zip(kernels, ("gaussian-9-2", "sobel-mag")):
            stem = os.path.splitext(os.path.basename(path))[0]
            np.testing.assert_array_equal(fs.read_image(out_dir / f"{stem}__{name}.png"), fs.filter(image, k)[0])


def test_files_fail_one_by_one(cluster, tmp_path):
    paths = _write_inputs(tmp_path / "in", 3)
    broken = tmp_path / "in" / "broken.png"
    broken.write_bytes(b"not a png")
    results = fsd.filter_files(paths + [str(broken)], ["box:3"], tmp_path / "out", client=cluster)
    assert [r["ok"] for r in results] == [True, True, True, False]
    assert "broken.png" in results[3]["error"]
    assert sorted(os.listdir(tmp_path / "out")) == [f"img{i:03d}__box-3.png" for i in range(3)]


def test_files_refused_before_anything_runs(cluster, tmp_path):
    paths = _write_inputs(tmp_path / "in", 2)
    fsd.filter_files(paths, ["box:3"], tmp_path / "out", client=cluster)
    with pytest.raises(OSError, match="exist"):
        fsd.filter_files(paths, ["box:3"], tmp_path / "out", client=cluster)
    assert all(r["ok"] for r in fsd.filter_files(paths, ["box:3"], tmp_path / "out", client=cluster, overwrite=True))
    with pytest.raises(ValueError):
        fsd.filter_files(paths, ["box:3", "box:3"], tmp_path / "out2", client=cluster)
    with pytest.raises(ValueError):
        fsd.filter_files(paths, ["no-such-kernel"], tmp_path / "out2", client=cluster)
