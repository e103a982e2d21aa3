"""sparsify: MindSpore's `mindspore.rewrite.sparsify` — a network rewritten for sparse inputs.

`sparsify(net, (ArgType.CSR, ArgType.NONSPARSE))` follows the sparse kinds of `construct`'s arguments
through its (flattened) statements: a call whose inputs are sparse becomes its sparse form (a rule of
`sparse_rules`, else `ops.csr_<name>` / `ops.coo_<name>`: `self.relu(x)` -> `ops.csr_relu(x)`), a user
function called with sparse inputs gets a sparse copy (`sparse_csr_default_<name>`), and the kinds of the
results flow on (`x.to_dense()` is dense again). Operators stay as written (their rule only names the result
kind), as in MindSpore. What cannot be followed raises ValueError naming the statement's variable or call.
"""
from __future__ import annotations

import ast
import builtins
import copy
import inspect
import textwrap
import types
from enum import Enum, auto
from typing import Any, Callable, NamedTuple, Optional, Union

from .. import ops as _ops
from ..nn.cell import Cell
from ..sparse_tensor import COOTensor, CSRTensor
from ..tensor import Tensor
from .codegen import compile_function
from .symbol_tree import SymbolTree

_MAX_DEPTH = 10


class ArgType(Enum):
    """The kind of a value for sparsify: CSR (a CSRTensor), COO (a COOTensor), NONSPARSE, or ANY."""

    NONSPARSE = auto()
    CSR = auto()
    COO = auto()
    ANY = auto()


class SparseFunc(NamedTuple):
    """A sparse rule: `fn` (the name of an `ops` function, or a function) and its input/output kinds (read
    from `fn`'s annotations when not given)."""

    fn: Union[str, Callable]
    inputs: Optional[Any] = None
    outputs: Optional[Any] = None


_PREFIX = {ArgType.CSR: "csr", ArgType.COO: "coo"}
_KINDS = {Tensor: ArgType.NONSPARSE, CSRTensor: ArgType.CSR, COOTensor: ArgType.COO}
_SPARSE_CLASSES = {ArgType.CSR: CSRTensor, ArgType.COO: COOTensor}
_ANNOTATION_NAMES = {"Tensor": Tensor, "CSRTensor": CSRTensor, "COOTensor": COOTensor, "int": int, "float": float,
                     "bool": bool, "str": str}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


def _default_rules() -> dict:
    return {_ops.reduce_sum: ["csr_reduce_sum"], _ops.mul: ["csr_mul"], _ops.matmul: ["csr_mv"], "+": [],
            "-": [], "*": ["csr_mul"], "/": ["csr_div"]}


def _kind_of(annotation) -> ArgType:
    if isinstance(annotation, str):  # msx's ops annotate with names (`from __future__ import annotations`)
        annotation = _ANNOTATION_NAMES.get(annotation, annotation)
    kind = _KINDS.get(annotation)
    if kind is not None:
        return kind
    if annotation in (int, float, bool, str):
        return ArgType.NONSPARSE
    raise ValueError(f"Type {annotation} cannot be mapped to ArgType!")


def _tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _inputs_outputs(fn) -> tuple:
    sig = inspect.signature(fn)
    inputs = []
    for param in sig.parameters.values():
        if param.annotation is inspect.Parameter.empty:
            inputs = None
            break
        inputs.append(_kind_of(param.annotation))
    outputs = None if sig.return_annotation is inspect.Signature.empty else _tuple(_kind_of(sig.return_annotation))
    return inputs, outputs


def _rule(rule) -> SparseFunc:
    """A rule as a SparseFunc with its name and kinds (MindSpore's reading of str / SparseFunc / callable)."""
    if isinstance(rule, str):
        fn = getattr(_ops, rule, None)
        if fn is None:
            raise ValueError(f"{rule} not a valid name for mindspore functional op!")
        inputs, outputs = _inputs_outputs(fn)
        return SparseFunc(rule, inputs, outputs)
    if isinstance(rule, SparseFunc):
        if isinstance(rule.fn, str):
            return _rule(rule.fn)
        if callable(rule.fn):
            inputs, outputs = _inputs_outputs(rule.fn)
            if rule.inputs:
                inputs = _tuple(rule.inputs)
            elif inputs is None:
                raise ValueError(f"Input types not provided for {rule}!")
            if rule.outputs:
                outputs = _tuple(rule.outputs)
            elif outputs is None:
                raise ValueError(f"Output types not provided for {rule}!")
            return SparseFunc(rule.fn.__name__, inputs, outputs)
        raise ValueError(f"`fn` {rule.fn} for SparseFunc should be either a string or a function!")
    if callable(rule):
        inputs, outputs = _inputs_outputs(rule)
        if inputs is None or outputs is None:
            raise ValueError(f"Both input types and output types should be provided for {rule}!")
        return SparseFunc(rule.__name__, inputs, outputs)
    raise ValueError(f"Sparse rule {rule} should be either a string or a SparseFunc!")


