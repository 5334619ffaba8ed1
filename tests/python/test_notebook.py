"""docs/notebooks/lesson.ipynb runs headless (nbclient) from top to bottom, stored without outputs."""
import os
import time

import pytest

from conftest import cuda_reason

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "notebooks", "lesson.ipynb")


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, "strip the outputs before committing"


def test_lesson_notebook_runs(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    start = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    seconds = time.perf_counter() - start
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    images = sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert images == 2, "the two charts"
    if cuda_reason():
        assert "No GPU here" in text
    print(f"lesson.ipynb ran in {seconds:.1f} s")
    assert seconds < 120
