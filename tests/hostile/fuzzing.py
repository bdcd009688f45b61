"""Fuzzing every door bytes come in by: mutators, targets, and a runner.

Used twice: by the hypothesis tests in this directory (a few hundred inputs
per target, reproducible) and by ``scripts/fuzz.py`` for long runs. Each
:class:`Target` turns a generated input into a call on one decoder or state
machine and says which exceptions are the defined ones; anything else that
escapes is a failure, and so is an input that leaves a state machine changed
after it refused it.

Inputs are random bytes or mutations of real recorded traffic (messages and
frames of whole seeded matches, link handshakes, sealed frames): bit flips,
byte overwrites, truncations, insertions, splices of two inputs, and
structure-aware changes of decoded msgpack (field swaps, deletions,
insertions, values of other types and sizes), the latter re-signed with the
right player's key so that they reach the checks behind the signature.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

import msgpack

from p2pcards.crypto.seeded import SeededRng
from p2pcards.net.errors import FrameError, HandshakeError, SealedFrameError
from p2pcards.net.framing import MAX_FRAME, FrameDecoder, encode_frame
from p2pcards.net.link import LinkHandshake, Role, SecureChannel
from p2pcards.protocol import frames, wire
from p2pcards.protocol.envelope import NOTICE_TAG, NOTICE_TYPES, SIGN_TAG, SignedMessage, seal_notice
from p2pcards.protocol.errors import (
    LocalProtocolError,
    MalformedMessage,
    MalformedWire,
    RemoteProtocolError,
    SeatPlayedElsewhere,
)
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import Output, Relay
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verdict import Verdict
from tests.support.typed import present

from .harness import Bench, Recording, clone, recording

# -- mutation --------------------------------------------------------------------------------

_INTERESTING = [b"\x00", b"\xff", b"\x7f", b"\x80", b"\xc0", b"\xc1", b"\xc4\xff", b"\xc5\xff\xff",
                b"\xc6\xff\xff\xff\xff", b"\xdc\xff\xff", b"\xdd\xff\xff\xff\xff", b"\xde\xff\xff",
                b"\xdf\xff\xff\xff\xff", b"\xd9\xff", b"\xcf" + b"\xff" * 8, b"\xd4\x01\x00",
                b"\xcb" + bytes(8), b"\x01" + bytes(31), bytes(32), b"\xff" * 32]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(11 if depth < 3 else 8)
    if kind == 0:
        return rng.choice([0, 1, -1, 3, 4, 13, 23, 51, 52, 255, 256, 2**31, 2**32, 2**63 - 1,
                           2**64 - 1, -2**63])
    if kind == 1:
        return rng.randbytes(rng.choice([0, 1, 31, 32, 33, 64, 65, rng.randrange(200)]))
    if kind == 2:
        return "".join(rng.choice("ab\x00\x1b\u00e9\u202e ") for _ in range(rng.randrange(40)))
    if kind == 3:
        return None
    if kind == 4:
        return rng.random()
    if kind == 5:
        return rng.choice([True, False])
    if kind == 6:
        return rng.choice(_INTERESTING)
    if kind == 7:
        return rng.randbytes(32)
    if kind == 8:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    if kind == 9:
        return {rng.choice(["slot", "shares", "deck", "x", "body", "n"]): _random_value(rng, depth + 1)
                for _ in range(rng.randrange(4))}
    return [rng.randbytes(32) for _ in range(rng.choice([1, 2, 3, 14, 24, 52, 257]))]


def _nodes(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every container slot of a decoded msgpack value."""
    out = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            out.append(path + (key,))
            out += _nodes(value, path + (key,))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            out.append(path + (i,))
            out += _nodes(value, path + (i,))
    return out


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        obj = obj[key]
    return obj


