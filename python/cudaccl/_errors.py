"""The package's exceptions. Bad input raises the built-in ValueError or TypeError."""


class CclError(RuntimeError):
    """A failure of the engine that is not the caller's input."""


class CudaError(CclError):
    """A CUDA call failed: `name` is the CUDA error's name ("cudaErrorMemoryAllocation"),
    `code` its cudaError_t value."""

    def __init__(self, message, name, code):
        super().__init__(message)
        self.name = name
        self.code = code


class UnsupportedError(CclError):
    """What was asked needs what this build or machine lacks (CUDA, a usable device)."""
