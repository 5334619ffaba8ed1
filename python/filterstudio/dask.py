"""FilterStudio on Dask: images larger than one machine, and many files over a cluster.

filter(array, kernel, ...) filters a dask.array chunk by chunk. Each chunk
reads its neighbours' pixels (map_overlap with the kernel's radius as depth
and no boundary of Dask's own); the image's border rule is applied once, by
padding the whole array with it, so it reaches only the true image edges.
Every chunk is then filtered with output_size="valid", which keeps exactly
the pixels whose window lies in that padded chunk: the result equals
filterstudio.filter on the whole image bit for bit.

filter_files(paths, kernels, out_dir, client=...) is `filterstudio-cli batch`
spread over a distributed.Client: one task per input file, the CLI's output
names (<image>__<kernel>.<ext>) and atomic saves, failures reported per file.
"""
import functools
import os

import numpy as np

import filterstudio as _fs

__all__ = ["filter", "filter_files"]

# FilterStudio's border rules as numpy.pad / dask.array.pad modes.
_PAD_MODES = {"replicate": "edge", "reflect101": "reflect", "wrap": "wrap", "constant": "constant"}


def _filter_block(block, kernel, backend, mode, out_depth, filter_alpha):
    out, _ = _fs.filter(block, kernel, backend=backend, mode=mode, depth=out_depth, output_size="valid",
                        filter_alpha=filter_alpha)
    return out


def _grow_small_chunks(chunks, minimum):
    """Chunks along one axis with none smaller than `minimum` (small ones merged into a neighbour)."""
    out = []
    for c in chunks:
        if out and (c < minimum or out[-1] < minimum):
            out[-1] += c
        else:
            out.append(c)
    if len(out) > 1 and out[-1] < minimum:
        out[-2] += out.pop()
    return tuple(out)


def filter(array, kernel, backend="cpu", mode=None, border=None, scale=None, offset=None, abs=False, depth="same",
           output_size="same", filter_alpha=False):
    """filterstudio.filter on a dask.array (H x W or H x W x C), lazily; returns a dask.array.

    The arguments are those of filterstudio.filter; the result has the input's
    chunks (less the kernel's radius at the image's edges for output_size="valid").
    Chunks must be at least the kernel's radius; smaller ones are merged.
    """
    import dask.array as da

    if not isinstance(array, da.Array):
        raise TypeError(f"array must be a dask.array, not {type(array).__name__} (filterstudio.filter takes NumPy arrays)")
    if array.ndim not in (2, 3):
        raise ValueError(f"array must be H x W or H x W x C, not {array.ndim}-dimensional")
    if np.dtype(array.dtype) not in (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32)):
        raise TypeError(f"array has dtype {array.dtype}: FilterStudio takes uint8, uint16 or float32 (convert with .astype)")
    if output_size not in ("same", "valid"):
        raise ValueError(f"output_size must be 'same' or 'valid', not '{output_size}'")
    spec = _fs.kernel(kernel, border=border, scale=scale, offset=offset, abs=abs, depth=depth,
                      filter_alpha=filter_alpha)
    # The backend, mode and image shape are checked once here, not in every chunk.
    probe = np.zeros((1, 1) + tuple(array.shape[2:]), dtype=array.dtype)
    _fs.filter(probe, spec, backend=backend, mode=mode)

    ry, rx = spec.radius
    if array.ndim == 3:
        array = array.rechunk({2: -1})
    if output_size == "same":
        rule, _, value = spec.border.partition(":")
        pad = [(ry, ry), (rx, rx)] + [(0, 0)] * (array.ndim - 2)
        if rule == "constant":
            fill = np.array(float(value or 0)).astype(array.dtype)
            if float(fill) != float(value or 0):
                raise ValueError(f"border {spec.border}: the value does not fit the image's dtype {array.dtype}")
            padded = da.pad(array, pad, mode="constant", constant_values=fill.item())
        else:
            padded = da.pad(array, pad, mode=_PAD_MODES[rule])
        # The padding joins the first and last chunks, so every chunk, once
        # extended by its neighbours, gives exactly its own share of the result.
        core = [_grow_small_chunks(c, r + 1) for c, r in zip(array.chunks[:2], (ry, rx))]
        target = tuple((c[0] + r,) + c[1:-1] + (c[-1] + r,) if len(c) > 1 else (c[0] + 2 * r,)
                       for c, r in zip(core, (ry, rx)))
        padded = padded.rechunk(target + array.chunks[2:])
        out_chunks = tuple(core) + array.chunks[2:]
    else:
        core = [_grow_small_chunks(c, 2 * r + 1) for c, r in zip(array.chunks[:2], (ry, rx))]
        padded = array.rechunk(tuple(core) + array.chunks[2:])
        out_chunks = tuple(
            (c[0] - 2 * r,) if len(c) == 1 else (c[0] - r,) + c[1:-1] + (c[-1] - r,)
            for c, r in zip(core, (ry, rx))) + array.chunks[2:]
        if any(n <= 0 for c in out_chunks[:2] for n in c):
            raise ValueError(f"{spec.name}: the image is smaller than the kernel; output_size='valid' leaves nothing")

    out_dtype = np.float32 if depth == "f32" else array.dtype
    run = functools.partial(_filter_block, kernel=spec, backend=backend, mode=mode, out_depth=depth,
                            filter_alpha=filter_alpha)
    return padded.map_overlap(run, depth={0: ry, 1: rx, **({2: 0} if array.ndim == 3 else {})}, boundary="none",
                              trim=False, allow_rechunk=False, chunks=out_chunks, dtype=out_dtype,
                              meta=np.empty((0,) * array.ndim, dtype=out_dtype))