class Mutator:
    """Byte-level and structure-aware mutations of real inputs, from one ``random.Random``."""

    def __init__(self, rng: random.Random, corpus: list[bytes]) -> None:
        self.rng = rng
        self.corpus = corpus

    def pick(self) -> bytes:
        return self.rng.choice(self.corpus)

    def random_bytes(self) -> bytes:
        return self.rng.randbytes(self.rng.choice([0, 1, 2, 5, 16, 64, 300, 2000]))

    def mutate_bytes(self, data: bytes, rounds: int | None = None) -> bytes:
        rng = self.rng
        buf = bytearray(data)
        for _ in range(rounds or rng.choice([1, 1, 1, 2, 3, 8])):
            op = rng.randrange(8)
            if op == 0 and buf:
                i = rng.randrange(len(buf))
                buf[i] ^= 1 << rng.randrange(8)
            elif op == 1 and buf:
                i = rng.randrange(len(buf))
                buf[i] = rng.randrange(256)
            elif op == 2 and buf:
                del buf[rng.randrange(len(buf) + 1):]
            elif op == 3:
                i = rng.randrange(len(buf) + 1)
                buf[i:i] = rng.choice(_INTERESTING) if rng.random() < 0.5 else rng.randbytes(rng.randrange(1, 9))
            elif op == 4 and buf:
                i = rng.randrange(len(buf))
                del buf[i:i + rng.randrange(1, 33)]
            elif op == 5:
                other = self.pick()
                cut = rng.randrange(len(buf) + 1)
                buf = buf[:cut] + other[rng.randrange(len(other) + 1):]
            elif op == 6 and buf:
                i = rng.randrange(len(buf))
                chunk = buf[i:i + rng.randrange(1, 64)]
                buf[i:i] = chunk * rng.randrange(1, 4)
            else:
                buf += rng.randbytes(rng.randrange(1, 16))
        return bytes(buf)

    def mutate_value(self, obj: Any) -> Any:
        """A structural change of a decoded msgpack value (a modified copy)."""
        rng = self.rng
        obj = _deepcopy(obj)
        nodes = _nodes(obj)
        if not nodes:
            return _random_value(rng)
        for _ in range(rng.choice([1, 1, 2, 3])):
            nodes = _nodes(obj)
            if not nodes:
                break
            path = rng.choice(nodes)
            parent = _get(obj, path[:-1])
            key = path[-1]
            op = rng.randrange(6)
            if op == 0:  # swap with another node's value
                other = rng.choice(nodes)
                try:
                    a, b = _get(obj, path), _get(obj, other)
                    parent[key] = _deepcopy(b)
                    _get(obj, other[:-1])[other[-1]] = _deepcopy(a)
                except (KeyError, IndexError, TypeError):
                    pass
            elif op == 1:
                parent[key] = _random_value(rng)
            elif op == 2:
                if isinstance(parent, dict):
                    del parent[key]
                else:
                    del parent[key]
            elif op == 3:
                if isinstance(parent, dict):
                    parent[rng.choice(["extra", "n", "body", "slot", "v", "\u0000"])] = _random_value(rng)
                else:
                    parent.insert(key, _deepcopy(parent[key]))
            elif op == 4 and isinstance(_get(obj, path), bytes):
                parent[key] = self.mutate_bytes(_get(obj, path), 1)
            else:
                value = _get(obj, path)
                if isinstance(value, int) and not isinstance(value, bool):
                    parent[key] = value + rng.choice([-1, 1, 2**8, -2**31, 2**32])
                else:
                    parent[key] = _random_value(rng)
        return obj


def _deepcopy(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _deepcopy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_deepcopy(v) for v in obj]
    return obj


def _pack(obj: Any) -> bytes | None:
    try:
        packed: bytes = msgpack.packb(obj, use_bin_type=True)
        return packed
    except (ValueError, TypeError, OverflowError):
        return None


def resigned(raw: bytes, mutator: Mutator, identities: list[Identity]) -> bytes:
    """``raw`` (a transcript message or a notice) with its payload structurally
    mutated and signed again by the key of the player it names (under the notice
    tag when it names a notice type), so it gets past the signature."""
    try:
        payload, _sig = msgpack.unpackb(raw, raw=False)
        fields = msgpack.unpackb(payload, raw=False, strict_map_key=False)
    except Exception:
        return mutator.mutate_bytes(raw)
    changed = mutator.mutate_value(fields)
    new_payload = _pack(changed)
    if new_payload is None:
        return mutator.mutate_bytes(raw)
    signer = changed.get("from") if isinstance(changed, dict) else None
    if isinstance(signer, int) and not isinstance(signer, bool) and 0 <= signer < len(identities):
        kind = changed.get("type")
        tag = NOTICE_TAG if isinstance(kind, str) and kind in NOTICE_TYPES else SIGN_TAG
        signature = identities[signer].sign(tag + new_payload)
    else:
        signature = mutator.rng.randbytes(64)
    packed: bytes = msgpack.packb([new_payload, signature], use_bin_type=True)
    return packed


# -- targets -------------------------------------------------------------------------------------


class Failure(Exception):
    """An input made a target misbehave (an undefined exception, or a changed state)."""


