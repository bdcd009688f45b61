"""Declarative shapes for decoded messages, checked field by field.

A schema is a small tree of checkers. ``validate(schema, value, path)``
returns the value when it has exactly the declared shape and raises
:class:`MalformedMessage` naming the path and what was wrong otherwise. No
floats, no ``None``, no extra or missing map keys: one meaning per message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from p2pcards.protocol.errors import MalformedMessage
from p2pcards.untrusted_text import unsafe_character
from p2pcards.wiremap import WireList, WireMap, WireValue


class Shape:
    def check(self, value: object, path: str) -> WireValue:  # pragma: no cover - interface
        raise NotImplementedError

    def describe(self) -> dict[str, object]:
        """The shape as JSON data, for ``protocol/schemas.json``."""
        raise NotImplementedError


def _fail(path: str, want: str, value: object) -> MalformedMessage:
    got = type(value).__name__
    if isinstance(value, (bytes, str, list)):
        got += f" of length {len(value)}"
    elif isinstance(value, int) and not isinstance(value, bool):
        got += f" {value}"
    return MalformedMessage(f"{path}: expected {want}, got {got}")


@dataclass(frozen=True)
class Int(Shape):
    """An integer in ``lo..hi``, none of ``gaps`` (a value with no meaning, such as
    Bluff's rank 1: refused by the shape, so by ``message.malformed``)."""

    lo: int
    hi: int
    gaps: tuple[int, ...] = ()

    def describe(self) -> dict[str, object]:
        if self.gaps:
            return {"int": [self.lo, self.hi], "except": list(self.gaps)}
        return {"int": [self.lo, self.hi]}

    def check(self, value: object, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not self.lo <= value <= self.hi \
                or value in self.gaps:
            but = f" except {', '.join(map(str, self.gaps))}" if self.gaps else ""
            raise _fail(path, f"an integer in {self.lo}..{self.hi}{but}", value)
        return value


@dataclass(frozen=True)
class Bool(Shape):
    """msgpack true or false (only in saved files; no message carries one)."""

    def describe(self) -> dict[str, object]:
        return {"bool": True}

    def check(self, value: object, path: str) -> bool:
        if not isinstance(value, bool):
            raise _fail(path, "true or false", value)
        return value


@dataclass(frozen=True)
class OneOf(Shape):
    """The first of ``options`` that the value fits (only in saved files)."""

    options: tuple[Shape, ...]

    def describe(self) -> dict[str, object]:
        return {"one of": [o.describe() for o in self.options]}

    def check(self, value: object, path: str) -> WireValue:
        for option in self.options:
            try:
                return option.check(value, path)
            except MalformedMessage:
                continue
        raise _fail(path, "one of " + ", ".join(str(o.describe()) for o in self.options), value)


@dataclass(frozen=True)
class Bin(Shape):
    """Bytes of exactly ``size`` bytes, or between ``lo`` and ``hi`` when size is None."""

    size: int | None = None
    lo: int = 0
    hi: int = 0

    def describe(self) -> dict[str, object]:
        return {"bin": self.size if self.size is not None else [self.lo, self.hi]}

    def check(self, value: object, path: str) -> bytes:
        if not isinstance(value, bytes):
            raise _fail(path, "bytes", value)
        if self.size is not None:
            if len(value) != self.size:
                raise _fail(path, f"{self.size} bytes", value)
        elif not self.lo <= len(value) <= self.hi:
            raise _fail(path, f"{self.lo}..{self.hi} bytes", value)
        return value


@dataclass(frozen=True)
class Text(Shape):
    max_len: int
    min_len: int = 0

    def describe(self) -> dict[str, object]:
        return {"str": [self.min_len, self.max_len]}

    def check(self, value: object, path: str) -> str:
        if not isinstance(value, str) or not self.min_len <= len(value) <= self.max_len:
            raise _fail(path, f"a string of {self.min_len}..{self.max_len} characters", value)
        bad = unsafe_character(value)
        if bad is not None:
            raise MalformedMessage(f"{path}: character U+{ord(bad):04X} is not allowed "
                                   f"(no control or bidirectional formatting characters)")
        return value


@dataclass(frozen=True)
class Const(Shape):
    """One exact value (a message's fixed tag, e.g. an end-box choice's kind)."""

    value: object

    def describe(self) -> dict[str, object]:
        return {"const": self.value}

    def check(self, value: object, path: str) -> WireValue:
        if type(value) is not type(self.value) or value != self.value:
            raise _fail(path, repr(self.value), value)
        return value


@dataclass(frozen=True)
class ListOf(Shape):
    item: Shape
    lo: int
    hi: int

    def describe(self) -> dict[str, object]:
        return {"array": self.item.describe(), "length": [self.lo, self.hi]}

    def check(self, value: object, path: str) -> WireList:
        if not isinstance(value, list) or not self.lo <= len(value) <= self.hi:
            raise _fail(path, f"a list of {self.lo}..{self.hi} items", value)
        return [self.item.check(v, f"{path}[{i}]") for i, v in enumerate(value)]


@dataclass(frozen=True)
class Tuple(Shape):
    items: tuple[Shape, ...]

    def describe(self) -> dict[str, object]:
        return {"tuple": [item.describe() for item in self.items]}

    def check(self, value: object, path: str) -> WireList:
        if not isinstance(value, list) or len(value) != len(self.items):
            raise _fail(path, f"a list of exactly {len(self.items)} items", value)
        return [s.check(v, f"{path}[{i}]") for i, (s, v) in enumerate(zip(self.items, value, strict=False))]


@dataclass(frozen=True)
class Struct(Shape):
    """A map with exactly these string keys (and, in saved files only, any of ``optional``)."""

    fields: Mapping[str, Shape]
    optional: Mapping[str, Shape] = field(default_factory=dict)

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {"map": {key: shape.describe() for key, shape in self.fields.items()}}
        if self.optional:
            out["optional"] = {key: shape.describe() for key, shape in self.optional.items()}
        return out

    def check(self, value: object, path: str) -> WireMap:
        if not isinstance(value, dict):
            raise _fail(path, "a map", value)
        missing = [k for k in self.fields if k not in value]
        extra = [k for k in value if k not in self.fields and k not in self.optional]
        if missing:
            raise MalformedMessage(f"{path}: missing field {missing[0]!r}")
        if extra:
            raise MalformedMessage(f"{path}: unexpected field {str(extra[0])[:40]!r}")
        out = {k: s.check(value[k], f"{path}.{k}") for k, s in self.fields.items()}
        out.update({k: s.check(value[k], f"{path}.{k}") for k, s in self.optional.items() if k in value})
        return out


@dataclass(frozen=True)
class IntMap(Shape):
    """A small map of short names to non-negative integers (a game configuration)."""

    max_entries: int = 16

    def describe(self) -> dict[str, object]:
        return {"map of str(1..24) to int[0, 2^31-1]": {"max entries": self.max_entries}}

    def check(self, value: object, path: str) -> WireMap:
        if not isinstance(value, dict) or len(value) > self.max_entries:
            raise _fail(path, f"a map of at most {self.max_entries} entries", value)
        for key, item in value.items():
            Text(24, 1).check(key, f"{path} key")
            Int(0, 2**31 - 1).check(item, f"{path}.{key}")
        return value


@dataclass(frozen=True)
class Encoded(Shape):
    """A value its own decoder checks (a proof, a deck); documented, not checked here.

    Sizes are already bounded by the strict decoder.
    """

    encoding: str

    def describe(self) -> dict[str, object]:
        return {"encoded": self.encoding}

    def check(self, value: object, path: str) -> WireValue:
        return value


def validate(shape: Shape, value: object, path: str = "body") -> WireValue:
    return shape.check(value, path)
