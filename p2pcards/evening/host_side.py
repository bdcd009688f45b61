"""The evening from the host's side: its end box (the choices counted, the seats of
players away freed and filled) and the rematch's table on the same port with only
the evening's players.

The simplest robust path (PROTOCOL.md §14): the finished table's relay closes,
the host opens a new one on the same address with the previous players'
keys reserved (a freed seat's filler in its leaver's place), and the players
who chose again join it by the ordinary join path. No discovery: they know
the address. Every joiner refuses a genesis whose ``after`` is not its own
record of the match before, and against the choices its end box holds (a
genesis that drops a player whose "again" it holds is refused), before it
signs anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable

from p2pcards.app.hosted import HostedTable, TableOptions, start_hosted_table
from p2pcards.net.session_events import Agent, SessionEvent
from p2pcards.net.session_snapshot import LiveSession
from p2pcards.net.stopping import stop_task
from p2pcards.protocol.again import AGAIN, LEAVE, AgainCount, Chosen, rematch_of, sign_choice
from p2pcards.protocol.end_box import END_BOX_GRACE, END_BOX_WAIT, Ending
from p2pcards.protocol.end_box_host import Closed, EndLobby, Returned, Vacated
from p2pcards.protocol.end_box_host import Output as LobbyOutput
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.relay import AgainHeard, TakeAsked
from p2pcards.protocol.rematch_genesis import FinishedMatch
from p2pcards.protocol.seat_fill import Fill, SeatRefused
from p2pcards.ui.text_common import quoted
from p2pcards.ui.text_end_box import evening_ended_line, filled_line

FILLER_NAMES = ("Dee", "Eve", "Flo", "Gus")
#: Seconds the host waits, at most, for its last frames to the end boxes to be written
#: before it closes a finished table (a queued leave, its word on the end box).
LINGER = 2.0


def finished_of(session: LiveSession) -> FinishedMatch:
    """This seat's own record of the match it just finished (raises StageNotReached
    unless it ended normally)."""
    if session.table is None:
        raise ValueError("this seat never had a table")
    return session.table.finished()


class EveningHost:
    """The host's side of the end box: counts the choices of the finished match,
    frees the seats of players away past the grace, fills freed seats with bots, and
    says when every seat is taken (the rematch starts) or why the evening ends. Its
    rules are :class:`~p2pcards.protocol.end_box_host.EndLobby`'s; this drives them.

    ``opened_at``: when the match ended (the loop's clock; now by default): the end
    box waits ``wait`` (:data:`END_BOX_WAIT`) from then, and frees the seat of a player
    away ``grace`` (:data:`END_BOX_GRACE`) without a choice. ``host_chooses``: the
    host's own seat chooses later (:meth:`host_choice`), else again at once."""

    def __init__(self, identity: Identity, hosted: HostedTable, options: TableOptions, *,
                 opened_at: float | None = None, host_chooses: bool = False,
                 wait: float = END_BOX_WAIT, grace: float = END_BOX_GRACE) -> None:
        own = hosted.sessions[0]
        if own.table is None:
            raise ValueError("the host's seat never had a table")
        loop = asyncio.get_running_loop()
        self.identity = identity
        # The same address: the players who chose again dial it as before.
        port = hosted.host.tcp_port
        self.options = options if port is None else dataclasses.replace(options, tcp_port=port)
        self.finished = finished_of(own)
        players = own.table.players
        self.names = tuple(p.name for p in players)
        self.count = AgainCount(self.finished, tuple(p.public_key for p in players))
        self.bots: dict[bytes, Identity] = {b.public_key: b for b in hosted.bot_identities}
        local = {0} | {i for i, p in enumerate(players) if p.public_key in self.bots}
        self.lobby = EndLobby(self.count, loop.time() if opened_at is None else opened_at,
                              local, wait=wait, grace=grace)
        self._fillers = 0
        self.host = hosted.host
        self.advertiser = hosted.advertiser
        self.heard: list[Chosen] = []
        #: Every freed seat's fill, in the order made (what every end box is told).
        self.fills: list[Fill] = []
        #: What the host's screen says of players coming and going (in order).
        self.news: list[str] = []
        self.changed = asyncio.Event()
        self._background: set[asyncio.Task[None]] = set()
        self._advertised = 0  # the freed seats discovery says (0: none, not between)
        #: Set when who is linked changed: the clock looks again (a grace just began).
        self._presence_changed = asyncio.Event()
        told = hosted.host.on_event

        def hear(event: SessionEvent) -> None:
            if isinstance(event, AgainHeard):
                with contextlib.suppress(ProtocolError):
                    self.receive(event.raw)
            elif isinstance(event, TakeAsked):
                self.take(event)
            told(event)
        hosted.host.on_event = hear
        hosted.host.on_linked = self._linked
        # The host's bots take the table again (and its own seat, unless it chooses
        # later); every end box sees it.
        for index, player in enumerate(players):
            signer = None if index == 0 and host_chooses else \
                identity if index == 0 else self.bots.get(player.public_key)
            if signer is not None:
                self._tell_own(sign_choice(signer, self.finished, index, AGAIN).raw)
        for raw in list(hosted.host.relay.choices):  # heard before this count began
            with contextlib.suppress(ProtocolError):
                self.receive(raw)
        self._linked(tuple(hosted.host.relay.presence()))
        self._apply(self.lobby.tick(loop.time()))
        if not self.lobby.done:
            self.host.tell_end_box(self.lobby.left(loop.time()), Ending.OPEN)
        self._clock = loop.create_task(self._run_clock())

    # -- what comes in ------------------------------------------------------------------

    def receive(self, raw: bytes) -> Chosen | None:
        """A player's signed choice (see :meth:`AgainCount.receive`); none once the end
        box closed (the relay keeps none after the host's word either)."""
        if self.lobby.done:
            return None
        chosen = self.count.receive(raw)
        if chosen is not None:
            self.heard.append(chosen)
            self._changed()
        return chosen

    def host_choice(self, again: bool) -> None:
        """The host's own seat chooses (its person, at its end box): again, or leave,
        which ends the evening for everyone (they are told)."""
        raw = sign_choice(self.identity, self.finished, 0, AGAIN if again else LEAVE).raw
        self._tell_own(raw)
        if not again:
            self._apply(self.lobby.host_left(asyncio.get_running_loop().time()))

    def _tell_own(self, raw: bytes) -> None:
        self.receive(raw)
        self.host.tell_choice(raw)

    def take(self, asked: TakeAsked, now: float | None = None) -> Fill | None:
        """A newcomer's hello at the end box: the first free seat, told to everyone,
        or its link refused (``now``: the host's clock, the loop's by default)."""
        if now is None:
            now = asyncio.get_running_loop().time()
        self.count.closes_at = self.lobby.closes_at
        try:
            if self.lobby.done:
                raise SeatRefused("the end box has closed: the evening has ended")
            made = self.count.take(asked.public_key, asked.name, now, asked.bot)
        except SeatRefused as refused:
            self.host.refuse_taker(asked.link, refused.detail)
            return None
        self._told(made)
        return made

    def _linked(self, linked: tuple[int, ...]) -> None:
        """The relay's presence: who is away, who is back (a freed seat returned)."""
        self._apply(self.lobby.present(linked, asyncio.get_running_loop().time()))
        self._presence_changed.set()  # a player away now: its grace ends before the clock's wake

    async def _run_clock(self) -> None:
        """The rules' clock: seats freed when the grace ends (not at the clock's next
        wake-up, planned before the player went away), the end box closed in time."""
        loop = asyncio.get_running_loop()
        while not self.lobby.done:
            self._presence_changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._presence_changed.wait(),
                                       max(0.05, self.lobby.wake_at() - loop.time()))
            self._apply(self.lobby.tick(loop.time()))

    def _apply(self, outputs: list[LobbyOutput]) -> None:
        for out in outputs:
            if isinstance(out, Vacated):
                self.news.append(f"End box: {quoted(self.names[out.player])} was away "
                                 f"{round(self.lobby.grace)} s without choosing: the seat is free.")
            elif isinstance(out, Returned):
                self.news.append(f"End box: {quoted(self.names[out.player])} is back; "
                                 f"the seat is theirs again.")
            elif isinstance(out, Closed):
                self.host.tell_end_box(0, out.ending)
                self.host.open_seats(False)
            self._changed()

    def _changed(self) -> None:
        self.changed.set()  # a wait in :meth:`until_decided` looks again
        self._seats_changed()

    def _told(self, made: Fill) -> None:
        self.fills.append(made)
        self.host.tell_fill(made.to_wire())
        if made.player in self.count.vacated:
            self.host.evict(self.count.player_keys[made.player])  # its seat is the filler's
        self._changed()

    def _seats_changed(self) -> None:
        """Open the end box to newcomers while a seat is free, and say so in discovery."""
        free = 0 if self.lobby.done else len(self.count.free)
        self.host.open_seats(free > 0)
        if free == self._advertised:
            return
        self._advertised = free
        if self.advertiser is not None:  # a table advertised on the LAN
            task = asyncio.get_running_loop().create_task(
                self.advertiser.update(free_seats=free, between=free > 0))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    # -- the wait -------------------------------------------------------------------------

    async def until_decided(self, fill: bool = False,
                            on_chosen: Callable[[Chosen], None] | None = None,
                            on_fill: Callable[[Fill], None] | None = None,
                            on_news: Callable[[str], None] | None = None,
                            on_tick: Callable[[], None] | None = None,
                            tick_every: float = 5.0) -> bool:
        """Wait until every seat is taken or the end box closes (its rules decide);
        ``fill``: a freed seat gets a bot at once; ``on_chosen`` hears each choice once,
        ``on_fill`` each fill, ``on_news`` each line about players coming and going,
        ``on_tick`` every ``tick_every`` s (a screen's time left). True when the rematch
        can start (the end box is then closed to newcomers, and every end box told)."""
        loop = asyncio.get_running_loop()
        shown = filled = said = 0
        while True:
            for chosen in self.heard[shown:]:
                if on_chosen is not None:
                    on_chosen(chosen)
            shown = len(self.heard)
            for made in self.fills[filled:]:
                if on_fill is not None:
                    on_fill(made)
            filled = len(self.fills)
            for line in self.news[said:]:
                if on_news is not None:
                    on_news(line)
            said = len(self.news)
            if fill and not self.lobby.done:
                for player in self.count.free:
                    self.fill_with_bot(player)
            self._apply(self.lobby.tick(loop.time()))
            if self.lobby.done:
                break
            self.changed.clear()
            wake = min(self.lobby.wake_at(), loop.time() + tick_every)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), max(0.0, wake - loop.time()))
            if on_tick is not None:
                on_tick()
        self.host.open_seats(False)
        return self.ready

    async def stop(self, linger: float = LINGER) -> None:
        """Stop the end box's clock, and give the frames queued for the end boxes (the
        host's last word, a leave) at most ``linger`` s to be written."""
        await stop_task(self._clock)
        await self.host.drained(linger)

    async def close_table(self, hosted: HostedTable, linger: float = LINGER) -> None:
        """Close the finished table once every end box has had the host's last word."""
        await self.stop(linger)
        await hosted.close(grace=0, linger=0)

    def fill_with_bot(self, player: int) -> Identity:
        """Put a new bot in the seat player ``player`` freed."""
        name = FILLER_NAMES[self._fillers % len(FILLER_NAMES)]
        self._fillers += 1
        bot = Identity.generate(name)
        made = self.count.fill(player, bot.public_key, name, bot=True)
        self.bots[bot.public_key] = bot
        self._told(made)
        return bot

    @property
    def ending(self) -> Ending | None:
        """How the end box ended (None: still open)."""
        return self.lobby.ending

    @property
    def undecided(self) -> tuple[str, ...]:
        """The names of the players who have chosen nothing yet (the host waits for them)."""
        return tuple(self.names[p] for p in self.count.undecided if p not in self.count.vacated)

    def waiting_line(self, now: float | None = None) -> str | None:
        """What the host's end box says it waits for, with the time left: who has not
        chosen yet, or a free seat; None: nothing (ready, or closed)."""
        if self.ready or self.lobby.done:
            return None
        if now is None:
            now = asyncio.get_running_loop().time()
        left = f"{round(self.lobby.left(now))} s left, then the evening ends"
        who = self.undecided
        if who:
            return f"End box: waiting for {', '.join(quoted(n) for n in who)} to choose ({left})."
        return f"End box: waiting for a player to take the free seat ({left})."

    def ended_line(self) -> str:
        """How the end box ended, in words (every screen says it)."""
        return evening_ended_line(self.lobby.ending, self.count, self.names)

    @property
    def seat_free(self) -> bool:
        """A seat is free and nobody has it yet (the host may fill it)."""
        return bool(self.count.free) and not self.lobby.done

    def fill_free_seat(self) -> str | None:
        """The host's ``b`` key or ``fill`` command: a bot in the first free seat; what
        to say about it, or None when no seat is free."""
        free = self.count.free
        if not free or self.lobby.done:
            return None
        bot = self.fill_with_bot(free[0])
        return filled_line(self.names[free[0]], bot.name)

    @property
    def ready(self) -> bool:
        return self.count.ready

    def rematch_options(self, seed: int | None = None) -> TableOptions:
        """The next table's options: the same settings and address, only the evening's
        players, the bots in their join order; advertised as the first table was (with
        no free seat: its end box frees them, §14)."""
        rematch = rematch_of(self.count, self.names)
        bots = tuple(self.bots[key] for key in rematch.players if key in self.bots)
        return dataclasses.replace(self.options, rematch=rematch, bot_identities=bots,
                                   seed=seed)

    async def start(self, agent: Agent, seed: int | None = None,
                    on_event: Callable[[SessionEvent], None] | None = None) -> HostedTable:
        """Start the rematch's table (call once the finished table is closed, so
        its port is free)."""
        options = self.rematch_options(seed)
        assert options.rematch is not None
        bots = sum(1 for key in options.rematch.players if key in self.bots)
        return await start_hosted_table(self.identity, agent, options, bots=bots,
                                        on_event=on_event)