@dataclass
class Target:
    """One door: how to make an input, what to call, which errors are defined."""

    name: str
    make: Callable[[random.Random, Mutator], Any]
    run: Callable[[Any], None]
    allowed: tuple[type, ...]
    weight: int = 1

    def check(self, data: Any) -> None:
        try:
            self.run(data)
        except self.allowed:  # type: ignore[misc]
            return
        except Failure:
            raise
        except Exception as error:  # the point of fuzzing: anything else is a bug
            raise Failure(f"{self.name}: {type(error).__name__}: {error}") from error


class Corpus:
    """Real traffic of whole seeded matches, and the states to feed it to."""

    def __init__(self, recordings: list[Recording]) -> None:
        self.recordings = recordings
        self.messages = [raw for rec in recordings for raw in rec.transcript]
        self.messages += [notice for rec in recordings for notice in _notices(rec)]
        self.frames = [frames.encode("msg", raw) for raw in self.messages]
        bench = recordings[0].final
        self.frames += [
            frames.encode("hello", {"v": 2, "name": "p1", "sid": b"", "have": 0, "bot": 0}),
            frames.encode("hello", {"v": 2, "name": "p2", "sid": bench.reference.session,
                                    "have": 17, "bot": 1}),
            frames.encode("sync", {"have": 3}),
            frames.encode("reject", {"reason": "no"}),
            # A leave as player 1 would sign it (a table that is OVER no longer signs one).
            frames.encode("alert", seal_notice(
                bench.identities[1], session=present(bench.reference.session),
                position=bench.reference.next_position, prev=bench.reference.head, player=1,
                type="leave", body={}).raw),
            Lobby(bench.identities[0], "bluff", {"deals": 1}, "den").frame(),
        ]
        self.everything = self.messages + self.frames


def _notices(rec: Recording) -> list[bytes]:
    """Signed notices of the recorded table: leaves and alerts with evidence."""
    bench = rec.final
    ref = bench.reference
    out = []
    for player, identity in enumerate(bench.identities):
        evidence = tuple(rec.transcript[p] for p in (5 + player, 9 + player))
        for body, kind in ((Verdict("crypto", (player,), 9, "x", evidence).to_wire(), "alert"),
                           (Verdict("deadline", (2,), ref.next_position, "late").to_wire(), "alert"),
                           ({}, "leave")):
            out.append(seal_notice(identity, session=ref.session, position=ref.next_position,
                            prev=ref.head, player=player, type=kind, body=body).raw)
    return out


def _quick_mark(table: Table) -> tuple[Any, ...]:
    deal = table.deal
    return (len(table.messages), table.head, table.stage, table.verdict,
            None if deal is None else (deal.number, deal.shuffles_done, deal.shares_done,
                                       len(deal.revealed)),
            None if table.engine is None else table.engine.copy())


