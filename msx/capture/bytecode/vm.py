"""A CPython 3.11 bytecode interpreter over explicit frames.

`VM` executes instructions with ordinary Python semantics: it runs the Python
"glue" between two compiled graphs (one instruction at a time), and the rest
of a function when msx decides not to compile it. Every operation goes through
an overridable method (`call`, `load_attr`, `binary`, `truth`, ...);
`symbolic.SymbolicVM` overrides them to build a graph instead.

Frames are plain objects (`frames.Frame`, not Python's), so the interpreter can stop at any
instruction of any inlined call, keep the frames as data, and continue later:
that is what makes a graph break resumable.
"""
from __future__ import annotations

import operator
import types
from typing import Any, Callable
import opcode

from ...errors import SOURCE_FRAMES, SourceLoc
from ...runtime.list_iterator import ListIterator
from .frames import Frame, bind_arguments, builtins_of, new_frame, type_lookup
from .stack_values import NULL, UNBOUND

__all__ = ["VM", "Frame", "bind_arguments", "builtins_of", "new_frame", "type_lookup", "current_loc", "PUSHED",
           "EXHAUSTED", "UnsupportedInstruction"]

BINARY_OPS = [operator.add, operator.and_, operator.floordiv, operator.lshift, operator.matmul, operator.mul,
              operator.mod, operator.or_, operator.pow, operator.rshift, operator.sub, operator.truediv,
              operator.xor, operator.iadd, operator.iand, operator.ifloordiv, operator.ilshift, operator.imatmul,
              operator.imul, operator.imod, operator.ior, operator.ipow, operator.irshift, operator.isub,
              operator.itruediv, operator.ixor]
BINARY_SYMBOLS = ["+", "&", "//", "<<", "@", "*", "%", "|", "**", ">>", "-", "/", "^", "+=", "&=", "//=", "<<=",
                  "@=", "*=", "%=", "|=", "**=", ">>=", "-=", "/=", "^="]
COMPARE_OPS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
               ">=": operator.ge}
UNARY_OPS = {"UNARY_NEGATIVE": operator.neg, "UNARY_POSITIVE": operator.pos, "UNARY_INVERT": operator.invert}
_CONVERSIONS = {1: str, 2: repr, 3: ascii}
EXHAUSTED = object()


def _jump(test: str, when: bool, pop_always: bool) -> Callable:
    """The handler of a conditional jump: jump to the target when `self.<test>(top of stack)` is `when`; pop the
    top always (POP_JUMP_*) or only when not jumping (JUMP_IF_*_OR_POP). The test is looked up on the VM, so the
    symbolic interpreter's `truth` (a graph break on a tensor's value) applies to every jump."""

    def handler(self, frames, f, ins):
        jump = bool(getattr(self, test)(f.stack[-1])) is when
        if jump:
            f.ip = ins.target
        if pop_always or not jump:
            f.stack.pop()

    return handler


class _Done:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


PUSHED = object()  # `call` pushed a frame (an inlined call) instead of returning a value

_ACTIVE: list["VM"] = []


