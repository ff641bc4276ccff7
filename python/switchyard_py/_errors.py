"""Switchyard's errors as Python exceptions.

Every error the runtime reports is an ``absl::Status`` in C++; here it is an
instance of ``switchyard.Error`` with ``.code`` (the status code's name, e.g.
``"INVALID_ARGUMENT"``) and ``.message`` (the full message: what, where, and
how to fix it). Each code has its own subclass, which also derives from the
builtin exception a Python user would expect (``InvalidArgumentError`` is a
``ValueError``, ``NotFoundError`` a ``LookupError``, ``UnimplementedError`` a
``NotImplementedError``, ``ResourceExhaustedError`` a ``MemoryError``, ...),
so ``except ValueError`` keeps working.
"""

__all__ = [
    "Error", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "ResourceExhaustedError", "FailedPreconditionError",
    "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
    "UnavailableError", "DataLossError", "UnauthenticatedError",
]


class Error(Exception):
    """An error from Switchyard: ``.code`` names the status code, ``.message``
    is the whole message."""

    code = "UNKNOWN"

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self):
        return f"{self.code}: {self.message}"


class CancelledError(Error):
    code = "CANCELLED"


class UnknownError(Error):
    code = "UNKNOWN"


class InvalidArgumentError(Error, ValueError):
    code = "INVALID_ARGUMENT"


class DeadlineExceededError(Error, TimeoutError):
    code = "DEADLINE_EXCEEDED"


class NotFoundError(Error, LookupError):
    code = "NOT_FOUND"


class AlreadyExistsError(Error):
    code = "ALREADY_EXISTS"


class PermissionDeniedError(Error, PermissionError):
    code = "PERMISSION_DENIED"


class ResourceExhaustedError(Error, MemoryError):
    code = "RESOURCE_EXHAUSTED"


class FailedPreconditionError(Error, RuntimeError):
    code = "FAILED_PRECONDITION"


class AbortedError(Error, RuntimeError):
    code = "ABORTED"


class OutOfRangeError(Error, IndexError):
    code = "OUT_OF_RANGE"


class UnimplementedError(Error, NotImplementedError):
    code = "UNIMPLEMENTED"


class InternalError(Error, RuntimeError):
    code = "INTERNAL"


class UnavailableError(Error, RuntimeError):
    code = "UNAVAILABLE"


class DataLossError(Error):
    code = "DATA_LOSS"


class UnauthenticatedError(Error):
    code = "UNAUTHENTICATED"


_BY_CODE = {cls.code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError,
    NotFoundError, AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError,
    InternalError, UnavailableError, DataLossError, UnauthenticatedError)}


def error_for(code, message):
    """The exception for status code ``code`` (its name) and ``message``;
    the C++ side raises what this returns."""
    cls = _BY_CODE.get(code, Error)
    return cls(message, code)
