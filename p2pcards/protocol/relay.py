"""The host's switchboard: the lobby, then store-and-forward of signed messages.

The host is a rendezvous, not a referee: it can delay or drop frames, never
forge one or see a hidden card. Its relay keeps the lobby, signs the genesis
when four players are in, and from then on keeps the chain and forwards every
signed message to every other link (:mod:`~p2pcards.protocol.relay_chain`: what
it stores, the notices kept beside the chain for a player that comes back, a
fork shown once). It does not judge the rules: every peer does that itself.
Sans-IO: frames in, outputs out.

Spectators (a ``hello`` with ``watch: 1``, up to ``max_spectators``) hear
what the players hear — the lobby, every transcript message, every notice,
presence — and may ask for the transcript (``sync``); anything else they send
closes their link. They never write, and no check, clock or verdict counts
them. A spectator hears every message as it is stored, so it needs a ``sync``
only after a gap: one is answered per transcript message (per length of the
chain), and a spectator that asks again before the chain grows is closed and
its key refused for the rest of the table (a redial would cost the whole
transcript again), so spectators cannot spend the host's time that the
players need.

It also keeps where each player listens for direct links
(:class:`~p2pcards.protocol.announce.PeerAddresses`) and hands the table's list to every
seated player after the genesis and whenever it changes.

Table talk (``talk`` frames, ``p2pcards.protocol.talk``) is checked as every
player checks it (signature, session, counter, rate) and forwarded to every
other seated link, never stored: a bad or excess chat line is dropped with
its reason (:class:`Dropped`), never closes a link and blames nobody.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from p2pcards.protocol import frames
from p2pcards.protocol.again import Choice
from p2pcards.protocol.announce import PeerAddresses
from p2pcards.protocol.envelope import PROTOCOL_VERSION, KeptMessage, SignedMessage, SignedNotice
from p2pcards.protocol.errors import LocalProtocolError, MalformedMessage, RemoteProtocolError
from p2pcards.protocol.identity import fingerprint
from p2pcards.protocol.limits import DEFAULT_SPECTATORS, MAX_SPECTATORS
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay_chain import MAX_NOTICES_PER_PLAYER, RelayChain, Taken
from p2pcards.protocol.relay_end_box import EndBoxStore
from p2pcards.protocol.relay_links import (
    PINGS_PER_MESSAGE,
    SPECTATOR_SYNCS_PER_MESSAGE,
    RelayLink,
    refused,
)
from p2pcards.protocol.relay_outputs import (
    AgainHeard,
    Broadcast,
    Close,
    Dropped,
    LinkedChanged,
    LobbyChanged,
    Output,
    Persist,
    PersistNotice,
    Send,
    TableStarted,
    TakeAsked,
)
from p2pcards.protocol.rematch_genesis import Rematch
from p2pcards.protocol.talk import TalkBook, TalkDropped
from p2pcards.wiremap import WireList, WireMap, WireValue

#: Named from here too: the relay's outputs, its limits and the chain's bound on notices.
__all__ = ["DEFAULT_SPECTATORS", "MAX_NOTICES_PER_PLAYER", "MAX_SPECTATORS", "PINGS_PER_MESSAGE",
           "SPECTATOR_SYNCS_PER_MESSAGE", "AgainHeard", "Broadcast", "Close", "Dropped",
           "LinkedChanged", "LobbyChanged", "Output", "Persist", "PersistNotice", "Relay", "Send",
           "TableStarted", "TakeAsked"]

class Relay:
    """Lobby and store-and-forward for one table, seen from the host."""

    def __init__(self, lobby: Lobby, genesis_nonce: bytes | None = None, *,
                 clock: Callable[[], float] = time.monotonic,
                 max_spectators: int = DEFAULT_SPECTATORS,
                 rematch: Rematch | None = None) -> None:
        self.lobby = lobby
        #: A rematch's table: only its players sit, and its genesis names the match before.
        self.rematch = rematch
        #: How many spectators this table admits at once (0: none).
        self.max_spectators = max_spectators
        #: Read only for the chat rate limit (the relay keeps no other clock).
        self.clock = clock
        self.talk: TalkBook | None = None
        self._genesis_nonce = genesis_nonce
        self.links: dict[int, RelayLink] = {}
        #: The started table's chain and the notices beside it (None before its genesis).
        self.chain: RelayChain | None = None
        #: Where each player (by public key) last said it listens for direct links.
        self.addresses = PeerAddresses()
        #: Who the players last heard was linked to this host (see :meth:`presence`).
        self._told_presence: list[int] | None = None
        #: Spectators' keys closed for flooding ``sync``: refused until the table ends.
        self._flooders: set[bytes] = set()
        #: The end box's choices, fills and host's word: shown to every seated link and
        #: newcomer, and again to each on its hello.
        self.end_box = EndBoxStore()
        #: Whether the host's end box has a free seat a newcomer may ask for, and the
        #: newcomers' links (they hear the fills, say nothing after their hello).
        self.seats_open = False
        self.takers: set[int] = set()

    @classmethod
    def resume(cls, lobby: Lobby, transcript: list[bytes], notices: Iterable[bytes] = (),
               max_spectators: int = DEFAULT_SPECTATORS) -> Relay:
        """A relay restarted from its stored transcript (genesis first) and the
        notices it had kept (each checked again; a bad one is skipped)."""
        relay = cls(lobby, max_spectators=max_spectators)
        relay._adopt(RelayChain.resume(transcript, notices))
        return relay

    @property
    def started(self) -> bool:
        return self.chain is not None

    @property
    def messages(self) -> list[KeptMessage]:
        """The chain as kept (see :class:`RelayChain`); none before the genesis."""
        return self.chain.messages if self.chain is not None else []

    @property
    def notices(self) -> list[SignedNotice]:
        """The signed notices kept beside the chain."""
        return self.chain.notices if self.chain is not None else []

    @property
    def session(self) -> bytes | None:
        return self.chain.session if self.chain is not None else None

    @property
    def _player_keys(self) -> list[bytes]:
        return self.chain.player_keys if self.chain is not None else []

    def seated(self, link: int) -> bool:
        """Whether ``link`` said hello and was given a player's place (the link
        handshake admits anyone)."""
        info = self.links.get(link)
        return info is not None and info.player is not None

    def is_player(self, public_key: bytes) -> bool:
        """Whether ``public_key`` is one of the started table's players."""
        return public_key in self._player_keys

    def spectating(self, link: int) -> bool:
        """Whether ``link`` said a spectator's hello and was given a spectator's place."""
        info = self.links.get(link)
        return info is not None and info.spectator

    def hears(self, link: int) -> bool:
        """Whether ``link`` hears the table (a player's, a spectator's, a newcomer's at
        the end box)."""
        return self.seated(link) or self.spectating(link) or link in self.takers

    @property
    def spectators(self) -> int:
        return sum(1 for info in self.links.values() if info.spectator)

    # -- links --------------------------------------------------------------

    def connected(self, link: int, public_key: bytes) -> list[Output]:
        """A new link whose peer proved ``public_key``. After the genesis only the
        four players' keys are kept: any other is rejected and closed at once, and
        nothing about it is kept."""
        if self.started and public_key not in self._player_keys and not self.max_spectators \
                and not self.seats_open:
            return refused(link, "this table has started without you")
        if public_key in self._flooders:
            return refused(link, "this spectator was closed for flooding the host with sync")
        self.links[link] = RelayLink(public_key)
        return []

    def disconnected(self, link: int) -> list[Output]:
        info = self.links.pop(link, None)
        self.takers.discard(link)
        if info is None or info.player is None:
            return []
        if self.started:
            return self._presence_changed()
        if info.public_key == self.lobby.host.public_key:
            return []
        self.lobby.leave(info.public_key)
        return self._lobby_changed()

    def frame(self, link: int, data: bytes) -> list[Output]:
        """One frame from ``link``; malformed frames close that link.

        A link that is not seated may say ``hello`` and nothing else: any other
        frame (a ping, a sync, a msg or alert to relay) is rejected and the link
        closed, so a stranger gets neither answers nor an audience. Frames from
        a link the relay turned away (or never heard of) are dropped."""
        if link not in self.links:
            return []
        try:
            frame = frames.decode(data)
            handlers: dict[str, Callable[[int, WireValue], list[Output]]] = {
                "hello": self._on_hello, "msg": self._on_msg, "alert": self._on_alert,
                "sync": self._on_sync, "ping": self._on_ping, "talk": self._on_talk,
                "again": self._on_again,
            }
            handler = handlers.get(frame.kind)
            if handler is None:
                raise MalformedMessage(f"a {frame.kind!r} frame is not for the host")
            if frame.kind != "hello" and not self.hears(link):
                raise MalformedMessage(f"a {frame.kind} frame before a hello that seated this link")
            if link in self.takers:
                raise MalformedMessage(f"a newcomer at the end box sends nothing after its "
                                       f"hello, not {frame.kind}")
            if self.spectating(link) and frame.kind != "sync":
                raise MalformedMessage(f"a spectator may send only sync, not {frame.kind}")
            return handler(link, frame.body)
        except (RemoteProtocolError, LocalProtocolError) as error:
            return refused(link, str(error))

    # -- frames -------------------------------------------------------------

    def _on_hello(self, link: int, body: WireMap) -> list[Output]:
        info = self.links[link]
        if body["v"] != PROTOCOL_VERSION:
            raise MalformedMessage(f"protocol version {body['v']} (this host speaks {PROTOCOL_VERSION})")
        if info.name is not None:
            raise MalformedMessage("a second hello on one link")
        info.name = body["name"]
        if body["watch"]:
            return self._on_watch(link, info, body)
        if not self.started and body["sid"]:
            # A peer resuming a table this host does not hold (a restarted host):
            # seating it in a new lobby would hand it a genesis it can never accept.
            raise LocalProtocolError("this host holds no table with that session")
        if not self.started:
            keys = [p.public_key for p in self.lobby.players]
            if self.rematch is not None and info.public_key not in self.rematch.players:
                raise LocalProtocolError("this table is the rematch of the match before: "
                                         "only its players (and the freed seats' new ones) sit")
            if info.public_key in keys:
                info.player = keys.index(info.public_key)
                out: list[Output] = self._lobby_changed()
            else:
                info.player = self.lobby.join(info.public_key, info.name, bool(body["bot"]))
                out = self._lobby_changed()
            self._note_addresses(info.public_key, body["addrs"])
            if self.lobby.full:
                out += self._start()
            return out
        if info.public_key in self.end_box.evicted:
            raise LocalProtocolError("your seat at this table's end box went to someone "
                                     "else: the rematch goes on without you")
        if info.public_key not in self._player_keys:
            if self.seats_open and not body["sid"]:
                self.takers.add(link)  # the host decides: a fill or a reject
                return [TakeAsked(link, info.public_key, body["name"], bool(body["bot"]))]
            raise LocalProtocolError("this table has started without you")
        if body["sid"] not in (b"", self.session):
            raise MalformedMessage("that session is not this table's")
        info.player = self._player_keys.index(info.public_key)
        changed = self._note_addresses(info.public_key, body["addrs"])
        out = [Send(link, frames.encode("msg", m.raw))
               for m in self.messages[min(body["have"], len(self.messages)):]]
        if body["have"] > len(self.messages):
            out.append(Send(link, frames.encode("sync", {"have": len(self.messages)})))
        # The notices sent while this player was away (or before it crashed).
        out += [Send(link, frames.encode("alert", n.raw)) for n in self.notices]
        out += self._presence_changed(newcomer=link)
        shown = [Send(link, frame) for frame in self.end_box.shown(self.clock())]
        return out + self._peers_after_hello(link, changed) + shown

    @property
    def choices(self) -> list[bytes]:
        """The end box's choices kept, in order (see :class:`EndBoxStore`)."""
        return self.end_box.choices

    def _on_watch(self, link: int, info: RelayLink, body: WireMap) -> list[Output]:
        """A spectator's hello: the lobby, or the transcript from ``have`` and the
        kept notices, then whatever the players hear."""
        if not self.max_spectators:
            raise LocalProtocolError("this table admits no spectators")
        if self.spectators >= self.max_spectators:
            raise LocalProtocolError(f"the table's {self.max_spectators} spectator places "
                                     f"are taken")
        if body["sid"] not in (b"", self.session):
            raise LocalProtocolError("this host holds no table with that session")
        if any(p.public_key == info.public_key for p in self.lobby.players) or \
                info.public_key in self._player_keys:
            raise LocalProtocolError("a player of this table cannot watch it (resume instead)")
        info.spectator = True
        if not self.started:
            return [Send(link, self.lobby.frame())]
        out: list[Output] = [Send(link, frames.encode("msg", m.raw))
                             for m in self.messages[min(body["have"], len(self.messages)):]]
        # The genesis names the players but not which of them are bots: the lobby says it.
        out.append(Send(link, self.lobby.frame()))
        out += [Send(link, frames.encode("alert", n.raw)) for n in self.notices]
        out.append(Send(link, frames.encode("presence", {"linked": self.presence()})))
        return out

    def _on_ping(self, link: int, body: WireMap) -> list[Output]:
        if not self.links[link].pings.spend(len(self.messages), PINGS_PER_MESSAGE):
            return []  # a flood: no answer, no cost
        return [Send(link, frames.encode("pong", body))]

    def _on_sync(self, link: int, body: WireMap) -> list[Output]:
        info = self.links[link]
        if info.spectator and not info.syncs.spend(len(self.messages), SPECTATOR_SYNCS_PER_MESSAGE):
            self._flooders.add(info.public_key)
            raise LocalProtocolError(
                f"a spectator asked for the transcript more than "
                f"{SPECTATOR_SYNCS_PER_MESSAGE} time(s) at length {len(self.messages)}: closed")
        return [Send(link, frames.encode("msg", m.raw)) for m in self.messages[body["have"]:]]

    def _on_msg(self, link: int, raw: bytes) -> list[Output]:
        if self.chain is None:
            raise MalformedMessage("a transcript message before the table started")
        msg = SignedMessage.parse(raw)
        taken = self.chain.take(msg)
        if taken is Taken.COPY:
            return []
        if taken is Taken.AHEAD:
            return [Send(link, frames.encode("sync", {"have": len(self.chain.messages)}))]
        stored: list[Output] = [Persist(msg.raw)] if taken is Taken.STORED else []
        return [*stored, Broadcast(frames.encode("msg", raw), exclude=link)]

    def _on_alert(self, link: int, raw: bytes) -> list[Output]:
        if self.chain is None:
            raise MalformedMessage("an alert before the table started")
        notice = self.chain.keep_notice(raw)
        if notice is None:
            return []
        return [PersistNotice(notice.raw), Broadcast(frames.encode("alert", raw), exclude=link)]

    def _on_again(self, link: int, raw: bytes) -> list[Output]:
        """A player's end-box choice: checked (its session, its sender, its signature),
        kept, and shown to every link at the end box (a copy: back to its sender)."""
        if not self.started:
            raise MalformedMessage("an again/leave choice before the table started")
        info = self.links[link]
        refused = self.end_box.refusal(Choice.parse(raw), self.session, info.player,
                                       self._player_keys, info.public_key)
        if refused is not None:
            return [Dropped(link, refused)]
        if raw in self.end_box.choices:
            return [Send(link, frames.encode("again", raw))]  # a new link's receipt
        return self.tell_choice(raw)

    def tell_choice(self, raw: bytes) -> list[Output]:
        """Keep a choice (one of the host's own seats' too) and show it at every end box
        (every seated link, its sender's included, and every newcomer)."""
        if not self.end_box.keep(raw):
            return []
        # On every link before the host hears it: a fill the host makes on hearing it
        # reaches each end box after the choice it follows.
        out: list[Output] = self._to_end_boxes(frames.encode("again", raw))
        return out + [AgainHeard(raw)]

    def tell_fill(self, body: WireMap) -> list[Output]:
        """The host's word on who took a freed seat: kept, and to every end box and newcomer."""
        frame = self.end_box.keep_fill(body)
        return [] if frame is None else self._to_end_boxes(frame)

    def tell_end_box(self, left: float, end: int) -> list[Output]:
        """The host's word on its end box (``left`` seconds until it closes; ``end``: how
        it ended, 0 while open): kept (a later hello hears the time left then), and to
        every end box and newcomer."""
        return self._to_end_boxes(self.end_box.say(left, end, self.clock()))

    def evict(self, public_key: bytes) -> list[Output]:
        """A player whose seat (freed while it was away) went to someone else: its links
        are closed with the reason, and its key refused from now on."""
        self.end_box.evicted.add(public_key)
        reason = "your seat at this table's end box went to someone else"
        return [out for number, info in sorted(self.links.items())
                if info.public_key == public_key for out in refused(number, reason)]

    def _to_end_boxes(self, frame: bytes) -> list[Output]:
        """``frame`` to every seated player's link and every newcomer's."""
        return [Send(number, frame) for number in sorted(self.links)
                if self.seated(number) or number in self.takers]

    def refuse_taker(self, link: int, reason: str) -> list[Output]:
        """A newcomer the host gives no seat: told why, and its link closed."""
        if link not in self.takers:
            return []
        self.takers.discard(link)
        return refused(link, reason)

    def _on_talk(self, link: int, raw: bytes) -> list[Output]:
        """A chat line: checked like every player checks it, then forwarded to every
        other seated link, never stored. A bad one is dropped, the link kept."""
        if self.talk is None:
            return [Dropped(link, "a chat line before the table started")]
        try:
            line = self.talk.receive(raw, self.clock(), link_player=self.links[link].player)
        except TalkDropped as dropped:
            return [Dropped(link, dropped.reason)]
        if line is None:
            return []  # a copy already forwarded
        return [Broadcast(frames.encode("talk", raw), exclude=link)]

    # -- lobby and start -----------------------------------------------------

    def _lobby_changed(self) -> list[Output]:
        return [Broadcast(self.lobby.frame()),
                LobbyChanged(tuple(self.lobby.players), self.lobby.free_seats)]

    def _start(self) -> list[Output]:
        after = None
        if self.rematch is not None:
            # The finished match's join order, whatever order its players came back in.
            order = {key: i for i, key in enumerate(self.rematch.players)}
            self.lobby.players.sort(key=lambda p: order[p.public_key])
            after = self.rematch.after
        genesis = self.lobby.genesis(self._genesis_nonce, after=after)
        chain = self._adopt(RelayChain(genesis))
        started: list[Output] = [TableStarted(chain.session), Persist(genesis.raw),
                                 Broadcast(frames.encode("msg", genesis.raw))]
        return started + self._peers_to_all() + self._presence_changed()

    # -- presence -------------------------------------------------------------

    def presence(self) -> list[int]:
        """For each player of the started table, 1 if it has a seated link to this
        host now, else 0. Advisory only: a link can be up and its player silent."""
        linked = {info.player for info in self.links.values() if info.player is not None}
        return [1 if player in linked else 0 for player in range(len(self._player_keys))]

    def _presence_changed(self, newcomer: int | None = None) -> list[Output]:
        """A ``presence`` frame to every seated link when who is linked changed,
        and to ``newcomer`` (a link just seated) in any case."""
        now = self.presence()
        frame = frames.encode("presence", {"linked": now})
        if now != self._told_presence:
            self._told_presence = now
            return [Broadcast(frame), LinkedChanged(tuple(now))]
        return [Send(newcomer, frame)] if newcomer is not None else []

    def _adopt(self, chain: RelayChain) -> RelayChain:
        """Start the table of ``chain``'s genesis."""
        self.chain = chain
        self.talk = TalkBook(chain.session, chain.player_keys)
        return chain

    # -- direct links between the players -------------------------------------

    def _note_addresses(self, public_key: bytes, addrs: WireList) -> bool:
        players = self._player_keys if self.started else [p.public_key for p in self.lobby.players]
        return self.addresses.note(public_key, addrs, set(players))

    def peers_frame(self) -> bytes:
        """Every player's key and last known addresses (see :class:`PeerAddresses`)."""
        return self.addresses.frame(self._player_keys)

    def _peers_to_all(self) -> list[Output]:
        """After the genesis: every seated player learns the addresses (nothing
        is sent at a table where nobody listens: a star of in-process seats)."""
        return [Broadcast(self.peers_frame())] if self.addresses.anyone_listens(self._player_keys) else []

    def _peers_after_hello(self, link: int, changed: bool) -> list[Output]:
        """A player (re)joining a started table learns the addresses; if its own
        changed (a resumed player's new port), every seated player learns them."""
        if not self.addresses.anyone_listens(self._player_keys):
            return []
        if changed:
            return [Broadcast(self.peers_frame())]
        return [Send(link, self.peers_frame())]

    def describe(self, link: int) -> str:
        info = self.links.get(link)
        if info is None:
            return f"link {link}"
        return f"{info.name or '?'} ({fingerprint(info.public_key)})"