class VM:
    """Executes frames with Python's own semantics; subclasses change what the operations do."""

    def __init__(self) -> None:
        self.exc_value: BaseException | None = None  # the exception being handled (for a bare `raise`)
        self.frames: list[Frame] = []                 # the frames of the innermost `run`

    # ------------------------------------------------------------ driving
    def run(self, frames: list[Frame], base: int = 0) -> Any:
        """Run until the frame at depth `base` returns; returns its value."""
        outer = self.frames
        self.frames = frames
        _ACTIVE.append(self)
        try:
            return self._loop(frames, base)
        finally:
            _ACTIVE.pop()
            self.frames = outer

    def _loop(self, frames: list[Frame], base: int) -> Any:
        dispatch = self.DISPATCH
        while True:
            f = frames[-1]
            ins = f.info.instrs[f.ip]
            f.ci = f.ip
            f.ip += 1
            try:
                done = dispatch[ins.opname](self, frames, f, ins)
            except Exception as exc:
                if not self.catchable(exc):
                    raise
                self.unwind(frames, base, exc)
                continue
            if done is not None:
                if len(frames) <= base:
                    return done.value
                frames[-1].stack.append(done.value)

    def step(self, frames: list[Frame]) -> Any:
        """Execute exactly one instruction of the top frame (the Python glue of a graph break).

        Returns `_Done` when that instruction returned from the bottom frame, else None. An exception that no
        frame handles propagates to the caller, as it would in Python.
        """
        self.frames = frames
        _ACTIVE.append(self)
        try:
            f = frames[-1]
            ins = f.info.instrs[f.ip]
            f.ci = f.ip
            f.ip += 1
            try:
                done = self.DISPATCH[ins.opname](self, frames, f, ins)
            except Exception as exc:
                self.unwind(frames, 0, exc)
                return None
            if done is not None and frames:
                frames[-1].stack.append(done.value)
                return None
            return done
        finally:
            _ACTIVE.pop()

    def catchable(self, exc: BaseException) -> bool:
        """Whether the interpreted code's own `try` may catch `exc` (interpreter signals must pass through)."""
        return not isinstance(exc, UnsupportedInstruction)

    def unwind(self, frames: list[Frame], base: int, exc: BaseException) -> None:
        """Find the handler of `exc` (CPython's exception table), innermost frame first, or re-raise it."""
        while len(frames) > base:
            f = frames[-1]
            handler = f.info.handler_for(f.ci)
            if handler is not None:
                del f.stack[handler.depth:]
                if handler.lasti:
                    f.stack.append(f.info.instrs[f.ci].offset)
                f.stack.append(exc)
                f.ip = handler.target
                return
            frames.pop()
        raise exc

    # ------------------------------------------------------------ operations (overridden by SymbolicVM)
    def call(self, frames: list[Frame], func: Any, args: tuple, kwargs: dict) -> Any:
        return func(*args, **kwargs)

    def load_global(self, f: Frame, name: str) -> Any:
        try:
            return f.globals[name]
        except KeyError:
            try:
                return f.builtins[name]
            except KeyError:
                raise NameError(f"name {name!r} is not defined") from None

    def store_global(self, f: Frame, name: str, value: Any) -> None:
        f.globals[name] = value

    def delete_global(self, f: Frame, name: str) -> None:
        del f.globals[name]

    def load_attr(self, obj: Any, name: str) -> Any:
        return getattr(obj, name)

    def load_method(self, obj: Any, name: str) -> tuple[Any, Any]:
        """(function, self) for a plain method found on the type, else (NULL, the attribute)."""
        attr = type_lookup(type(obj), name)
        if isinstance(attr, (types.FunctionType, types.MethodDescriptorType)) \
                and name not in getattr(obj, "__dict__", ()):
            return attr, obj
        return NULL, self.load_attr(obj, name)

    def store_attr(self, obj: Any, name: str, value: Any) -> None:
        setattr(obj, name, value)

    def delete_attr(self, obj: Any, name: str) -> None:
        delattr(obj, name)

    def load_deref(self, f: Frame, index: int) -> Any:
        try:
            return f.lp[index].cell_contents
        except ValueError:
            raise NameError(f"free variable {f.info.names[index]!r} referenced before assignment") from None

    def store_deref(self, f: Frame, index: int, value: Any) -> None:
        f.lp[index].cell_contents = value

    def make_cell(self, value: Any) -> types.CellType:
        return types.CellType() if value is UNBOUND else types.CellType(value)

    def subscr(self, obj: Any, key: Any) -> Any:
        return obj[key]

    def store_subscr(self, obj: Any, key: Any, value: Any) -> None:
        obj[key] = value

    def delete_subscr(self, obj: Any, key: Any) -> None:
        del obj[key]

    def binary(self, op: int, a: Any, b: Any) -> Any:
        return BINARY_OPS[op](a, b)

    def unary(self, opname: str, v: Any) -> Any:
        return UNARY_OPS[opname](v)

    def not_(self, v: Any) -> bool:
        return not self.truth(v)

    def compare(self, op: str, a: Any, b: Any) -> Any:
        return COMPARE_OPS[op](a, b)

    def is_op(self, a: Any, b: Any) -> bool:
        return a is b

    def contains(self, item: Any, container: Any) -> bool:
        return item in container

    def truth(self, v: Any) -> bool:
        return bool(v)

    def is_none(self, v: Any) -> bool:
        return v is None

    def get_iter(self, v: Any) -> Any:
        return iter(v)

    def next_item(self, it: Any) -> Any:
        try:
            return next(it)
        except StopIteration:
            return EXHAUSTED

    def items_of(self, v: Any) -> list:
        """The elements of an iterable, for unpacking and `*args`."""
        return list(v)

    def mapping_items(self, v: Any) -> list:
        """(key, value) pairs of a mapping, for `**kwargs` and dict displays."""
        return [(k, v[k]) for k in v.keys()]

    def format_value(self, v: Any, conversion: int, spec: str) -> str:
        if conversion:
            v = _CONVERSIONS[conversion](v)
        return format(v, spec)

    def build_string(self, parts: list) -> str:
        return "".join(parts)

    def new_local(self, obj: Any) -> Any:
        """A container or object created by the interpreted code."""
        return obj

    def make_function(self, f: Frame, code: types.CodeType, defaults, kwdefaults, annotations, closure) -> Any:
        fn = types.FunctionType(code, f.globals, code.co_name, defaults, closure)
        fn.__qualname__ = code.co_qualname
        if kwdefaults is not None:
            fn.__kwdefaults__ = kwdefaults
        if annotations is not None:
            fn.__annotations__ = dict(zip(annotations[::2], annotations[1::2])) if isinstance(annotations, tuple) \
                else annotations
        return self.new_local(fn)

    def import_name(self, f: Frame, name: str, fromlist: Any, level: int) -> Any:
        return __import__(name, f.globals, None, fromlist, level)

    def import_from(self, module: Any, name: str) -> Any:
        try:
            return getattr(module, name)
        except AttributeError:
            raise ImportError(f"cannot import name {name!r} from {getattr(module, '__name__', module)!r}") from None

    def before_with(self, manager: Any) -> tuple[Any, Any]:
        """(the bound `__exit__`, the value of `__enter__()`)."""
        enter = type_lookup(type(manager), "__enter__")
        exit_ = type_lookup(type(manager), "__exit__")
        if enter is None or exit_ is None:
            raise TypeError(f"'{type(manager).__name__}' object does not support the context manager protocol")
        return types.MethodType(exit_, manager), enter(manager)

    # ------------------------------------------------------------ instructions
    def op_NOP(self, frames, f, ins):
        pass

    op_RESUME = op_PRECALL = op_CACHE = op_EXTENDED_ARG = op_COPY_FREE_VARS = op_NOP

    def op_POP_TOP(self, frames, f, ins):
        f.stack.pop()

    def op_PUSH_NULL(self, frames, f, ins):
        f.stack.append(NULL)

    def op_COPY(self, frames, f, ins):
        f.stack.append(f.stack[-ins.arg])

    def op_SWAP(self, frames, f, ins):
        s = f.stack
        s[-1], s[-ins.arg] = s[-ins.arg], s[-1]

    def op_LOAD_CONST(self, frames, f, ins):
        f.stack.append(f.info.code.co_consts[ins.arg])

    def op_LOAD_FAST(self, frames, f, ins):
        v = f.lp[ins.arg]
        if v is UNBOUND:
            raise UnboundLocalError(f"cannot access local variable {ins.argval!r} where it is not associated with "
                                    f"a value")
        f.stack.append(v)

    def op_STORE_FAST(self, frames, f, ins):
        f.lp[ins.arg] = f.stack.pop()

    def op_DELETE_FAST(self, frames, f, ins):
        if f.lp[ins.arg] is UNBOUND:
            raise UnboundLocalError(f"cannot access local variable {ins.argval!r} where it is not associated with "
                                    f"a value")
        f.lp[ins.arg] = UNBOUND

    def op_MAKE_CELL(self, frames, f, ins):
        f.lp[ins.arg] = self.new_local(self.make_cell(f.lp[ins.arg]))

    def op_LOAD_CLOSURE(self, frames, f, ins):
        f.stack.append(f.lp[ins.arg])

    def op_LOAD_DEREF(self, frames, f, ins):
        f.stack.append(self.load_deref(f, ins.arg))

    def op_STORE_DEREF(self, frames, f, ins):
        self.store_deref(f, ins.arg, f.stack.pop())

    def op_DELETE_DEREF(self, frames, f, ins):
        cell = f.lp[ins.arg]
        self.load_deref(f, ins.arg)
        del cell.cell_contents

    def op_LOAD_GLOBAL(self, frames, f, ins):
        if ins.arg & 1:
            f.stack.append(NULL)
        f.stack.append(self.load_global(f, ins.argval))

    def op_STORE_GLOBAL(self, frames, f, ins):
        self.store_global(f, ins.argval, f.stack.pop())

    def op_DELETE_GLOBAL(self, frames, f, ins):
        self.delete_global(f, ins.argval)

    def op_LOAD_ATTR(self, frames, f, ins):
        _push(f, self.load_attr(f.stack.pop(), ins.argval))

    def op_LOAD_METHOD(self, frames, f, ins):
        meth, self_ = self.load_method(f.stack.pop(), ins.argval)
        f.stack.append(meth)
        f.stack.append(self_)

    def op_STORE_ATTR(self, frames, f, ins):
        obj = f.stack.pop()
        value = f.stack.pop()
        self.store_attr(obj, ins.argval, value)

    def op_DELETE_ATTR(self, frames, f, ins):
        self.delete_attr(f.stack.pop(), ins.argval)

    def op_BINARY_SUBSCR(self, frames, f, ins):
        key = f.stack.pop()
        obj = f.stack.pop()
        _push(f, self.subscr(obj, key))

    def op_STORE_SUBSCR(self, frames, f, ins):
        key = f.stack.pop()
        obj = f.stack.pop()
        value = f.stack.pop()
        self.store_subscr(obj, key, value)

    def op_DELETE_SUBSCR(self, frames, f, ins):
        key = f.stack.pop()
        obj = f.stack.pop()
        self.delete_subscr(obj, key)

    def op_BINARY_OP(self, frames, f, ins):
        b = f.stack.pop()
        a = f.stack.pop()
        _push(f, self.binary(ins.arg, a, b))

    def op_UNARY_NEGATIVE(self, frames, f, ins):
        _push(f, self.unary(ins.opname, f.stack.pop()))

    op_UNARY_POSITIVE = op_UNARY_INVERT = op_UNARY_NEGATIVE

    def op_UNARY_NOT(self, frames, f, ins):
        f.stack.append(self.not_(f.stack.pop()))

    def op_COMPARE_OP(self, frames, f, ins):
        b = f.stack.pop()
        a = f.stack.pop()
        _push(f, self.compare(ins.argval, a, b))

    def op_IS_OP(self, frames, f, ins):
        b = f.stack.pop()
        a = f.stack.pop()
        f.stack.append(self.is_op(a, b) != bool(ins.arg))

    def op_CONTAINS_OP(self, frames, f, ins):
        container = f.stack.pop()
        item = f.stack.pop()
        f.stack.append(self.contains(item, container) != bool(ins.arg))

    def op_BUILD_SLICE(self, frames, f, ins):
        parts = [f.stack.pop() for _ in range(ins.arg)][::-1]
        f.stack.append(slice(*parts))

    def _pop_n(self, f: Frame, n: int) -> list:
        if n == 0:
            return []
        items = f.stack[-n:]
        del f.stack[-n:]
        return items

    def op_BUILD_TUPLE(self, frames, f, ins):
        f.stack.append(self.new_local(tuple(self._pop_n(f, ins.arg))))

    def op_BUILD_LIST(self, frames, f, ins):
        f.stack.append(self.new_local(self._pop_n(f, ins.arg)))

    def op_BUILD_SET(self, frames, f, ins):
        f.stack.append(self.new_local(set(self.hashable(x) for x in self._pop_n(f, ins.arg))))

    def op_BUILD_MAP(self, frames, f, ins):
        items = self._pop_n(f, 2 * ins.arg)
        f.stack.append(self.new_local({self.hashable(items[i]): items[i + 1] for i in range(0, len(items), 2)}))

    def op_BUILD_CONST_KEY_MAP(self, frames, f, ins):
        keys = f.stack.pop()
        values = self._pop_n(f, ins.arg)
        f.stack.append(self.new_local(dict(zip(keys, values))))

    def op_BUILD_STRING(self, frames, f, ins):
        f.stack.append(self.build_string(self._pop_n(f, ins.arg)))

    def op_LIST_APPEND(self, frames, f, ins):
        v = f.stack.pop()
        f.stack[-ins.arg].append(v)

    def op_SET_ADD(self, frames, f, ins):
        v = f.stack.pop()
        f.stack[-ins.arg].add(self.hashable(v))

    def op_MAP_ADD(self, frames, f, ins):
        value = f.stack.pop()
        key = f.stack.pop()
        f.stack[-ins.arg][self.hashable(key)] = value

    def op_LIST_EXTEND(self, frames, f, ins):
        it = f.stack.pop()
        f.stack[-ins.arg].extend(self.items_of(it))

    def op_SET_UPDATE(self, frames, f, ins):
        it = f.stack.pop()
        f.stack[-ins.arg].update(self.hashable(x) for x in self.items_of(it))

    def op_DICT_UPDATE(self, frames, f, ins):
        mapping = f.stack.pop()
        f.stack[-ins.arg].update((self.hashable(k), v) for k, v in self.mapping_items(mapping))

    def op_DICT_MERGE(self, frames, f, ins):
        mapping = f.stack.pop()
        target = f.stack[-ins.arg]
        for k, v in self.mapping_items(mapping):
            k = self.hashable(k)
            if k in target:
                raise TypeError(f"got multiple values for keyword argument {k!r}")
            target[k] = v

    def op_LIST_TO_TUPLE(self, frames, f, ins):
        f.stack.append(self.new_local(tuple(f.stack.pop())))

    def hashable(self, v: Any) -> Any:
        """A value used as a dict key or set element (its hash reads its value)."""
        return v

    def op_UNPACK_SEQUENCE(self, frames, f, ins):
        items = self.items_of(f.stack.pop())
        if len(items) != ins.arg:
            if len(items) > ins.arg:
                raise ValueError(f"too many values to unpack (expected {ins.arg})")
            raise ValueError(f"not enough values to unpack (expected {ins.arg}, got {len(items)})")
        f.stack.extend(reversed(items))

    def op_UNPACK_EX(self, frames, f, ins):
        before, after = ins.arg & 0xFF, ins.arg >> 8
        items = self.items_of(f.stack.pop())
        if len(items) < before + after:
            raise ValueError(f"not enough values to unpack (expected at least {before + after}, got {len(items)})")
        middle = self.new_local(items[before:len(items) - after])
        f.stack.extend(reversed(items[:before] + [middle] + items[len(items) - after:]))

    def op_FORMAT_VALUE(self, frames, f, ins):
        spec = f.stack.pop() if ins.arg & 0x04 else ""
        v = f.stack.pop()
        f.stack.append(self.format_value(v, ins.arg & 0x03, spec))

    def op_GET_ITER(self, frames, f, ins):
        f.stack.append(self.get_iter(f.stack.pop()))

    def op_FOR_ITER(self, frames, f, ins):
        v = self.next_item(f.stack[-1])
        if v is EXHAUSTED:
            f.stack.pop()
            f.ip = ins.target
        else:
            f.stack.append(v)

    def op_JUMP_FORWARD(self, frames, f, ins):
        f.ip = ins.target

    op_JUMP_BACKWARD = op_JUMP_BACKWARD_NO_INTERRUPT = op_JUMP_FORWARD

    # conditional jumps: (the test on the top of the stack, the outcome that jumps, whether it pops either way)
    op_POP_JUMP_FORWARD_IF_TRUE = op_POP_JUMP_BACKWARD_IF_TRUE = _jump("truth", True, pop_always=True)
    op_POP_JUMP_FORWARD_IF_FALSE = op_POP_JUMP_BACKWARD_IF_FALSE = _jump("truth", False, pop_always=True)
    op_POP_JUMP_FORWARD_IF_NONE = op_POP_JUMP_BACKWARD_IF_NONE = _jump("is_none", True, pop_always=True)
    op_POP_JUMP_FORWARD_IF_NOT_NONE = op_POP_JUMP_BACKWARD_IF_NOT_NONE = _jump("is_none", False, pop_always=True)
    op_JUMP_IF_TRUE_OR_POP = _jump("truth", True, pop_always=False)
    op_JUMP_IF_FALSE_OR_POP = _jump("truth", False, pop_always=False)

    def op_KW_NAMES(self, frames, f, ins):
        f.kw_names = f.info.code.co_consts[ins.arg]

    def op_CALL(self, frames, f, ins):
        n = ins.arg
        s = f.stack
        if s[-n - 2] is NULL:
            func, args = s[-n - 1], s[len(s) - n:]
        else:
            func, args = s[-n - 2], s[len(s) - n - 1:]
        del s[-n - 2:]
        kwargs = {}
        if f.kw_names:
            k = len(f.kw_names)
            kwargs = dict(zip(f.kw_names, args[len(args) - k:]))
            args = args[:len(args) - k]
            f.kw_names = ()
        result = self.call(frames, func, tuple(args), kwargs)
        if result is not PUSHED:
            s.append(result)

    def op_CALL_FUNCTION_EX(self, frames, f, ins):
        s = f.stack
        kwargs = dict(self.mapping_items(s.pop())) if ins.arg & 1 else {}
        args = tuple(self.items_of(s.pop()))
        func = s.pop()
        if s and s[-1] is NULL:
            s.pop()
        result = self.call(frames, func, args, kwargs)
        if result is not PUSHED:
            s.append(result)

    def op_MAKE_FUNCTION(self, frames, f, ins):
        s = f.stack
        code = s.pop()
        closure = s.pop() if ins.arg & 0x08 else None
        annotations = s.pop() if ins.arg & 0x04 else None
        kwdefaults = s.pop() if ins.arg & 0x02 else None
        defaults = s.pop() if ins.arg & 0x01 else None
        s.append(self.make_function(f, code, defaults, kwdefaults, annotations, closure))

    def op_RETURN_VALUE(self, frames, f, ins):
        value = f.stack.pop()
        frames.pop()
        if f.gen_items is not None:  # a generator run to completion: its value is what it yielded
            value = ListIterator(f.gen_items)
        elif f.override is not UNBOUND:
            value = f.override
        return _Done(value)

    def op_RETURN_GENERATOR(self, frames, f, ins):
        if f.gen_items is None:
            raise TypeError("a generator frame must be run with gen_items set")
        f.stack.append(None)  # the value "sent" into the generator when it starts; POP_TOP follows

    def op_YIELD_VALUE(self, frames, f, ins):
        f.gen_items.append(f.stack.pop())
        f.stack.append(None)  # the value of the `yield` expression (nothing is sent to a materialised generator)

    def op_LOAD_ASSERTION_ERROR(self, frames, f, ins):
        f.stack.append(AssertionError)

    def op_RAISE_VARARGS(self, frames, f, ins):
        if ins.arg == 0:
            if self.exc_value is None:
                raise RuntimeError("No active exception to reraise")
            raise self.exc_value
        cause = f.stack.pop() if ins.arg == 2 else UNBOUND
        exc = f.stack.pop()
        if isinstance(exc, type):
            exc = exc()
        if not isinstance(exc, BaseException):
            raise TypeError("exceptions must derive from BaseException")
        if cause is not UNBOUND:
            if isinstance(cause, type):
                cause = cause()
            exc.__cause__ = cause
            exc.__suppress_context__ = True
        raise exc

    def op_PUSH_EXC_INFO(self, frames, f, ins):
        value = f.stack.pop()
        f.stack.append(self.exc_value)
        f.stack.append(value)
        self.exc_value = value

    def op_POP_EXCEPT(self, frames, f, ins):
        self.exc_value = f.stack.pop()

    def op_CHECK_EXC_MATCH(self, frames, f, ins):
        right = f.stack.pop()
        f.stack.append(isinstance(f.stack[-1], right))

    def op_RERAISE(self, frames, f, ins):
        exc = f.stack.pop()
        if ins.arg:
            f.stack.pop()  # lasti: only used by CPython for the traceback's line
        raise exc

    def op_BEFORE_WITH(self, frames, f, ins):
        exit_, value = self.before_with(f.stack.pop())
        f.stack.append(exit_)
        f.stack.append(value)

    def op_WITH_EXCEPT_START(self, frames, f, ins):
        exc = f.stack[-1]
        exit_ = f.stack[-4]
        f.stack.append(self.call(frames, exit_, (type(exc), exc, exc.__traceback__), {}))

    def op_IMPORT_NAME(self, frames, f, ins):
        fromlist = f.stack.pop()
        level = f.stack.pop()
        f.stack.append(self.import_name(f, ins.argval, fromlist, level))

    def op_IMPORT_FROM(self, frames, f, ins):
        f.stack.append(self.import_from(f.stack[-1], ins.argval))

    def op_GET_LEN(self, frames, f, ins):
        f.stack.append(len(f.stack[-1]))


