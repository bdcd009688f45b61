"""One evening at a LAN table, match after match: a match, its end box, the choice,
and the rematch that follows on the same address (PROTOCOL.md §14), for as many
rematches as asked (``host --again N``, ``join --again N``) or chosen.

A joiner signs its choice, carries it to the host (``p2pcards.net.end_box_link``) and
hears the others'; when the host has every seat taken again it closes the
finished table and opens the rematch on the same port, and the players who
chose again join it at once (no discovery), each checking the genesis against
its own record of the match before. After its N rematches a player leaves at
the end box: its seat is freed and the others are told.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from p2pcards.app.front import FrontEnd
from p2pcards.evening.host_side import LINGER, EveningHost
from p2pcards.evening.joiner_side import JoinerEndBox, rejoining_session
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol.again import AGAIN, LEAVE, Chosen, sign_choice
from p2pcards.protocol.end_box import END_BOX_GRACE, LEAVE_ACK_WAIT, Ending
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table_records import Stage
from p2pcards.ui.text_end_box import Countdown, chosen_line, fill_line, filled_line, takers_of

if TYPE_CHECKING:
    from p2pcards.app.hosted import HostedTable, TableOptions
    from p2pcards.app.joined import JoinOptions
    from p2pcards.net.session_events import SessionEvent
    from p2pcards.protocol.seat_fill import Fill

#: Rematches one evening may have at most (every loop is bounded).
MAX_REMATCHES = 1000


class EveningOptions(Protocol):
    """What a command decides of its evening (``join --again N``, ``resume``)."""

    @property
    def again(self) -> int | None:
        """Rematches chosen beforehand (``--again N``); None: the person chooses."""


class HostEveningOptions(EveningOptions, Protocol):
    """What ``host`` decides of its evening besides."""

    @property
    def fill_with_bots(self) -> bool:
        """A seat freed at the end box gets a bot at once."""

    @property
    def seed(self) -> int | None:
        """The insecure test seed: each rematch's is the next number."""


async def wants_again(args: EveningOptions, front: FrontEnd, number: int) -> bool:
    """Whether this player's end box chooses again before rematch ``number + 1``:
    ``--again N`` decides beforehand, else the person (the full screen's ``n`` key,
    plain mode's ``again`` command)."""
    if args.again is not None:
        return number < args.again
    return await front.chooses_again()


def _fill_teller(front: FrontEnd, names: tuple[str, ...]) -> Callable[[Fill], None]:
    """The host's screen: who took each freed seat (its own bots are said as made)."""
    def tell(made: Fill) -> None:
        front.say(fill_line(made, names))
    return tell


def _takers_teller(front: FrontEnd, previous: tuple[tuple[bytes, str], ...],
                   on_event: Callable[[SessionEvent], None] | None) -> Callable[[SessionEvent], None]:
    """A rejoining seat's events, and once its rematch's genesis is taken, who took
    each seat freed at the end box (the genesis names them, signed by the host)."""
    told = False

    def hear(event: SessionEvent) -> None:
        nonlocal told
        if on_event is not None:
            on_event(event)
        table = getattr(front.session, "table", None)
        if told or table is None:
            return
        told = True
        for line in takers_of(previous, [(p.public_key, p.name) for p in table.players]):
            front.say(line)
    return hear


async def host_evening(args: HostEveningOptions, front: FrontEnd, identity: Identity,
                       options: TableOptions, hosted: HostedTable,
                       close: Callable[[HostedTable], Awaitable[None]]) -> SessionResult:
    """The host's match, its end box (opened the moment the match ends, while the host
    decides), then up to ``--again`` rematches on the same port. ``close(hosted)`` ends
    a table as the host command does."""
    current = [hosted]  # the table open now, closed at the end whatever happens
    try:
        return await _host_rematches(args, front, identity, options, current)
    finally:
        await close(current[0])


class _Opening:
    """The host's end box, opened the moment its match ends normally."""

    def __init__(self, identity: Identity, hosted: HostedTable, options: TableOptions) -> None:
        self.identity, self.hosted, self.options = identity, hosted, options
        self.evening: EveningHost | None = None

    async def after(self) -> SessionResult:
        result = await self.hosted.result()
        if result.outcome is not None:
            self.evening = EveningHost(self.identity, self.hosted, self.options,
                                       host_chooses=True)
        return result


