"""Host buffers for the arrays a call returns, reused once nothing refers to them.

A fresh large NumPy array is fresh memory from the system, and the first write to each
of its pages costs a fault: for a table of a million rows or a 4K label image that is
milliseconds, more than the labeling. A call instead takes a buffer of this thread's
pool that no array returned earlier still uses (its reference count says so) and
returns views of it; a buffer still in use is never handed out again."""
import sys

import numpy as np

POOLED_BYTES = 256 * 1024  # smaller arrays come from the allocator's free lists cheaply
POOL_SIZE = 4
_getrefcount = sys.getrefcount


def empty(pool, shape, dtype, nbytes):
    """An uninitialized array of `shape` and `dtype` (nbytes in all), from `pool` (a
    list) when large."""
    if nbytes < POOLED_BYTES:
        return np.empty(shape, dtype)
    for block in pool:
        # References: the pool's list, `block` here, and getrefcount's argument.
        if block.nbytes >= nbytes and _getrefcount(block) == 3:
            return block[:nbytes].view(dtype).reshape(shape)
    block = np.empty(nbytes + nbytes // 4, np.uint8)  # room for a slightly larger frame
    if len(pool) >= POOL_SIZE:
        pool.pop(0)  # arrays still using it keep it alive; it only leaves the pool
    pool.append(block)
    return block[:nbytes].view(dtype).reshape(shape)