class _Transformer:
    """Follows value kinds through one function body, rewriting calls on sparse inputs."""

    def __init__(self, type_map: dict, names: dict, cells: dict, rules: dict, ops_name: str, depth: int = 0,
                 functions: Optional[dict] = None) -> None:
        self.type_map, self.names, self.cells, self.rules = type_map, names, cells, rules
        self.ops_name, self.depth = ops_name, depth
        # (name, kinds) -> (its sparse FunctionDef, outputs, its globals), or the outputs of an unchanged one
        self.functions = {} if functions is None else functions
        self.return_types = (ArgType.NONSPARSE,)
        self.dead: dict = {}
        self.changed = False

    # ---------------------------------------------------------------- statements
    def stmt(self, node: ast.stmt) -> ast.stmt:
        if isinstance(node, ast.Assign):
            value, kinds = self.expr(node.value)
            for target in node.targets:
                self._bind(target, kinds)
            return ast.Assign(targets=node.targets, value=value)
        if isinstance(node, (ast.Expr, ast.AugAssign)):
            node.value = self.expr(node.value)[0]
            return node
        if isinstance(node, ast.Return):
            if node.value is not None:
                node.value, self.return_types = self.expr(node.value)
            return node
        if isinstance(node, ast.While):
            node.test = self.expr(node.test)[0]
            before = dict(self.type_map)
            node.body = [self.stmt(s) for s in node.body]
            for var, kind in self.type_map.items():
                if var not in before:
                    before[var] = kind
                elif before[var] != kind:
                    self.dead[var] = (kind, before.pop(var))
            self.type_map = before
            node.orelse = [self.stmt(s) for s in node.orelse]
            return node
        raise ValueError(f"{type(node)} is not supported in SparseTransformer!")

    def _bind(self, target: ast.expr, kinds: tuple) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            if len(target.elts) != len(kinds):
                raise ValueError(f"Target {ast.unparse(target)} size and value size not match for ast.Assign "
                                 f"{len(target.elts)} != {len(kinds)}")
            for elt, kind in zip(target.elts, kinds):
                if not isinstance(elt, ast.Name):
                    raise ValueError(f"Each target {ast.dump(elt)} for ast.Assign should be ast.Name!")
                self.type_map[elt.id] = kind
        elif isinstance(target, ast.Name):
            self.type_map[target.id] = kinds[0] if len(kinds) == 1 else kinds
        else:
            raise ValueError(f"Targets for ast.Assign not supported for {type(target)}!")

    # ---------------------------------------------------------------- expressions
    def expr(self, node: ast.expr) -> tuple[ast.expr, tuple]:
        if isinstance(node, ast.Name):
            return node, self._name_kind(node.id)
        if isinstance(node, (ast.Constant, ast.Attribute, ast.Slice)):
            return node, (ArgType.NONSPARSE,)
        if isinstance(node, (ast.Tuple, ast.List)):
            kinds: tuple = ()
            for i, elt in enumerate(node.elts):
                node.elts[i], k = self.expr(elt)
                kinds += k
            return node, kinds
        if isinstance(node, ast.UnaryOp):
            node.operand, kinds = self.expr(node.operand)
            return node, kinds
        if isinstance(node, (ast.BoolOp, ast.Compare, ast.Subscript)):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child)
            return node, (ArgType.NONSPARSE,)
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        raise ValueError(f"{type(node)} is not supported in SparseTransformer!")

    def _name_kind(self, name: str) -> tuple:
        if name in self.type_map:
            kind = self.type_map[name]
        elif name in self.names:
            kind = ArgType.NONSPARSE
        elif name in self.dead:
            raise ValueError(f"Divergent arg_types {self.dead[name]} for {name} are currently not supported in "
                             f"control flow and the variable is considered dead upon leaving the block")
        else:
            raise ValueError(f"Undefined variable {name}!")
        return kind if isinstance(kind, tuple) else (kind,)

    def _binop(self, node: ast.BinOp) -> tuple[ast.expr, tuple]:
        node.left, left = self.expr(node.left)
        node.right, right = self.expr(node.right)
        kinds = left + right
        if len(kinds) != 2:
            raise ValueError(f"Binary op {ast.unparse(node)} values for arg_type len({kinds}) != 2")
        op = _BINOPS.get(type(node.op), "")
        if not op:
            return node, (ArgType.NONSPARSE,)
        found = self._sparse_func(op, kinds)
        if found is None:
            raise ValueError(f"Sparse rules not defined for {kinds[0]} {op} {kinds[1]}!")
        return node, tuple(found.outputs)

    def _call(self, node: ast.Call) -> tuple[ast.expr, tuple]:
        args, kinds = [], ()
        for arg in node.args:
            new, k = self.expr(arg)
            args.append(new)
            kinds += k
        if all(k == ArgType.NONSPARSE for k in kinds):
            return node, (ArgType.NONSPARSE,)
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        scope = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
        if not name:
            raise RuntimeError(f"Function not exist for {ast.dump(node)}!")
        if not scope:
            if isinstance(getattr(builtins, name, None), types.BuiltinFunctionType):
                return node, (ArgType.NONSPARSE,)
            if name in self.names:
                return self._sparse_call(node, args, self.names[name], kinds)
            raise ValueError(f"Call to undefined {name}!")
        if scope in self.names:
            target = getattr(self.names[scope], name, None)
            if target is None:
                raise ValueError(f"{name} not defined in {self.names[scope]}!")
            return self._sparse_call(node, args, target, kinds)
        if scope == "self":
            cell = self.cells.get(name)
            if cell is None:
                raise ValueError(f"{name} not defined in in Cell.__init__!")
            return self._sparse_call(node, args, cell, kinds)
        scope_kind = self.type_map.get(scope)
        if scope_kind is None:
            raise ValueError(f"Undefined var {scope}!")
        if scope_kind == ArgType.NONSPARSE:
            return node, (ArgType.NONSPARSE,)
        method = getattr(_SPARSE_CLASSES.get(scope_kind), name, None)
        if method is None:
            raise ValueError(f"{_SPARSE_CLASSES.get(scope_kind)} does not have attr {name}!")
        return node, _inputs_outputs(method)[1]

    def _sparse_func(self, func, kinds: tuple) -> Optional[SparseFunc]:
        """The rule for `func` on inputs of `kinds`, or the `ops.<csr|coo>_<name>` op, or None."""
        if isinstance(func, Cell):
            name = type(func).__name__.lower()
        else:
            name = getattr(func, "__name__", func)
        rules = self.rules.get(func, {})
        if ArgType.ANY in rules:
            found = rules[ArgType.ANY]
        elif kinds in rules:
            found = rules[kinds]
        else:
            sparse_name = _PREFIX.get(kinds[0], "$") + "_" + name
            sparse_op = getattr(_ops, sparse_name, None)
            if sparse_op is None:
                if any(k != ArgType.NONSPARSE for k in kinds):
                    return None
                return SparseFunc(name, kinds, (ArgType.NONSPARSE,))
            found = SparseFunc(sparse_name, kinds, _inputs_outputs(sparse_op)[1])
        if found.fn != func:
            self.changed = True
        return found

    def _sparse_call(self, node: ast.Call, args: list, func, kinds: tuple) -> tuple[ast.expr, tuple]:
        found = self._sparse_func(func, kinds)
        if found is not None:
            if found.fn in self.names:
                callee: ast.expr = ast.Name(id=found.fn, ctx=ast.Load())
            else:
                callee = ast.Attribute(value=ast.Name(id=self.ops_name, ctx=ast.Load()), attr=found.fn, ctx=ast.Load())
            return ast.Call(func=callee, args=args, keywords=node.keywords), tuple(found.outputs)
        if getattr(func, "__module__", "").startswith(("msx.ops", "mindspore.ops")):
            raise ValueError(f"Sparse rules not registered for {func}!")
        if isinstance(func, Cell) or not isinstance(func, types.FunctionType):
            raise ValueError(f"sparsify: no sparse rule for {func!r} on inputs {kinds}: give one in sparse_rules "
                             f"(MindSpore's copy of a Cell's construct as a function is not supported)")
        sparse_name = f"sparse_{'_'.join(_PREFIX.get(k, 'default') for k in kinds)}_{func.__name__}"
        key = (func.__name__, kinds)
        known = self.functions.get(key)
        if isinstance(known, tuple) and len(known) == 3 and isinstance(known[0], ast.FunctionDef):
            self.changed = True
            return ast.Call(func=ast.Name(id=sparse_name, ctx=ast.Load()), args=args, keywords=node.keywords), known[1]
        if known is not None:
            return ast.Call(func=node.func, args=args, keywords=node.keywords), known
        if self.depth == _MAX_DEPTH:
            raise RuntimeError(f"Maximum recursion depth {_MAX_DEPTH} for sparsify reached at {func}!")
        func_def = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
        params = [a.arg for a in func_def.args.args]
        inner = _Transformer(dict(zip(params, kinds)), func.__globals__, {}, self.rules, self.ops_name,
                             self.depth + 1, self.functions)
        func_def.body = [inner.stmt(s) for s in func_def.body]
        if inner.changed:
            self.changed = True
            func_def.name, func_def.decorator_list = sparse_name, []
            self.functions[key] = (func_def, inner.return_types, func.__globals__)
            return ast.Call(func=ast.Name(id=sparse_name, ctx=ast.Load()), args=args,
                            keywords=node.keywords), inner.return_types
        self.functions[key] = inner.return_types
        return ast.Call(func=node.func, args=args, keywords=node.keywords), inner.return_types


