"""`mindspore.mindrecord`'s exception classes, as msx errors: each is a `DatasetError` (so an msx error naming
the file) and keeps MindSpore's name, constructor arguments, `error_msg` and `error_code`.

MindSpore's table of numbers and base messages is kept as `EXCEPTIONS`; `error_code` is computed from it as
MindSpore computes it. msx's MindRecord reader raises `MRMOpenError` for a file it cannot read (its message says
what is wrong), and `ParamValueError`/`ParamTypeError` for bad arguments.
"""
from __future__ import annotations

import enum

from ...errors import DatasetError

EXCEPTIONS = {
    "UnknownError": [0, "Unknown Error."], "ParamTypeError": [1, "Param type is error."],
    "ParamValueError": [2, "Param value is error."], "ParamMissError": [3, "Param missing."],
    "PathNotExistsError": [4, "Path does not exist."], "DbConnectionError": [5, "Db connection is error."],
    "MRMOpenError": [100, "MindRecord could not open."],
    "MRMOpenForAppendError": [101, "MindRecord could not open for append."],
    "MRMInvalidPageSizeError": [102, "Failed to set page size."],
    "MRMInvalidHeaderSizeError": [103, "Failed to set header size."],
    "MRMSetHeaderError": [104, "Failed to set header."], "MRMWriteDatasetError": [105, "Failed to write dataset."],
    "MRMCommitError": [107, "Failed to commit."], "MRMLaunchError": [108, "Failed to launch."],
    "MRMFinishError": [109, "Failed to finish."], "MRMCloseError": [110, "Failed to close."],
    "MRMAddSchemaError": [111, "Failed to add schema."], "MRMAddIndexError": [112, "Failed to add index field."],
    "MRMBuildSchemaError": [113, "Failed to build schema."], "MRMGetMetaError": [114, "Failed to get meta info."],
    "MRMIndexGeneratorError": [115, "Failed to create index generator."],
    "MRMGenerateIndexError": [116, "Failed to generate index."],
    "MRMInitSegmentError": [117, "Failed to initialize segment."],
    "MRMFetchCandidateFieldsError": [118, "Failed to fetch candidate category fields."],
    "MRMReadCategoryInfoError": [119, "Failed to read category information."],
    "MRMFetchDataError": [120, "Failed to fetch data by category."],
    "MRMInvalidSchemaError": [200, "Schema is error."], "MRMValidateDataError": [201, "Raw data is valid."],
    "MRMDefineIndexError": [202, "Index field is error."], "MRMDefineBlobError": [203, "Blob field is error."],
    "MRMUnsupportedSchemaError": [204, "Schema is not supported."],
    "MRMDefineCategoryError": [205, "Category field is error."],
}
SYS_ID = 42  # MindSpore's constants, for its error-code layout


class LogRuntime(enum.IntEnum):
    """Where an error was raised, the runtime field of an error code."""

    RT_HOST = 1
    RT_DEVICE = 2


class ErrorCodeType(enum.IntEnum):
    """The type field of an error code."""

    ERROR_CODE = 1
    EXCEPTION_CODE = 2


class ErrorLevel(enum.IntEnum):
    """The severity field of an error code."""

    COMMON_LEVEL = 0
    SUGGESTION_LEVEL = 1
    MINOR_LEVEL = 2
    MAJOR_LEVEL = 3
    CRITICAL_LEVEL = 4


class MSRStatus(enum.IntEnum):
    """The status MindSpore's mindrecord C++ calls return."""

    SUCCESS = 0
    FAILED = 1


SUCCESS, FAILED = MSRStatus.SUCCESS, MSRStatus.FAILED
_RT_HOST, _ERROR_CODE, _COMMON_LEVEL = LogRuntime.RT_HOST, ErrorCodeType.ERROR_CODE, ErrorLevel.COMMON_LEVEL


class MindRecordException(DatasetError):
    """Base of the MindRecord errors. `str()` is MindSpore's `[ClassName]: message`, prefixed by msx's stage."""

    def __init__(self, message: str | None = None) -> None:
        number, base = EXCEPTIONS.get(type(self).__name__, EXCEPTIONS["UnknownError"])
        self._error_code = self.transform_error_code(number)
        self._error_msg = base if message is None else message
        super().__init__(f"[{type(self).__name__}]: {self._error_msg}")

    @property
    def error_msg(self) -> str:
        return self._error_msg

    @error_msg.setter
    def error_msg(self, msg: str) -> None:
        self._error_msg = msg
        self.message = f"[{type(self).__name__}]: {msg}"
        self.args = (self.message,)

    @property
    def error_code(self) -> int:
        return self._error_code

    @staticmethod
    def transform_error_code(exception_no: int) -> int:
        """MindSpore's GE error code of an exception number."""
        mod_id = int(exception_no / 100) + 1
        return (((0xFF & _RT_HOST) << 30) | ((0xFF & _ERROR_CODE) << 28) | ((0xFF & _COMMON_LEVEL) << 25) |
                ((0xFF & SYS_ID) << 17) | ((0xFF & mod_id) << 12) | (0x0FFF & exception_no))


def _detailed(name: str, template: str, doc: str) -> type:
    """An exception class whose constructor takes one detail, formatted into MindSpore's message."""

    def __init__(self, error_detail: object = "") -> None:
        MindRecordException.__init__(self, template.format(error_detail))

    return type(name, (MindRecordException,), {"__init__": __init__, "__doc__": doc})


