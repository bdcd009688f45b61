"""A failure injected into a whole run of the real command (imported by ``site`` when
this folder is on PYTHONPATH; see tests/app/test_failures_speak.py).

``P2PCARDS_INJECT`` says where, one or more ``;``-separated
``MODULE:QUALNAME:NTH:KIND``: the NTH call (1 is the first; 0 every call) of
``QUALNAME`` (a function, or ``Class.method``) in ``MODULE`` raises ``KIND``:

- ``storage``: p2pcards' own ``StorageError`` (what the lock module raises);
- ``oserror-N``: an ``OSError`` with errno N and its reason, as a socket raises
  one (``oserror-98``: address already in use);
- ``fileerror-N``: the same with a file name, as a file's call raises one
  (``fileerror-28``: no space left on device);
- ``runtime``: a ``RuntimeError`` (a library's, or a bug's, unexpected error).

The function is replaced right after its module runs, before any other module
imports its name, so ``from MODULE import NAME`` elsewhere gets the injected one
too. Each failure raised is noted in the file ``P2PCARDS_INJECT_LOG`` names, so a
test can tell that the injection really ran.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

_SPECS = [spec.split(":") for spec in os.environ.get("P2PCARDS_INJECT", "").split(";") if spec]
_LOG = os.environ.get("P2PCARDS_INJECT_LOG")


def _note(what: str) -> None:
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(what + "\n")


def _failure(kind: str, where: str) -> BaseException:
    if kind == "storage":
        from p2pcards.net.storage import StorageError
        return StorageError(f"injected storage failure in {where}")
    if kind.startswith(("oserror-", "fileerror-")):
        number = int(kind.split("-", 1)[1])
        if kind.startswith("oserror-"):
            return OSError(number, os.strerror(number))
        return OSError(number, os.strerror(number), f"/injected/{where}")
    return RuntimeError(f"injected failure in {where}")


def _injected(real: Callable[..., Any], where: str, nth: int, kind: str) -> Callable[..., Any]:
    """``real``, whose NTH call raises ``kind`` (Any: whatever it takes and returns)."""
    calls = [0]

    def fails_now() -> bool:
        calls[0] += 1
        return nth == 0 or calls[0] == nth

    def raise_it() -> None:
        _note(f"{where} {calls[0]}")
        raise _failure(kind, where)

    if inspect.iscoroutinefunction(real):
        @functools.wraps(real)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            if fails_now():
                raise_it()
            return await real(*args, **kwargs)
        return async_wrapper

    @functools.wraps(real)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if fails_now():
            raise_it()
        return real(*args, **kwargs)
    return wrapper


def _patch(module: ModuleType, qualname: str, nth: int, kind: str) -> None:
    owner: object = module
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    real = inspect.getattr_static(owner, name)
    wrapped: object = _injected(getattr(owner, name), qualname, nth, kind)
    if isinstance(real, staticmethod):
        wrapped = staticmethod(_injected(real.__func__, qualname, nth, kind))
    elif isinstance(real, classmethod):
        wrapped = classmethod(_injected(real.__func__, qualname, nth, kind))
    setattr(owner, name, wrapped)


class _Patching(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader, name: str) -> None:
        self.inner, self.name = inner, name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.inner.exec_module(module)
        for target, qualname, nth, kind in _SPECS:
            if target == self.name:
                _patch(module, qualname, int(nth), kind)


class _Injector(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in {spec[0] for spec in _SPECS}:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is not None and spec.loader is not None:
            spec.loader = _Patching(spec.loader, fullname)
        return spec


if _SPECS:
    sys.meta_path.insert(0, _Injector())
