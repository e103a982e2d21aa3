"""ScopedValue and ValueType: a value in `construct` with its scope (`self.dense` is value "dense" in scope
"self"), as MindSpore's rewrite names a call's function, its arguments and its targets."""
from __future__ import annotations

from enum import Enum
from typing import List, Optional, Tuple, Union

from .checks import check_elements, check_type


class ValueType(Enum):
    """The kind of a `ScopedValue`: a constant, a tuple/list/dict of values, a name, or an object rewrite cannot
    spell (`CustomObjValue`), or an expression it keeps as text (`UnsupportedValue`)."""

    ConstantValue = 0
    TupleValue = 20
    ListValue = 21
    DictValue = 22
    NamingValue = 40
    CustomObjValue = 41
    UnsupportedValue = 50


class ScopedValue:
    """A value with its full scope: a target of an assignment, the function of a call, or an argument.

    Args:
        arg_type (ValueType): the kind of the value.
        scope (str): the scope, "self" for `self.var1`. Default: "".
        value: the value itself (a name for `NamingValue`, a Python constant for `ConstantValue`).
    """

    def __init__(self, arg_type: ValueType, scope: str = "", value=None) -> None:
        check_type("ScopedValue", "arg_type", arg_type, [ValueType])
        check_type("ScopedValue", "scope", scope, [str])
        self.type = arg_type
        self.scope = scope
        self.value = value

    @classmethod
    def create_variable_value(cls, value) -> Optional["ScopedValue"]:
        """A ScopedValue of a Python value: a constant, a tuple/list/dict of them, or a custom object."""
        if value is None or isinstance(value, (int, float, str, bool)):
            return cls(ValueType.ConstantValue, "", value)
        if isinstance(value, tuple):
            return cls(ValueType.TupleValue, "", tuple(cls.create_variable_value(v) for v in value))
        if isinstance(value, list):
            return cls(ValueType.ListValue, "", [cls.create_variable_value(v) for v in value])
        if isinstance(value, dict):
            return cls(ValueType.DictValue, "", {cls.create_variable_value(k): cls.create_variable_value(v)
                                                 for k, v in value.items()})
        return cls(ValueType.CustomObjValue, "", value)

    @classmethod
    def create_naming_value(cls, name: str, scope: str = "") -> "ScopedValue":
        """A reference to a variable `name` (in `scope`, e.g. "self")."""
        check_type("ScopedValue", "name", name, [str])
        check_type("ScopedValue", "scope", scope, [str])
        return cls(ValueType.NamingValue, scope, name)

    @staticmethod
    def create_name_values(names: Union[List[str], Tuple[str]],
                           scopes: Union[List[str], Tuple[str]] = None) -> List["ScopedValue"]:
        """References to several variables; `scopes`, when given, pairs one scope with each name."""
        check_elements("ScopedValue", "names", names, [str])
        if scopes is not None:
            check_elements("ScopedValue", "scopes", scopes, [str])
            if len(names) != len(scopes):
                raise ValueError("Length of names should be equal to length of scopes")
        return [ScopedValue.create_naming_value(name, "" if scopes is None else scopes[i])
                for i, name in enumerate(names)]

    def __str__(self) -> str:
        if self.type == ValueType.ConstantValue:
            return str(self.value)
        if self.type == ValueType.NamingValue:
            return f"{self.scope}.{self.value}" if self.scope else str(self.value)
        if self.type == ValueType.CustomObjValue:
            return f"CustomObj: {self.value}"
        return f"Illegal ValueType: {self.type}"

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, ScopedValue):
            return NotImplemented
        return self.type == other.type and self.scope == other.scope and self.value == other.value

    def __hash__(self) -> int:
        return hash((self.type, self.scope, self.value))
