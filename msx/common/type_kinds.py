"""MindSpore's type system beyond tensor dtypes (`mstype.Int`, `mstype.list_`, `mstype.TensorType`, ...).

MindSpore classifies every value its graph compiler sees: numeric kinds (`Int`, `UInt`, `Float`, `Bool`,
whose instances are the dtypes `int32`, `float16`, ...), containers (`List`, `Tuple`, `Dict`), `String`,
`NoneType`, `Slice`, `FunctionType` and `TensorType(element)`. In msx the dtypes stay msx's `Type`
objects: `Int(32)` is `msx.int32` and `isinstance(msx.int32, Int)` holds; the other kinds are small value
objects that compare equal by kind (and element type).
"""
from __future__ import annotations

import enum

from .. import dtype as _d


class _NumericKind(type):
    """`isinstance(msx.int32, Int)`: a dtype belongs to the numeric kind of its numpy kind."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, _d.Type) and obj.np_dtype.kind == cls._np_kind


def _numeric(name: str, np_kind: str, prefix: str) -> type:
    def __new__(cls, nbits: int | None = None):
        """`Int(32)` is `int32`; `Int()` is the kind itself (what MindSpore prints as `Int`)."""
        if nbits is None:
            return cls
        t = getattr(_d, f"{prefix}{nbits}", None) if prefix != "bool" else _d.bool_
        if not isinstance(t, _d.Type):
            raise TypeError(f"{name}({nbits}): msx has no {prefix}{nbits} dtype")
        return t

    return _NumericKind(name, (), {"_np_kind": np_kind, "__new__": __new__,
                                   "__doc__": f"MindSpore's `{name}` kind: its instances are the {prefix} dtypes."})


Int = _numeric("Int", "i", "int")
UInt = _numeric("UInt", "u", "uint")
Float = _numeric("Float", "f", "float")
Bool = _numeric("Bool", "b", "bool")


class _Kind:
    """A non-tensor type; equal to another of the same kind (and element, for TensorType)."""

    shown = ""

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and getattr(other, "_key", None) == getattr(self, "_key", None)

    def __hash__(self) -> int:
        return hash((type(self).__name__, getattr(self, "_key", None)))

    def __repr__(self) -> str:
        return self.shown or type(self).__name__

    __str__ = __repr__


def _kind(name: str, shown: str) -> type:
    return type(name, (_Kind,), {"shown": shown, "__doc__": f"MindSpore's `{name}` type kind."})


List = _kind("List", "List")
Tuple = _kind("Tuple", "Tuple")
Dict = _kind("Dict", "Dictionary")
String = _kind("String", "String")
NoneType = _kind("NoneType", "None")
Slice = _kind("Slice", "Slice")
FunctionType = _kind("FunctionType", "Func")
Number = _kind("Number", "Number")
TypeType = _kind("TypeType", "TypeType")


class TensorType(_Kind):
    """`TensorType(float32)`: a tensor of that element type; `TensorType()` any tensor."""

    def __init__(self, element=None) -> None:
        self._key = None if element is None else _d.to_msx(element)

    def element_type(self):
        return self._key

    def __repr__(self) -> str:
        return "Tensor" if self._key is None else f"Tensor[{self._key!r}]"

    __str__ = __repr__


# the kinds of MindSpore's graph compiler for values that are not tensors or Python containers: its sparse
# tensors, `...`, `Any`, jit classes, references and the environment objects of its autodiff
AnythingType = _kind("AnythingType", "Any")
Ellipsis_ = _kind("Ellipsis_", "Ellipsis")
EnvType = _kind("EnvType", "Object:EnvType")
MsClassType = _kind("MsClassType", "Class")
RefType = _kind("RefType", "Ref")
CSRTensorType = _kind("CSRTensorType", "CSRTensor")
COOTensorType = _kind("COOTensorType", "COOTensor")
RowTensorType = _kind("RowTensorType", "RowTensor")
SymbolicKeyType = _kind("SymbolicKeyType", "Object:SymbolicKey")
RefKeyType = _kind("RefKeyType", "Object:RefKey")
UndeterminedType = _kind("UndeterminedType", "Undetermined")
coo_tensor, csr_tensor, index_slices = COOTensorType(), CSRTensorType(), RowTensorType()
env_type, symbolic_key, type_refkey, undetermined = EnvType(), SymbolicKeyType(), RefKeyType(), UndeterminedType()

list_, tuple_, string, type_none, number = List(), Tuple(), String(), NoneType(), Number()
function, type_type, tensor_type = FunctionType(), TypeType(), TensorType()
uint = UInt  # MindSpore's `mstype.uint` is the UInt kind


QuantDtype = enum.Enum("QuantDtype", [(f"INT{n}", n - 1) for n in range(1, 17)]
                       + [(f"UINT{n}", 99 + n) for n in range(1, 17)])
QuantDtype.__doc__ = "MindSpore's quantization bit-width names (INT1..INT16 = 0..15, UINT1..UINT16 = 100..115)."
