"""When a part of this process's own table fails: one sentence, and a stop.

A table in one process has several parts running side by side: the host's
relay and its record, the host's own seat, its bots' seats, each in a task of
its own. A part that fails while the others wait for it — a bot seat whose
record cannot be locked, a relay that cannot write its transcript — would
leave the rest waiting for a message that never comes: a table at 0 % CPU,
silent for ever. So the first failure of any part is kept here, and whoever
waits for the table's result hears it at once, as a :class:`LocalFailure`
saying which part failed, why, and what the person can do.
"""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from p2pcards.errors import P2PCardsError
from p2pcards.net.session_events import Degraded, SessionEvent

R = TypeVar("R")


def in_words(error: BaseException) -> str:
    """An exception as a person reads it: a project error's own sentence; a system
    error's reason and file, never its ``[Errno …]``; else its kind and text."""
    if isinstance(error, P2PCardsError):
        return str(error)
    if isinstance(error, OSError) and error.strerror:
        reason = error.strerror[:1].lower() + error.strerror[1:]
        files = [str(f) for f in (error.filename, error.filename2) if f is not None]
        return f"{reason} ({', '.join(files)})" if files else reason
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def what_to_try(error: BaseException) -> str:
    """What a person can do about ``error`` (its kind decides)."""
    from p2pcards.net.journal import JournalInUse
    from p2pcards.net.storage import StorageError
    if isinstance(error, JournalInUse):
        return "end the other p2pcards process that holds it first"
    number = getattr(error, "errno", None)
    if number == errno.ENOSPC:
        return "free some space on that disk, then try again"
    if number in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "make that folder writable for you, then try again"
    if isinstance(error, OSError) and error.filename is not None:
        return "check the free space and permissions of that folder, then try again"
    if isinstance(error, (OSError, StorageError)):
        return ("check the free space and permissions of the folder p2pcards saves its "
                "tables in (README.md, Commands, says where), then try again")
    return "run it again with -v to see where it failed"


def unexpected(error: BaseException) -> str:
    """The one sentence a command ends with for an error nothing else explained:
    what failed (a system error's reason and file) and what to try."""
    return f"stopped: {in_words(error)}; {what_to_try(error)}"


class LocalFailure(P2PCardsError):
    """A part of this process's own table failed (``part``: which, in words), so the
    table cannot go on: the message says why and what the person can do; the
    failure itself is its ``__cause__``."""

    def __init__(self, part: str, error: BaseException, afterwards: str = "", *,
                 remedy: str | None = None) -> None:
        """``remedy``: what to do, when the part knows better than the error's kind
        (:func:`what_to_try`); ``afterwards``: what became of the table."""
        super().__init__(f"{part} failed: {in_words(error)}; {remedy or what_to_try(error)}"
                         + (f". {afterwards}" if afterwards else ""))
        self.part = part
        self.__cause__ = error


class CannotListen(P2PCardsError):
    """A table's TCP listener could not open where it was asked (``error``: the
    system's reason, an ``OSError``); the command says where and what to try."""

    def __init__(self, where: str, error: OSError) -> None:
        super().__init__(f"cannot listen on {where}: {in_words(error)}")
        self.error = error


async def speaking(run: Awaitable[R], part: str,
                   keep: tuple[type[BaseException], ...] = ()) -> R:
    """``run``'s result (a seat of this process, ``part`` in words); its failure,
    unless one of ``keep`` (which its caller answers itself), as a
    :class:`LocalFailure` naming ``part``."""
    try:
        return await run
    except LocalFailure:
        raise
    except Exception as error:
        if isinstance(error, keep):
            raise
        raise LocalFailure(part, error) from error


def announce_failed(update: asyncio.Task[None], tell: Callable[[SessionEvent], None]) -> None:
    """A host's new announcement of its free seats that failed (``update``, done):
    the table goes on (its players found it already, and ``--connect`` works), and
    the host is told in words (``tell``)."""
    error = None if update.cancelled() else update.exception()
    if error is not None:
        tell(Degraded(f"Cannot announce the table's free seats on the LAN (mDNS: "
                      f"{in_words(error)}): p2pcards tables may show an older count."))


class FirstFailure:
    """The first failure among the parts of one process's table (see the module
    docstring); :meth:`result` waits for a seat's end or that failure, whichever
    comes first."""

    def __init__(self, afterwards: Callable[[], str] = lambda: "") -> None:
        """``afterwards``: what the person is told of the table besides (asked at
        the failure: whether there is a record to take up again)."""
        self._failed: asyncio.Future[LocalFailure] | None = None
        self.failure: LocalFailure | None = None
        self.afterwards = afterwards

    def _future(self) -> asyncio.Future[LocalFailure]:
        if self._failed is None:
            self._failed = asyncio.get_running_loop().create_future()
        return self._failed

    def fail(self, failure: LocalFailure) -> None:
        """``failure`` stops the table (a later one changes nothing: the first says why)."""
        if self.failure is None:
            self.failure = failure
            self._future().set_result(failure)

    def watch(self, task: asyncio.Task[Any], part: str) -> None:
        """``task`` (one part, named ``part``) ending with an exception stops the table;
        a cancel is a stop, not a failure, and a result is that part's business."""
        def ended(done: asyncio.Task[Any]) -> None:
            error = None if done.cancelled() else done.exception()
            if error is not None:
                self.fail(LocalFailure(part, error, self.afterwards()))
        task.add_done_callback(ended)

    async def result(self, own: asyncio.Task[R], own_part: str) -> R:
        """``own``'s result (this process's own seat, ``own_part`` in words), unless
        another part fails first: then that :class:`LocalFailure`, as is ``own``'s
        own failure. Cancelled while waiting, it stops ``own`` as ``await own``
        would (a person's Ctrl-C is that seat's leave)."""
        failed = self._future()
        waiting: set[asyncio.Future[Any]] = {own, failed}  # Any: a result, or a failure
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            own.cancel()
            await asyncio.wait({own})
            raise
        if not own.done():
            raise failed.result()
        error = None if own.cancelled() else own.exception()
        if isinstance(error, Exception):
            raise LocalFailure(own_part, error, self.afterwards()) from error
        return own.result()


__all__ = ["CannotListen", "FirstFailure", "LocalFailure", "announce_failed", "in_words", "speaking",
           "unexpected", "what_to_try"]