def _type_map(params: list, arg_types) -> dict:
    if isinstance(arg_types, tuple):
        if len(params) != len(arg_types):
            raise ValueError(f"arg_types should have the same length as function parameters, but "
                             f"{len(arg_types)} != {len(params)}!")
        return dict(zip(params, arg_types))
    if isinstance(arg_types, dict):
        if all(isinstance(k, int) for k in arg_types):
            return {p: arg_types.get(i, ArgType.NONSPARSE) for i, p in enumerate(params)}
        if all(isinstance(k, str) for k in arg_types):
            return {p: arg_types.get(p, ArgType.NONSPARSE) for p in params}
        raise ValueError(f"Keys for arg_types {list(arg_types.keys())} should be all ints or all strings!")
    raise ValueError(f"Unsupported type for arg_types {type(arg_types)}!")


def sparsify(f: Cell, arg_types, sparse_rules: dict = None) -> Cell:
    """A new network running `f`'s construct rewritten for inputs of the sparse kinds `arg_types` (a tuple,
    one ArgType per argument, or a dict by index or by name; arguments left out are NONSPARSE), with
    `sparse_rules` ({function or operator: [rule, ...]}) added to the default ones."""
    stree = SymbolTree.create(f)
    names = stree._globals
    rules: dict = {}
    for source, targets in {**_default_rules(), **(sparse_rules or {})}.items():
        targets = [targets] if not isinstance(targets, (tuple, list)) or isinstance(targets, SparseFunc) \
            else list(targets)
        for target in targets:
            fn = target.fn if isinstance(target, SparseFunc) else target
            if callable(fn) and names.get(fn.__name__) is not fn and getattr(_ops, fn.__name__, None) is not fn:
                raise ValueError(f"{fn} not found in globals or mindspore.ops!")
            found = _rule(target)
            rules.setdefault(source, {})[tuple(found.inputs)] = found
    construct = stree._construct()
    params = [a.arg for a in construct.args.args[1:]]
    ops_name = "ops" if names.get("ops", _ops) is _ops else "_msx_ops"  # `ops`, unless it names something else
    transformer = _Transformer(_type_map(params, arg_types), names, dict(f._cells), rules, ops_name)
    construct.body = [transformer.stmt(copy.deepcopy(s)) for s in construct.body]
    extra = {ops_name: _ops}
    for entry in transformer.functions.values():  # inner functions were recorded first
        if isinstance(entry, tuple) and len(entry) == 3 and isinstance(entry[0], ast.FunctionDef):
            namespace = {**entry[2], **extra}
            extra[entry[0].name] = compile_function(entry[0], namespace)
    return stree._network_from(construct, extra)
