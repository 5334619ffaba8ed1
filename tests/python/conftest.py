"""Shared by the filterstudio tests: the module from this build (PYTHONPATH, set by CTest) and NumPy gold references."""
import os

import numpy as np
import pytest

import filterstudio as fs

DATA_DIR = os.environ.get("FS_TEST_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "data"))

NP_PAD = {"replicate": "edge", "reflect101": "reflect", "wrap": "wrap"}


def gold(image, weights, border="reflect101", value=0.0):
    """Correlation in float64 with FilterStudio's border rules (the result before rounding)."""
    weights = np.asarray(weights, dtype=np.float64)
    ry, rx = weights.shape[0] // 2, weights.shape[1] // 2
    img = image.astype(np.float64)
    if img.ndim == 2:
        img = img[:, :, None]
    pad = ((ry, ry), (rx, rx), (0, 0))
    padded = np.pad(img, pad, mode="constant", constant_values=value) if border == "constant" \
        else np.pad(img, pad, mode=NP_PAD[border])
    out = np.zeros_like(img)
    h, w = img.shape[:2]
    for y in range(weights.shape[0]):
        for x in range(weights.shape[1]):
            out += weights[y, x] * padded[y:y + h, x:x + w]
    return out if image.ndim == 3 else out[:, :, 0]


def cuda_reason():
    """Why the CUDA backend cannot run here, or None."""
    for b in fs.backends():
        if b["backend"] == "cuda":
            return None if b["available"] else "cuda unavailable: " + b["reason"]
    return "this build has no CUDA backend"


def assert_within_mode_tolerance(out, reference, mode_row, kernel, image, scale=1.0):
    """A CUDA mode's result against the CPU reference, within the bound gpu/README.md states for the mode.

    Exact modes fuse multiply-adds (one rounding): float results within float
    error of the sums, integer ones off by one at most, at rounding ties.
    fft and tensor (approximate): within 1e-3 x |scale| x sum|w| x max|x|.
    """
    weight_sum = sum(float(np.abs(w).sum()) for w in fs.kernel(kernel).weights)
    largest = float(np.abs(image.astype(np.float64)).max())
    bound = (1e-3 if mode_row["approximate"] else 1e-5) * abs(scale) * weight_sum * max(largest, 1.0)
    if np.issubdtype(out.dtype, np.integer):
        bound = max(1.0, bound + 0.5)
    diff = np.abs(out.astype(np.float64) - reference.astype(np.float64)).max()
    assert diff <= bound, f"{mode_row['backend']}/{mode_row['mode']}: {diff} > {bound}"


def cuda_mode_runs(image, kernel, **options):
    """(mode row, (result, Timing) or None where the mode refuses this filter, as separable does a dense kernel)."""
    runs = []
    for row in fs.modes():
        if row["backend"] != "cuda" or not row["available"]:
            continue
        try:
            runs.append((row, fs.filter(image, kernel, backend="cuda", mode=row["mode"], **options)))
        except fs.FilterError:
            runs.append((row, None))
    assert any(run for _, run in runs), f"every CUDA mode refused {kernel}"
    return runs


@pytest.fixture
def rng():
    return np.random.default_rng(20261129)


def pytest_configure(config):
    config.addinivalue_line("markers", "large: the 12000x9000 Dask case (minutes on 2 cores); ctest label 'large'")


def pytest_collection_modifyitems(config, items):
    """Large cases run only with FS_LARGE_TESTS=1; without it none is collected (exit code 5: skipped under ctest)."""
    if os.environ.get("FS_LARGE_TESTS") == "1":
        return
    large = [item for item in items if item.get_closest_marker("large")]
    if large:
        config.hook.pytest_deselected(items=large)
        items[:] = [item for item in items if not item.get_closest_marker("large")]