async def _host_rematches(args: HostEveningOptions, front: FrontEnd, identity: Identity,
                          options: TableOptions, current: list[HostedTable]) -> SessionResult:
    hosted = current[0]
    opening = _Opening(identity, hosted, options)
    result = await front.play(opening.after())
    for number in range(MAX_REMATCHES):
        evening = opening.evening
        if result.outcome is None or evening is None:
            break  # only a match that ended normally has a rematch
        countdown = Countdown(front, evening.waiting_line)
        if not await wants_again(args, front, number):
            evening.host_choice(False)
            front.say("End box: you leave; the evening ends for everyone (they are told).")
            await evening.stop()
            break
        evening.host_choice(True)
        front.say(f"End box: you chose again (rematch {number + 1}); waiting for the others. "
                  f"A player away {round(END_BOX_GRACE)} s without choosing frees the seat.")
        person = front.chooses_at_end and not args.fill_with_bots
        if person:
            await front.offer_fill(evening)  # b / fill: a bot in a freed seat

        def tick(evening: EveningHost = evening, countdown: Countdown = countdown) -> None:
            loop = asyncio.get_running_loop()
            countdown.show(loop.time(), evening.lobby.left(loop.time()))

        def told(made: Fill, evening: EveningHost = evening) -> None:
            if made.public_key not in evening.bots:  # the host's own bots: said as made
                _fill_teller(front, evening.names)(made)
        tick()
        try:
            ready = await evening.until_decided(
                fill=args.fill_with_bots,
                on_chosen=_teller(front, evening.names, can_fill=person), on_fill=told,
                on_news=front.say, on_tick=tick)
        finally:
            countdown.done()
            if person:
                await front.offer_fill(None)
        if args.fill_with_bots:
            for player, (_key, name) in evening.count.filled.items():
                front.say(filled_line(evening.names[player], name))
        front.say(evening.ended_line())
        if not ready:
            await evening.stop()
            break
        await evening.close_table(hosted)
        seed = None if args.seed is None else args.seed + number + 1
        hosted = await evening.start(front.agent, seed=seed, on_event=front.on_event)
        current[0] = hosted
        front.session = hosted.sessions[0]
        front.say(f"Rematch {number + 1} on port {hosted.host.listening_port}: seats rotated.")
        opening = _Opening(identity, hosted, options)
        result = await front.play(opening.after())
    else:
        if opening.evening is not None:
            await opening.evening.stop()
    return result


async def host_leaves(identity: Identity, hosted: HostedTable) -> None:
    """A host that offers no rematch, once its match ended normally: its seat's signed
    leave and its word (the host left) to every end box, delivered before it closes."""
    own = hosted.sessions[0].table if hosted.sessions else None
    if own is None or own.stage is not Stage.OVER:
        return
    raw = sign_choice(identity, own.finished(), 0, LEAVE).raw
    hosted.host.tell_choice(raw)
    hosted.host.tell_end_box(0, Ending.HOST_LEFT)
    await hosted.host.drained(LINGER)


def _teller(front: FrontEnd, names: tuple[str, ...], can_fill: bool = False) -> Callable[[Chosen], None]:
    """Each choice heard at the host's end box, said on its screen (``can_fill``: it
    says how to give a freed seat to a bot)."""
    def tell(chosen: Chosen) -> None:
        if chosen.player == 0:
            return  # the host's own: said as it is made
        line = chosen_line(names, chosen)
        if can_fill and chosen.choice == LEAVE:
            line += (" Press b to give it to a bot." if front.screen is not None
                     else " Type fill to give it to a bot.")
        front.say(line)
    return tell


async def join_evening(args: EveningOptions, front: FrontEnd, identity: Identity,
                       host: str, port: int, fingerprint: bytes | str | None, result: SessionResult,
                       session_kwargs: JoinOptions,
                       opened: JoinerEndBox | None = None) -> SessionResult:
    """After a joiner's match: its end box (``opened`` when the match ended, else now),
    its choice (``--again``, the person's, or leave: a client that chooses nothing
    leaves, signed), then up to ``--again`` rematches at the same address."""
    box = opened or JoinerEndBox(front, identity, host, port, fingerprint)
    for number in range(MAX_REMATCHES):
        session = front.session
        table = session.table if session is not None else None
        if session is None or table is None or table.me_player is None \
                or not box.open(result):
            return result
        if front.chooses_at_end and args.again is None:
            front.say(box.opening_line())
        try:
            again = await wants_again(args, front, number)
        except asyncio.CancelledError:
            await _leave_on_the_way_out(box, identity, table.me_player)
            raise
        choice = AGAIN if again else LEAVE
        front.say("End box: you chose again; waiting for the others." if again
                  else "End box: you leave; your seat is free.")
        box.choose(sign_choice(identity, box.box.count.finished, table.me_player, choice))
        over = await box.over()
        if not again:
            return result
        if over.ending not in (Ending.REMATCH, Ending.HOST_GONE):
            return result
        told = _takers_teller(front, tuple((p.public_key, p.name) for p in table.players),
                              session_kwargs.get("on_event"))
        options = session_kwargs.copy()
        options["on_event"] = told
        front.session = rejoining_session(identity, front.agent, host, port,
                                          box.box.count.finished, box.box.count, **options)
        front.say(f"Rematch {number + 1}: joining the host again.")
        box = JoinerEndBox(front, identity, host, port, fingerprint)
        rematch = await front.play(box.after(front.session.run()))
        if front.session.table is None:
            # The host opened no rematch (or one this seat refused): the evening ends
            # with the match played, which is what the result describes.
            front.say(f"End box: no rematch ({rematch.reason}); the evening ends here.")
            front.session = session
            return result
        result = rematch
    return result


async def _leave_on_the_way_out(box: JoinerEndBox, identity: Identity, me: int) -> None:
    """Stopped (Ctrl-C) before choosing: the seat's signed leave still goes (briefly)."""
    if box.link is None or box.task is None or box.task.done():
        return
    box.choose(sign_choice(identity, box.box.count.finished, me, LEAVE))
    await asyncio.wait({box.task}, timeout=LEAVE_ACK_WAIT)
