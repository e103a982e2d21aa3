"""Expressions of the ast interpreter: names, attributes, operators, calls, displays, comprehensions,
lambdas, f-strings (an `Interpreter` mixin; statements and calls are `interpreter.py`)."""
from __future__ import annotations

import ast
import inspect
from typing import Any, Callable

from ...tensor import Tensor
from .. import reads
from . import control_flow
from .scope import _BINOPS, _COMPARE, _UNARY, InterpretedFunction, Scope
from .source import source_of_node
from .values import DeferredString, is_dynamic


class Expressions:
    """See the module docstring."""

    def eval_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def eval_Name(self, node: ast.Name) -> Any:
        return self.frame.scope.load(node.id)

    def eval_Attribute(self, node: ast.Attribute) -> Any:
        return self.load_attr(self.value_of(node.value), node.attr)

    def load_attr(self, obj: Any, name: str) -> Any:
        """`obj.name` (`getattr(obj, name)` too): state read from outside the function is guarded."""
        value = getattr(obj, name)
        if not self.is_local(obj) and not isinstance(obj, Tensor):
            reads.note_attribute(obj, name, value)
        return value

    def eval_Subscript(self, node: ast.Subscript) -> Any:
        return self.value_of(node.value)[self.value_of(node.slice)]

    def eval_Slice(self, node: ast.Slice) -> slice:
        return slice(*(self.value_of(x) if x is not None else None for x in (node.lower, node.upper, node.step)))

    def eval_BinOp(self, node: ast.BinOp) -> Any:
        left, right = self.value_of(node.left), self.value_of(node.right)
        if isinstance(left, DeferredString) or isinstance(right, DeferredString):
            raise self.unsupported("an f-string holding tensors can only be printed")
        result = _BINOPS[type(node.op)](left, right)
        if type(result) is list and result is not left and result is not right:
            self.mark_local(result)  # `a + b` and `a * n` make a new list
        return result

    def eval_UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.value_of(node.operand)
        if isinstance(node.op, ast.Not):
            return control_flow.tensor_not(value) if is_dynamic(value) else not self.truth(value, "`not`")
        return _UNARY[type(node.op)](value)

    def eval_BoolOp(self, node: ast.BoolOp) -> Any:
        is_and = isinstance(node.op, ast.And)
        dynamic: list = []
        value = None
        for i, operand in enumerate(node.values):
            value = self.value_of(operand)
            if is_dynamic(value):
                dynamic.append(value)
                continue
            if self.truth(value, "`and`/`or`") != is_and:   # decides the result: and-falsy / or-truthy
                if not dynamic:
                    return value
                dynamic.append(value)
                break
            if dynamic and i == len(node.values) - 1:
                dynamic.append(value)
        if not dynamic:
            return value
        return control_flow.tensor_bool_op(is_and, dynamic)

    def eval_Compare(self, node: ast.Compare) -> Any:
        left = self.value_of(node.left)
        results: list = []
        for op, comparator in zip(node.ops, node.comparators):
            right = self.value_of(comparator)
            result = _COMPARE[type(op)](left, right)
            if len(node.ops) == 1:
                return result
            if not is_dynamic(result) and not self.truth(result, "a comparison"):
                if not results:
                    return result
                results.append(result)
                break
            results.append(result)
            left = right
        if not any(is_dynamic(r) for r in results):
            return results[-1]
        return control_flow.tensor_bool_op(True, results)

    def eval_IfExp(self, node: ast.IfExp) -> Any:
        test = self.value_of(node.test)
        if is_dynamic(test):
            return control_flow.tensor_ifexp(self, node, test)
        return self.value_of(node.body if self.truth(test, "a conditional expression") else node.orelse)

    def eval_NamedExpr(self, node: ast.NamedExpr) -> Any:
        value = self.value_of(node.value)
        self.assign(node.target, value)
        return value

    def eval_Call(self, node: ast.Call) -> Any:
        func = self.value_of(node.func)
        args: list = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(self.value_of(arg.value))
            else:
                args.append(self.value_of(arg))
        kwargs: dict = {}
        for kw in node.keywords:
            if kw.arg is None:
                for key, value in self.value_of(kw.value).items():
                    if key in kwargs:
                        raise TypeError(f"got multiple values for keyword argument '{key}'")
                    kwargs[key] = value
            else:
                kwargs[kw.arg] = self.value_of(kw.value)
        return self.call(func, tuple(args), kwargs)

    def _elements(self, elts: list) -> list:
        out: list = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.value_of(e.value))
            else:
                out.append(self.value_of(e))
        return out

    def eval_List(self, node: ast.List) -> list:
        return self.mark_local(self._elements(node.elts))

    def eval_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self._elements(node.elts))

    def eval_Set(self, node: ast.Set) -> set:
        return self.mark_local(set(self._elements(node.elts)))

    def eval_Dict(self, node: ast.Dict) -> dict:
        out: dict = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                out.update(self.value_of(value))
            else:
                k = self.value_of(key)
                out[k] = self.value_of(value)
        return self.mark_local(out)

    def eval_Lambda(self, node: ast.Lambda) -> InterpretedFunction:
        return self.make_function(node)

    def make_function(self, node: ast.FunctionDef | ast.Lambda) -> InterpretedFunction:
        source = source_of_node(node, self.frame.filename)
        return InterpretedFunction(self, source, self.frame.scope, self._signature(node.args))

    def _signature(self, args: ast.arguments) -> inspect.Signature:
        P = inspect.Parameter
        positional = args.posonlyargs + args.args
        defaults = [self.value_of(d) for d in args.defaults]
        first_default = len(positional) - len(defaults)
        params = []
        for i, a in enumerate(positional):
            kind = P.POSITIONAL_ONLY if i < len(args.posonlyargs) else P.POSITIONAL_OR_KEYWORD
            params.append(P(a.arg, kind, default=defaults[i - first_default] if i >= first_default else P.empty))
        if args.vararg:
            params.append(P(args.vararg.arg, P.VAR_POSITIONAL))
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            params.append(P(a.arg, P.KEYWORD_ONLY, default=self.value_of(d) if d is not None else P.empty))
        if args.kwarg:
            params.append(P(args.kwarg.arg, P.VAR_KEYWORD))
        return inspect.Signature(params)

    # comprehensions run in their own scope, like Python's
    def _comprehension(self, node, emit: Callable[[], None]) -> None:
        generators = node.generators
        first = self.value_of(generators[0].iter)
        names: set = set()
        for gen in generators:
            names |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        outer = self.frame.scope
        scope = Scope({}, None, outer, {}, outer.globals, outer.builtins, local_names=frozenset(names))

        def loop(k: int) -> None:
            gen = generators[k]
            iterable = first if k == 0 else self.value_of(gen.iter)
            for item in iterable:
                self.assign(gen.target, item)
                if all(self._filter(cond) for cond in gen.ifs):
                    if k + 1 < len(generators):
                        loop(k + 1)
                    else:
                        emit()

        self.frame.scope = scope
        try:
            loop(0)
        finally:
            self.frame.scope = outer

    def _filter(self, cond: ast.expr) -> bool:
        value = self.value_of(cond)
        if is_dynamic(value):
            raise self.unsupported("a comprehension's `if` on a tensor value: the number of elements would depend "
                                   "on data; use ops.where or ops.masked_select-style ops instead")
        return self.truth(value, "a comprehension's `if`")

    def eval_ListComp(self, node: ast.ListComp) -> list:
        out = self.mark_local([])
        self._comprehension(node, lambda: out.append(self.value_of(node.elt)))
        return out

    def eval_SetComp(self, node: ast.SetComp) -> set:
        out = self.mark_local(set())
        self._comprehension(node, lambda: out.add(self.value_of(node.elt)))
        return out

    def eval_DictComp(self, node: ast.DictComp) -> dict:
        out = self.mark_local({})

        def emit() -> None:
            key = self.value_of(node.key)
            out[key] = self.value_of(node.value)

        self._comprehension(node, emit)
        return out

    def eval_GeneratorExp(self, node: ast.GeneratorExp) -> Any:
        out: list = []
        self._comprehension(node, lambda: out.append(self.value_of(node.elt)))
        return iter(out)  # evaluated eagerly: a graph has no lazy values

    def eval_JoinedStr(self, node: ast.JoinedStr) -> Any:
        pieces: list = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                pieces.append(part.value)
                continue
            value = self.value_of(part.value)
            spec = self.value_of(part.format_spec) if part.format_spec is not None else ""
            if is_dynamic(value) or isinstance(value, DeferredString) or isinstance(spec, DeferredString):
                if part.conversion != -1 or spec:
                    raise self.unsupported("formatting a tensor value with a conversion or format spec "
                                           "(`{x:.3f}`, `{x!r}`) needs its value at compile time; print it "
                                           "without one")
                pieces.extend(value.pieces if isinstance(value, DeferredString) else [value])
                continue
            if part.conversion == ord("r"):
                value = repr(value)
            elif part.conversion == ord("s"):
                value = str(value)
            elif part.conversion == ord("a"):
                value = ascii(value)
            pieces.append(format(value, spec))
        if not any(isinstance(p, Tensor) for p in pieces):
            return "".join(pieces)
        return DeferredString(pieces)

    def eval_FormattedValue(self, node: ast.FormattedValue) -> Any:
        return self.eval_JoinedStr(ast.JoinedStr([node]))

    def eval_Starred(self, node: ast.Starred) -> Any:
        raise self.unsupported("a starred expression here cannot be captured")

    def eval_Await(self, node) -> Any:
        raise self.unsupported("`await` cannot be captured into a graph")

    def eval_Yield(self, node) -> Any:
        raise self.unsupported("`yield` (a generator) cannot be captured into a graph")

    eval_YieldFrom = eval_Yield