class UnknownError(MindRecordException):
    """An unknown error."""


class ParamTypeError(MindRecordException):
    """A parameter of the wrong type."""

    def __init__(self, param_name: str, expected_type: object) -> None:
        super().__init__(f"Invalid parameter type. '{param_name}' expect {expected_type} type.")


class ParamMissError(MindRecordException):
    """A required parameter is missing."""

    def __init__(self, param_name: str) -> None:
        super().__init__(f"Param missing. '{param_name}' is required.")


class MRMOpenError(MindRecordException):
    """A MindRecord file could not be opened or read (msx: the message says why)."""

    def __init__(self, message: str = "MindRecord File could not open successfully.") -> None:
        super().__init__(message)


class MRMOpenForAppendError(MindRecordException):
    """A MindRecord file could not be opened for append."""

    def __init__(self, message: str = "MindRecord File could not open successfully for append.") -> None:
        super().__init__(message)


ParamValueError = _detailed("ParamValueError", "Invalid parameter value. {}", "A parameter of a wrong value.")
PathNotExistsError = _detailed("PathNotExistsError", "Invalid path. {}", "A path that does not exist.")
DbConnectionError = _detailed("DbConnectionError", "Db connection is error. Detail: {}", "The index could not be "
                              "read.")
MRMInvalidSchemaError = _detailed("MRMInvalidSchemaError", "Schema format is error. Detail: {}", "A bad schema.")
MRMValidateDataError = _detailed("MRMValidateDataError", "Raw data do not match the schema. Detail: {}",
                                 "Rows that do not fit the schema.")
MRMDefineIndexError = _detailed("MRMDefineIndexError", "Failed to define index field. Detail: {}", "A bad index "
                                "field.")
MRMDefineBlobError = _detailed("MRMDefineBlobError", "Failed to define blob field. Detail: {}", "A bad blob field.")
MRMUnsupportedSchemaError = _detailed("MRMUnsupportedSchemaError", "Schema is not supported. Detail: {}",
                                      "A schema msx (or MindSpore) does not support.")
MRMDefineCategoryError = _detailed("MRMDefineCategoryError", "Failed to define category field. Detail: {}",
                                   "A bad category field.")

for _cls in (ParamValueError, PathNotExistsError, DbConnectionError, MRMInvalidSchemaError, MRMValidateDataError,
             MRMDefineIndexError, MRMDefineBlobError, MRMUnsupportedSchemaError, MRMDefineCategoryError):
    _cls.__module__ = __name__


class MRMInvalidPageSizeError(MindRecordException):
    """Failed to set page size."""


class MRMInvalidHeaderSizeError(MindRecordException):
    """Failed to set header size."""


class MRMSetHeaderError(MindRecordException):
    """Failed to set header."""


class MRMWriteDatasetError(MindRecordException):
    """Failed to write dataset."""


class MRMCommitError(MindRecordException):
    """Failed to commit."""


class MRMLaunchError(MindRecordException):
    """Failed to launch."""


class MRMFinishError(MindRecordException):
    """Failed to finish."""


class MRMCloseError(MindRecordException):
    """Failed to close."""


class MRMAddSchemaError(MindRecordException):
    """Failed to add schema."""


class MRMAddIndexError(MindRecordException):
    """Failed to add index field."""


class MRMBuildSchemaError(MindRecordException):
    """Failed to build schema."""


class MRMGetMetaError(MindRecordException):
    """Failed to get meta info."""


class MRMIndexGeneratorError(MindRecordException):
    """Failed to create index generator."""


class MRMGenerateIndexError(MindRecordException):
    """Failed to generate index."""


class MRMInitSegmentError(MindRecordException):
    """Failed to initialize segment."""


class MRMFetchCandidateFieldsError(MindRecordException):
    """Failed to fetch candidate category fields."""


class MRMReadCategoryInfoError(MindRecordException):
    """Failed to read category information."""


class MRMFetchDataError(MindRecordException):
    """Failed to fetch data by category."""


__all__ = ["EXCEPTIONS", "SYS_ID", "LogRuntime", "ErrorCodeType", "ErrorLevel", "MSRStatus", "SUCCESS", "FAILED", "MindRecordException", "UnknownError", "ParamTypeError", "ParamMissError",
           "MRMOpenError", "MRMOpenForAppendError", "ParamValueError", "PathNotExistsError", "DbConnectionError",
           "MRMInvalidSchemaError", "MRMValidateDataError", "MRMDefineIndexError", "MRMDefineBlobError",
           "MRMUnsupportedSchemaError", "MRMDefineCategoryError", "MRMInvalidPageSizeError",
           "MRMInvalidHeaderSizeError", "MRMSetHeaderError", "MRMWriteDatasetError", "MRMCommitError",
           "MRMLaunchError", "MRMFinishError", "MRMCloseError", "MRMAddSchemaError", "MRMAddIndexError",
           "MRMBuildSchemaError", "MRMGetMetaError", "MRMIndexGeneratorError", "MRMGenerateIndexError",
           "MRMInitSegmentError", "MRMFetchCandidateFieldsError", "MRMReadCategoryInfoError", "MRMFetchDataError"]
