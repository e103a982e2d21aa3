"""Cell state: buffers, `state_dict` / `load_state_dict` and extra state (torch's protocol, as MindSpore 2.x
has it); `StateMixin` is part of `Cell`."""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Any, Iterator, Mapping

from ..tensor import Parameter, Tensor

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class StateMixin:
    """Buffers and state dicts of `Cell`."""

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """A Tensor of state that is not a Parameter (not trained), read as `self.<name>`; persistent buffers are
        part of `state_dict`."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"register_buffer: the name must be a non-empty str without '.', got {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: {name!r} must be a Tensor or None, got {type(tensor).__name__}")
        if (name in self.__dict__ or name in self._params or name in self._cells) and name not in self._buffers:
            raise KeyError(f"register_buffer: {name!r} is already an attribute of {self.cls_name}")
        self._buffers[name] = tensor
        (self._non_persistent.discard if persistent else self._non_persistent.add)(name)

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path (`"block.bn.running_mean"`)."""
        path, _, name = target.rpartition(".")
        cell = self.get_sub_cell(path) if path else self
        if name not in cell._buffers:
            raise AttributeError(f"get_buffer: {type(cell).__name__} has no buffer {name!r}")
        return cell._buffers[name]

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        seen: set[int] = set()
        cells = self.cells_and_names(name_prefix=prefix) if recurse else [(prefix, self)]
        for cell_prefix, cell in cells:
            for name, b in cell._buffers.items():
                if b is None or (remove_duplicate and id(b) in seen):
                    continue
                seen.add(id(b))
                yield (f"{cell_prefix}.{name}" if cell_prefix else name), b

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """{name: Parameter or buffer} of this Cell and its sub-Cells (references unless keep_vars is False,
        where, as MindSpore documents, the returned entries are the same objects — msx Tensors are immutable
        arrays, so a reference never changes under the caller)."""
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        for cell_prefix, cell in self.cells_and_names(name_prefix=prefix.rstrip(".")):
            cp = f"{cell_prefix}." if cell_prefix else ""
            hooks = cell._hooks
            for hook in list(hooks.state_dict_pre.values()) if hooks else ():
                hook(cell, cp, keep_vars)
            for name, p in cell._params.items():
                if p is not None:
                    destination[cp + name] = p
            for name, b in cell._buffers.items():
                if b is not None and name not in cell._non_persistent:
                    destination[cp + name] = b
            if type(cell).get_extra_state is not StateMixin.get_extra_state:
                destination[cp + "_extra_state"] = cell.get_extra_state()
            for hook in list(hooks.state_dict_post.values()) if hooks else ():
                result = hook(cell, destination, cp, {})
                if result is not None:
                    raise RuntimeError("state_dict post hooks must edit state_dict in place and return None")
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True):
        """Copy values from `state_dict` into this Cell's Parameters and buffers; returns
        `(missing_keys, unexpected_keys)`, and with `strict` raises on either."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"load_state_dict: expected a dict, got {type(state_dict).__name__}")
        state_dict = OrderedDict(state_dict)
        missing: list[str] = []
        errors: list[str] = []
        expected: set[str] = set()
        for cell_prefix, cell in self.cells_and_names():
            cp = f"{cell_prefix}." if cell_prefix else ""
            hooks = cell._hooks
            for hook in list(hooks.load_state_dict_pre.values()) if hooks else ():
                hook(cell, state_dict, cp, {}, strict, missing, [], errors)
            entries = [(n, p) for n, p in cell._params.items() if p is not None]
            entries += [(n, b) for n, b in cell._buffers.items() if b is not None and n not in cell._non_persistent]
            for name, target in entries:
                key = cp + name
                expected.add(key)
                if key not in state_dict:
                    missing.append(key)
                    continue
                value = state_dict[key]
                value = value if isinstance(value, Tensor) else Tensor(value)
                if tuple(value.shape) != tuple(target.shape):
                    errors.append(f"size mismatch for {key}: copying a param with shape {tuple(value.shape)}, "
                                  f"the shape in the current cell is {tuple(target.shape)}")
                    continue
                if isinstance(target, Parameter):
                    target.set_data(value.astype(target.dtype))
                else:
                    cell._buffers[name] = value.astype(target.dtype)
            if type(cell).set_extra_state is not StateMixin.set_extra_state:
                expected.add(cp + "_extra_state")
                if cp + "_extra_state" in state_dict:
                    cell.set_extra_state(state_dict[cp + "_extra_state"])
                elif strict:
                    missing.append(cp + "_extra_state")
        unexpected = [k for k in state_dict if k not in expected]
        result = _IncompatibleKeys(missing, unexpected)
        for _, cell in self.cells_and_names():
            for hook in list(cell._hooks.load_state_dict_post.values()) if cell._hooks else ():
                hook(cell, result)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(map(repr, unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(map(repr, missing)))
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self.cls_name}:\n\t" + "\n\t".join(errors))
        return result

    def get_extra_state(self) -> Any:
        """Extra (non-Tensor) state a subclass puts in `state_dict` under `_extra_state` by overriding this."""
        raise RuntimeError(f"{self.cls_name}.get_extra_state: override it (and set_extra_state) to save extra "
                           f"state in state_dict")

    def set_extra_state(self, state: Any) -> None:
        raise RuntimeError(f"{self.cls_name}.set_extra_state: override it to load the state get_extra_state saved")