def _push(f: Frame, result: Any) -> None:
    if result is not PUSHED:  # PUSHED: an inlined call (a user `__add__`, a property) will push its value on return
        f.stack.append(result)


def _unsupported(self, frames, f, ins):
    raise UnsupportedInstruction(ins.opname)


class UnsupportedInstruction(Exception):
    """An instruction this interpreter does not execute (async code, `match`, class bodies, ...)."""

    def __init__(self, opname: str) -> None:
        super().__init__(f"the Python instruction {opname} is not supported by msx's bytecode interpreter")
        self.opname = opname


def _dispatch_table(cls: type) -> dict:
    table = {name: _unsupported for name in opcode.opmap}
    for klass in reversed(cls.__mro__):
        for name, fn in vars(klass).items():
            if name.startswith("op_"):
                table[name[3:]] = fn
    return table


VM.DISPATCH = _dispatch_table(VM)


def current_loc() -> list[SourceLoc | None]:
    """The lines the innermost running interpreter is executing, innermost frame first (for errors raised
    inside ops: `msx.errors.user_loc` takes the first outside msx, so a layer's error names the user's call)."""
    if not _ACTIVE:
        return []
    return [f.loc() for f in reversed(_ACTIVE[-1].frames)]


SOURCE_FRAMES[VM._loop.__code__] = current_loc
SOURCE_FRAMES[VM.step.__code__] = current_loc