def _filter_one_file(path, kernels, out_dir, backend, mode, format, max_pixels, options):
    # overwrite: the plan refused existing outputs before anything ran; a retried
    # task replaces what its first attempt wrote.
    return _fs._core.batch_file(path, kernels, out_dir, backend, mode, format, True, max_pixels, **options)


def filter_files(paths, kernels, out_dir, client=None, backend="cpu", mode=None, format="", overwrite=False,
                 retries=2, max_pixels=268435456, border=None, scale=None, offset=None, abs=False, depth="same",
                 output_size="same"):
    """`filterstudio-cli batch` over a distributed.Client: every input x every kernel, one file each.

    paths: files, folders or globs, as batch -i takes them. kernels: presets,
    kernel files or filterstudio.Kernel objects (arrays become Kernels). Every
    output is checked before anything runs (ValueError for clashing names,
    OSError for existing outputs without overwrite). Then one task per file runs
    on the cluster (retried `retries` times, and again when its worker dies);
    each output is written through a temporary file renamed into place, so no
    file is ever half-written. Returns one dict per input: input, outputs, ok,
    error, problems, backend, mode, seconds. A failed file does not stop the others.
    client: a distributed.Client (default: the current one).
    """
    from distributed import as_completed, get_client

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    kernels = [k if isinstance(k, (str, _fs.Kernel)) else (os.fspath(k) if isinstance(k, os.PathLike)
                                                            else _fs.kernel(k)) for k in kernels]
    options = dict(border=border, scale=scale, offset=offset, abs=abs, depth=depth, output_size=output_size)
    plan = _fs._core.batch_plan(paths, kernels, os.fspath(out_dir), format, overwrite, **options)
    if client is None:
        try:
            client = get_client()
        except ValueError:
            raise ValueError("filter_files needs a distributed.Client (client=..., or one made current)") from None
    inputs = [item[0] for item in plan]
    futures = client.map(_filter_one_file, inputs, kernels=kernels, out_dir=os.fspath(out_dir), backend=backend,
                         mode=mode, format=format, max_pixels=max_pixels, options=options, retries=retries,
                         pure=False)
    where = {f.key: i for i, f in enumerate(futures)}
    results = [None] * len(futures)
    for future in as_completed(futures):
        i = where[future.key]
        try:
            results[i] = future.result()
        except Exception as e:  # the task itself failed every try (or killed its workers): this file only
            results[i] = dict(input=inputs[i], outputs=plan[i][1], written=0, ok=False,
                              error=f"{type(e).__name__}: {e}", problems=[], backend=backend, mode=mode or "",
                              seconds=0.0)
    return results