class TableDoor:
    """``Table.receive`` and ``receive_alert`` at several points of real matches,
    restored from a snapshot whenever an input changed the table."""

    def __init__(self, recordings: list[Recording], positions_per_match: int = 5) -> None:
        self.places: list[tuple[Bench, int, Table, bytes]] = []
        for rec in recordings:
            steps = rec.steps
            play = [s.position for s in steps if s.stage is Stage.PLAY]
            picks = sorted({steps[0].position,
                            *(s.position for s in steps if s.type == "shuffle" and s.seat == 1),
                            *(s.position for s in steps if s.type == "shares" and s.seat == 2),
                            *play[::max(1, len(play) // positions_per_match)]})
            for position in picks[:positions_per_match + 3]:
                bench = rec.bench_at(position)
                writer = present(bench.writer)
                player = (writer + 1) % 4
                self.places.append((bench, player, clone(bench.tables[player]),
                                    rec.transcript[position]))
        self.identities = recordings[0].final.identities
        self.notices = [n for rec in recordings for n in _notices(rec)]
        self.live: dict[int, Table] = {}

    def _table(self, index: int) -> Table:
        if index not in self.live:
            bench, player, pristine, _ = self.places[index]
            self.live[index] = clone(pristine)
        return self.live[index]

    def make(self, rng: random.Random, mutator: Mutator) -> tuple[int, bytes, bool]:
        index = rng.randrange(len(self.places))
        bench, player, _, nxt = self.places[index]
        as_alert = rng.random() < 0.15
        base = rng.choice(self.notices) if as_alert else nxt if rng.random() < 0.6 else mutator.pick()
        roll = rng.random()
        if roll < 0.45:
            data = mutator.mutate_bytes(base)
        elif roll < 0.9:
            data = resigned(base, mutator, bench.identities)
        elif roll < 0.95:
            data = mutator.random_bytes()
        else:
            data = base
        return index, data, as_alert

    def run(self, item: tuple[int, bytes, bool]) -> None:
        index, data, as_alert = item
        table = self._table(index)
        before = _quick_mark(table)
        try:
            table.receive_alert(data) if as_alert else table.receive(data)
        except SeatPlayedElsewhere:
            self.live.pop(index, None)  # signed with the table's own key: it stops, by design
            raise
        except (RemoteProtocolError, LocalProtocolError):
            if _quick_mark(table) != before:
                self.live.pop(index, None)
                raise Failure("a refused input changed the table") from None
            raise
        after = _quick_mark(table)
        if after == before:
            return
        self.live.pop(index, None)
        signer = SignedMessage.parse(data).player
        if table.stage is Stage.ENDED:
            verdict = present(table.verdict)
            if not as_alert and signer not in verdict.players:
                raise Failure(f"verdict {verdict.rule} blames {verdict.players}, "
                              f"not the signer {signer}")
            return
        if table.transcript()[-1] != data or len(table.messages) != before[0] + 1:
            raise Failure("the table changed without appending the input")


class RelayDoor:
    """``Relay.frame`` on a started table with four seated links (never raises)."""

    def __init__(self, recording: Recording) -> None:
        bench = recording.final
        lobby = Lobby(bench.identities[0], recording.game, {}, "den")
        relay = Relay.resume(lobby, recording.transcript[:12])
        for link, identity in enumerate(bench.identities, start=1):
            relay.connected(link, identity.public_key)
            relay.frame(link, frames.encode("hello", {
                "v": 2, "name": identity.name, "sid": relay.session, "have": 12, "bot": 0}))
        relay.connected(9, Identity.generate("stranger").public_key)
        self.pristine = relay
        self.relay = clone(relay)
        self.identities = bench.identities
        self.next = recording.transcript[12]

    def make(self, rng: random.Random, mutator: Mutator) -> tuple[int, bytes]:
        link = rng.choice([1, 2, 3, 4, 9])
        roll = rng.random()
        if roll < 0.4:
            data = mutator.mutate_bytes(mutator.pick())
        elif roll < 0.7:
            inner = resigned(self.next if rng.random() < 0.5 else mutator.pick(), mutator,
                             self.identities)
            data = frames.encode(rng.choice(["msg", "alert"]), inner)
        elif roll < 0.9:
            try:
                decoded = msgpack.unpackb(mutator.pick(), raw=False, strict_map_key=False)
                data = _pack(mutator.mutate_value(decoded)) or mutator.random_bytes()
            except Exception:
                data = mutator.random_bytes()
        else:
            data = mutator.random_bytes()
        return link, data

    def run(self, item: tuple[int, bytes]) -> None:
        link, data = item
        relay = self.relay
        before = len(relay.messages)
        outputs = relay.frame(link, data)
        if not isinstance(outputs, list) or not all(
                isinstance(o, get_args(Output)) for o in outputs):
            raise Failure("relay returned something that is not an output")
        if len(relay.messages) != before:
            for msg in relay.messages[before:]:
                msg.verify(self.identities[msg.player].public_key)
            self.relay = clone(self.pristine)
        if len(relay.links) != len(self.pristine.links):
            self.relay = clone(self.pristine)


def _sealed_corpus(corpus: Corpus) -> tuple[list[bytes], Callable[[], Any], list[bytes]]:
    """Handshake messages of a real link; sealed frames under fixed keys, and a
    factory of receivers expecting the first of them."""
    alice, bob = Identity.generate("a"), Identity.generate("b")
    i, r = LinkHandshake(alice, Role.INITIATOR), LinkHandshake(bob, Role.RESPONDER)
    hello = present(i.start())
    reply = present(r.receive(hello))
    finish = present(i.receive(reply))
    keys = (bytes(range(32)), bytes(range(32, 64)))
    sender = SecureChannel(keys[0], keys[1], bob.public_key)
    sealed = [sender.seal(f) for f in corpus.frames[:40]]

    def receiver() -> SecureChannel:
        return SecureChannel(keys[1], keys[0], alice.public_key)
    return [hello, reply, finish], receiver, sealed


def targets(corpus: Corpus) -> list[Target]:
    """Every door, ready to fuzz."""
    handshakes, receiver, sealed = _sealed_corpus(corpus)
    channel = [receiver()]
    table = TableDoor(corpus.recordings)
    relay = RelayDoor(corpus.recordings[0])
    framed = [encode_frame(f) for f in corpus.frames]
    identity = Identity.generate("fuzz")

    def make_bytes(source: list[bytes]) -> Callable[[random.Random, Mutator], bytes]:
        def make(rng: random.Random, m: Mutator) -> bytes:
            roll = rng.random()
            if roll < 0.15:
                return m.random_bytes()
            base = rng.choice(source)
            return base if roll > 0.97 else m.mutate_bytes(base)
        return make

    def make_structured(source: list[bytes]) -> Callable[[random.Random, Mutator], bytes]:
        plain = make_bytes(source)

        def make(rng: random.Random, m: Mutator) -> bytes:
            if rng.random() < 0.5:
                return plain(rng, m)
            try:
                decoded = msgpack.unpackb(rng.choice(source), raw=False, strict_map_key=False)
            except Exception:
                return plain(rng, m)
            return _pack(m.mutate_value(decoded)) or m.random_bytes()
        return make

    def run_framing(item: tuple[int, list[bytes]]) -> None:
        limit, chunks = item
        decoder = FrameDecoder(limit)
        try:
            for chunk in chunks:
                for frame in decoder.feed(chunk):
                    if len(frame) > limit:
                        raise Failure("a frame longer than the limit came out")
                if decoder.buffered > max(limit, 4):
                    raise Failure("the decoder holds more than one frame")
            decoder.end_of_stream()
        except FrameError:
            try:
                decoder.feed(b"x")
            except FrameError:
                raise
            raise Failure("a broken decoder accepted more data") from None

    def make_framing(rng: random.Random, m: Mutator) -> tuple[int, list[bytes]]:
        limit = rng.choice([0, 16, 200, 4096, MAX_FRAME])
        stream = b"".join(rng.choice(framed) for _ in range(rng.randrange(1, 4)))
        if rng.random() < 0.7:
            stream = m.mutate_bytes(stream)
        chunks, at = [], 0
        while at < len(stream):
            step = rng.choice([1, 2, 3, 7, 64, 1000, len(stream)])
            chunks.append(stream[at:at + step])
            at += step
        return limit, chunks

    def run_open(data: bytes) -> None:
        before = channel[0].frames_received
        try:
            channel[0].open(data)
        except SealedFrameError:
            if channel[0].frames_received != before:
                raise Failure("a refused sealed frame moved the counter") from None
            raise
        channel[0] = receiver()  # the genuine first frame: start again

    def run_handshake(item: tuple[bool, bytes]) -> None:
        as_responder, data = item
        hs = LinkHandshake(identity, Role.RESPONDER if as_responder else Role.INITIATOR)
        if not as_responder:
            hs.start()
        hs.receive(data)

    geneses = [rec.transcript[0] for rec in corpus.recordings]
    seated = corpus.recordings[0].final.identities[1]

    def make_genesis(rng: random.Random, m: Mutator) -> bytes:
        base = rng.choice(geneses)
        if rng.random() < 0.7:
            return resigned(base, m, corpus.recordings[0].final.identities)
        return m.mutate_bytes(base)

    def run_genesis(data: bytes) -> None:
        """What a joining peer does with the first message its host sends."""
        Table(data, seated)

    return [
        Target("framing", make_framing, run_framing, (FrameError,), 2),
        Target("link-open", make_bytes(sealed), run_open, (SealedFrameError,), 2),
        Target("handshake", lambda rng, m: (rng.random() < 0.5, make_bytes(handshakes)(rng, m)),
               run_handshake, (HandshakeError,), 2),
        Target("wire", make_structured(corpus.everything), lambda d: wire.unpack(d),
               (MalformedWire,), 2),
        Target("envelope", make_structured(corpus.messages), SignedMessage.parse,  # type: ignore[arg-type]
               (MalformedWire, MalformedMessage), 2),
        Target("frames", make_structured(corpus.frames), frames.decode,  # type: ignore[arg-type]
               (MalformedWire, MalformedMessage), 2),
        Target("genesis", make_genesis, run_genesis, (RemoteProtocolError, LocalProtocolError), 1),
        Target("table", table.make, table.run, (RemoteProtocolError, LocalProtocolError), 3),
        Target("relay", relay.make, relay.run, (), 2),
    ]


def default_corpus(seed: int = 1) -> Corpus:
    return Corpus([recording("topper", seed), recording("bluff", seed)])


def schedule(all_targets: list[Target], rng: random.Random) -> Target:
    """A target chosen by weight."""
    return rng.choices(all_targets, weights=[t.weight for t in all_targets])[0]


def stream_rng(seed: int, index: int) -> random.Random:
    """The generator of input ``index`` of a run with ``seed``: any input can be replayed alone."""
    return random.Random(SeededRng(f"fuzz {seed} {index}".encode())(16))


__all__ = ["Corpus", "Failure", "Mutator", "Target", "default_corpus", "schedule", "stream_rng",
           "targets"]
