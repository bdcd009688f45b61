#!/usr/bin/env python3
"""Write protocol/schemas.json and the seeded table transcripts in protocol/vectors/.

    python scripts/gen_protocol.py           # write the files
    python scripts/gen_protocol.py --check   # exit 1 if they differ from the code

The table vectors are whole short matches played by seeded players and bots
(insecure seeds, for interoperability only): another implementation must
accept every message, reach the same session id, seats, hands (from each
player's key share) and outcome, and produce the same bytes from the same
seeds if it follows CRYPTO.md's randomness order.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2pcards.app._direct import direct_table  # noqa: E402
from p2pcards.app.insecure_seed import seeded_identity  # noqa: E402
from p2pcards.net.direct_discovery import (  # noqa: E402
    announcement_instance,
    announcement_properties,
)
from p2pcards.protocol import wire  # noqa: E402
from p2pcards.protocol.again import AGAIN, sign_choice  # noqa: E402
from p2pcards.protocol.announce import (  # noqa: E402
    ANNOUNCE_TAG,
    AnnouncementBook,
    AnnouncementIgnored,
    seal_announcement,
)
from p2pcards.protocol.catalogue import catalogue  # noqa: E402
from p2pcards.protocol.envelope import SignedMessage, seal, seal_notice  # noqa: E402
from p2pcards.protocol.errors import VerdictRefused  # noqa: E402
from p2pcards.protocol.evidence import check_verdict  # noqa: E402
from p2pcards.protocol.table import Table  # noqa: E402
from p2pcards.protocol.table_records import Stage  # noqa: E402
from p2pcards.protocol.verdict import Verdict  # noqa: E402
from p2pcards.rules.bluff import BluffConfig, Phase  # noqa: E402
from p2pcards.rules.topper import TopperConfig  # noqa: E402

VECTORS = {
    "table-topper.json": ("topper", 11, TopperConfig(target_score=2)),
    "table-bluff.json": ("bluff", 12, BluffConfig(deal_cap=1, table_price=100, starting_chips=400)),
}


def table_vector(game: str, seed: int, config) -> dict:
    table = direct_table(game, seed=seed, config=config)
    table.run()
    first = table.tables[0]
    return {
        "description": f"A whole {game} match of four seeded players (see p2pcards/app/_direct.py and "
                       "p2pcards/app/insecure_seed.py: seeded_identity, randomness_for). Insecure seeds: "
                       "for interoperability tests only.",
        "seed": seed,
        "session_id": first.session.hex(),
        "player_public_keys": [p.public_key.hex() for p in first.players],
        "player_key_shares": [t.secrets.key.secret_bytes().hex() for t in table.tables],
        "player_at_seat": list(first.player_at_seat),
        "outcome": repr(first.engine.outcome),
        "messages": [raw.hex() for raw in first.transcript()],
    }


#: The rematch of table-topper.json's match (same four players), for the evening vector.
EVENING_SEED = 13


def evening_vector() -> dict:
    """table-topper.json's match, everyone's "again", and its rematch: a chained genesis."""
    game, seed, config = VECTORS["table-topper.json"]
    first = direct_table(game, seed=seed, config=config)
    first.run()
    finished = first.tables[0].finished()
    second = direct_table(game, seed=EVENING_SEED, config=config, identities=first.identities,
                          after=finished.after)
    second.run()
    rematch = second.tables[0]
    return {
        "description": "The rematch of table-topper.json's match by the same four players "
                       "(PROTOCOL.md §14): each player's signed 'again' choice about that match, "
                       "then the whole second match, whose genesis names the first in 'after' "
                       "and whose seats are the first match's rotated by one. Insecure seeds.",
        "follows": "table-topper.json",
        "seed": EVENING_SEED,
        "after": {"sid": finished.session.hex(), "final": finished.final.hex(),
                  "seats": [k.hex() for k in finished.seats]},
        "again_choices": [sign_choice(first.identities[p], finished, p, AGAIN).raw.hex()
                          for p in range(4)],
        "session_id": rematch.session.hex(),
        "player_at_seat": list(rematch.player_at_seat),
        "previous_player_at_seat": list(first.tables[0].player_at_seat),
        "outcome": repr(rematch.engine.outcome),
        "messages": [raw.hex() for raw in rematch.transcript()],
    }


#: The table the verdict vectors start from: table-bluff.json's, whose messages they cite.
VERDICT_TABLE = VECTORS["table-bluff.json"]


def _bluff_at(phase: Phase):
    game, seed, config = VERDICT_TABLE
    table = direct_table(game, seed=seed, config=config)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY
                    and t.tables[0].match.engine.phase is phase)
    return table


def _malformed_case(name: str, phase: Phase, mtype: str, body_of) -> dict:
    """The writer due at ``phase`` signs ``mtype`` with a malformed body: every peer's verdict."""
    table = _bluff_at(phase)
    writer = table.writer
    seat = table.tables[writer]
    position, prev = seat.next_position, seat.head
    honest = seat.outgoing() if mtype == "show" else None  # its shares, to cut or pad
    body = body_of(SignedMessage.parse(honest.raw).body if honest is not None else None)
    raw = seal(table.identities[writer], session=seat.session, position=position,
               prev=prev, player=writer, type=mtype, body=body).raw
    observer = table.observer
    observer.receive(raw)
    verdict = observer.verdict
    return {"case": name, "after_messages": observer.next_position, "message": raw.hex(),
            "rule": verdict.rule, "players": list(verdict.players), "position": verdict.position}


def _several_case(name: str, phase: Phase, mtype: str, body_of) -> dict:
    """The writer due at ``phase`` signs a message breaking several rules at once;
    ``body_of(own slots, another seat's slot, a rank not the round's)`` builds its body."""
    table = _bluff_at(phase)
    writer = table.writer
    seat = table.tables[writer]
    own = sorted(seat.hand)
    other = next(s for s in range(52) if s % 4 != seat.my_seat)
    named = seat.match.engine.named_rank
    wrong = 3 if named is not None and int(named) == 2 else 2
    raw = seal(table.identities[writer], session=seat.session, position=seat.next_position,
               prev=seat.head, player=writer, type=mtype,
               body=body_of(own, other, wrong)).raw
    observer = table.observer
    observer.receive(raw)
    verdict = observer.verdict
    return {"case": name, "after_messages": observer.next_position, "message": raw.hex(),
            "rule": verdict.rule, "players": list(verdict.players), "position": verdict.position}


def _a_share(table_phase: Phase) -> list:
    """One well-shaped share (the REVEAL writer's own), to put where it does not belong."""
    table = _bluff_at(table_phase)
    honest = table.tables[table.writer].outgoing()
    return SignedMessage.parse(honest.raw).body["shares"][:1]


def several_vectors() -> list[dict]:
    """One message, several rules broken: the first check in PROTOCOL.md §8's order
    (and RULES.md's "Which rule when several are broken") names the rule."""
    lead, respond = Phase.LEAD, Phase.RESPOND
    share = _a_share(Phase.REVEAL)
    return [
        _several_case("discard of 5 cards (most 4), no rank, stake 0", lead, "discard",
                      lambda own, other, wrong: {"slots": own[:5], "stake": 0, "rank": 0}),
        _several_case("discard naming one card twice, no rank, stake 0", lead, "discard",
                      lambda own, other, wrong: {"slots": [own[0], own[0]], "stake": 0, "rank": 0}),
        _several_case("discard of another seat's card, no rank, stake 0", lead, "discard",
                      lambda own, other, wrong: {"slots": [other], "stake": 0, "rank": 0}),
        _several_case("leader's discard naming no rank, stake 0", lead, "discard",
                      lambda own, other, wrong: {"slots": own[:1], "stake": 0, "rank": 0}),
        _several_case("response naming another rank than the round's, stake 0", respond,
                      "discard", lambda own, other, wrong: {"slots": own[:1], "stake": 0,
                                                            "rank": wrong}),
        _several_case("show with nothing challenged (the last discard is another seat's)",
                      respond, "show", lambda own, other, wrong: {"shares": share}),
        _several_case("show with no discard on the table (the leader's turn)",
                      lead, "show", lambda own, other, wrong: {"shares": share}),
    ]


def _endorsed(prefix: list[bytes], verdict: Verdict) -> str:
    """What verify says of ``verdict`` beside ``prefix``: "confirmed" (its evidence breaks
    the rule), "checks" (a leave or deadline, as far as anything can) or the refusal's id."""
    table = Table(prefix[0])
    for raw in prefix[1:]:
        table.receive(raw)
    try:
        return "confirmed" if check_verdict(table, verdict) else "checks"
    except VerdictRefused as refused:
        return refused.rule


def saved_vectors() -> list[dict]:
    """Verdicts beside a saved transcript that goes on past what they name, and what
    verify says of each (PROTOCOL.md §8): a leave's verdict stands at the transcript's
    end whatever the notice's own position, and evidence is fed after the whole
    transcript (not a transcript cut at the verdict's position)."""
    game, seed, config = VERDICT_TABLE
    table = direct_table(game, seed=seed, config=config)
    table.run()
    messages = table.tables[0].transcript()
    parsed = [SignedMessage.parse(raw) for raw in messages]
    at = [i for i, m in enumerate(parsed) if m.type == "discard"][1]  # a discard in play
    end = at + 3  # the transcript the verdicts sit beside: it goes on past ``at``
    session = parsed[1].session
    leaver = next(p for p in range(4) if all(m.player != p for m in parsed[at:end]))

    def leave(position: int) -> bytes:
        return seal_notice(table.identities[leaver], session=session, position=position,
                           prev=parsed[position - 1].digest, player=leaver, type="leave",
                           body={}).raw

    def left(position: int, notice: bytes) -> Verdict:
        return Verdict("left", (leaver,), position, "left the table", (notice,))

    writer, held = parsed[at].player, parsed[at]
    other = seal(table.identities[writer], session=session, position=at, prev=held.prev,
                 player=writer, type=held.type, body={**held.body, "stake": 0}).raw
    cut = Table(messages[0])
    for raw in messages[1:at]:
        cut.receive(raw)
    cut.receive(other)
    assert cut.verdict is not None
    breaks = Verdict(cut.verdict.rule, (writer,), at, "as a transcript cut there shows", (other,))
    cases = [
        ("a leave signed before the transcript's end (the others wrote on), named at the end",
         end, left(end, leave(at))),
        ("that leave named at the notice's own position", end, left(at, leave(at))),
        ("a leave dated past the transcript's end (the leaver was ahead), named at the end",
         end, left(end, leave(end + 2))),
        ("an equivocation below the transcript's end, the other version the transcript's own",
         end, Verdict("chain.equivocation", (writer,), at, "two messages for one position",
                      (other,))),
        ("that message named for the rule it breaks where a transcript is cut at its position",
         end, breaks),
        ("the same verdict beside the transcript cut at its position", at, breaks),
    ]
    return [{"case": name, "after_messages": count, "rule": verdict.rule,
             "players": list(verdict.players), "position": verdict.position,
             "verdict_file": wire.pack(verdict.to_wire()).hex(),
             "endorsed": _endorsed(messages[:count], verdict)}
            for name, count, verdict in cases]


def verdict_vector() -> dict:
    """The rule id of each malformed case, and the verdicts a player writes, byte for byte."""
    lead, reveal = Phase.LEAD, Phase.REVEAL
    malformed = [
        _malformed_case("bluff discard naming rank 1", lead, "discard",
                        lambda _: {"slots": [0], "stake": 100, "rank": 1}),
        _malformed_case("bluff discard with a float stake", lead, "discard",
                        lambda _: {"slots": [0], "stake": 100.0, "rank": 2}),
        _malformed_case("bluff discard naming rank 15", lead, "discard",
                        lambda _: {"slots": [0], "stake": 100, "rank": 15}),
        _malformed_case("bluff show with no share", reveal, "show", lambda b: {"shares": []}),
        _malformed_case("bluff show with one share too many", reveal, "show",
                        lambda b: {"shares": b["shares"] + b["shares"][:1]}),
    ]
    # A table setting decides: table-bluff.json's genesis allows no hints (PROTOCOL.md §7).
    settings = [_malformed_case("a hint where the genesis allows none", lead, "hint",
                                lambda _: {})]
    written = []
    for kind in ("deadline of the writer", "host unreachable", "leave"):
        table = _bluff_at(reveal)
        me = table.tables[0] if table.writer != 0 else table.tables[1]
        if kind == "deadline of the writer":
            me.declare_deadline_missed()
            notice = me.alert()
        elif kind == "host unreachable":
            me.declare_deadline_missed(0, "(the host) could not be reached")
            notice = me.alert()
        else:
            notice = me.leave()
        verdict = me.verdict
        written.append({"case": kind, "writer": me.me_player, "after_messages": me.next_position,
                        "rule": verdict.rule, "players": list(verdict.players),
                        "position": verdict.position,
                        "verdict_file": wire.pack(verdict.to_wire()).hex(),
                        "notice": notice.hex()})
    return {
        "description": "Verdicts pinned by PROTOCOL.md §8: each case starts from the first "
                       "after_messages messages of table-bluff.json (same seeds). 'malformed': "
                       "the writer due signs this message; every peer's verdict has this rule, "
                       "players and position. 'several': the writer due signs one message that breaks "
                       "several rules; the first check in PROTOCOL.md §8's order (RULES.md, 'Which "
                       "rule when several are broken') names the rule. 'written': the verdict a player writes itself "
                       "(its saved 'verdict' file, msgpack) and the notice it sends (an 'alert' "
                       "carrying that verdict, or its 'leave'), byte for byte (Ed25519 is "
                       "deterministic). 'settings': like 'malformed', a well-formed message "
                       "that the genesis's table settings forbid. 'saved': a verdict "
                       "file beside the first after_messages messages, and what verify says of "
                       "it: 'confirmed' (its evidence, fed after that whole transcript, breaks its "
                       "rule), 'checks' (a leave, as far as anything can) or the id it is refused "
                       "with.",
        "malformed": malformed,
        "settings": settings,
        "several": several_vectors(),
        "written": written,
        "saved": saved_vectors(),
    }


def announcement_vector() -> dict:
    """A player's signed direct-link announcement at table-bluff.json's table, its
    TXT record, and the rule id each altered or replayed copy is ignored with."""
    game, seed, config = VERDICT_TABLE
    table = direct_table(game, seed=seed, config=config)
    session, me, keys = table.tables[0].session, table.identities[1], [
        identity.public_key for identity in table.identities]
    # Ports differ by address, so the instance name shows whose it carries: the first's.
    addrs = [["192.168.1.7", 40123], ["fd00::7", 40124], ["fe80::7%eth0", 40125]]
    signed = seal_announcement(me, session=session, addrs=addrs, counter=1_764_633_600_000)
    stranger = seeded_identity(seed, "stranger", "Stranger")

    def ignored(raw: bytes, after: bytes | None = None) -> str:
        book = AnnouncementBook(session, keys, 0)
        if after is not None:
            book.check(after)
        try:
            book.check(raw)
        except AnnouncementIgnored as error:
            return error.rule
        return "accepted"

    altered = wire.pack([signed.payload.replace(b"192.168.1.7", b"192.168.1.9"), signed.signature])

    def signed_as_is(listed: list[list[object]], counter: int = 1) -> bytes:
        """Signed by player 1 with every address, fitting or not (seal_announcement trims)."""
        payload = wire.pack({"v": 2, "sid": session, "pk": me.public_key, "n": counter,
                             "addrs": listed})
        return wire.pack([payload, me.sign(ANNOUNCE_TAG + payload)])

    # The largest an announcement of ASCII text can be: four 64-character addresses.
    v6 = "fd00:ffff:ffff:ffff:ffff:ffff:ffff:ffff%"
    largest = signed_as_is([[v6 + "z" * (64 - len(v6)), 65535]] * 4, counter=2**53)
    # Four addresses whose zones are named in 3-byte characters: well-shaped, too long.
    wide = signed_as_is([[f"fe80::{i}%" + "\u8def" * 56, 40123] for i in range(1, 5)])
    cases = {
        "an address altered after signing": altered,
        "another session": seal_announcement(me, session=bytes(32), addrs=addrs, counter=1).raw,
        "a key not seated at the table": seal_announcement(stranger, session=session, addrs=addrs,
                                                           counter=1).raw,
        "a multicast address": seal_announcement(me, session=session, addrs=[["224.0.0.251", 1]],
                                                 counter=2_000_000_000_000).raw,
        "a host name for an address": wire.pack([wire.pack({
            "v": 2, "sid": session, "pk": me.public_key, "n": 1, "addrs": [["table.local", 1]]}),
            bytes(64)]),
        "over 512 bytes: four addresses with zones of 3-byte characters": wide,
    }
    older = seal_announcement(me, session=session, addrs=addrs[:1], counter=1_764_633_599_999).raw
    return {
        "description": "A direct-link announcement (PROTOCOL.md §12) by player 1 of table-bluff.json "
                       "(same seeds), checked by player 0: its bytes, its zeroconf TXT record, "
                       "instance name and SRV port (both its first address's port), the largest "
                       "announcement of ASCII text (accepted, under the 512-byte limit), and the "
                       "rule id each bad copy is ignored with (Ed25519 is deterministic).",
        "session_id": session.hex(),
        "player": 1,
        "public_key": me.public_key.hex(),
        "counter": signed.counter,
        "addrs": addrs,
        "announcement": signed.raw.hex(),
        "txt": {key.decode(): value.decode() for key, value in announcement_properties(signed.raw).items()},
        "instance": announcement_instance(session, me.fingerprint, addrs[0][1]),
        "srv_port": addrs[0][1],
        "largest_ascii": {"bytes": len(largest), "announcement": largest.hex(),
                          "rule": ignored(largest)},
        "ignored": [{"case": case, "announcement": raw.hex(), "rule": ignored(raw)}
                    for case, raw in cases.items()]
                   + [{"case": "an older counter after this announcement", "announcement": older.hex(),
                       "rule": ignored(older, after=signed.raw)}],
    }


def render() -> dict[str, str]:
    files = {"schemas.json": json.dumps(catalogue(), indent=1, sort_keys=True) + "\n"}
    for name, (game, seed, config) in VECTORS.items():
        files[f"vectors/{name}"] = json.dumps(table_vector(game, seed, config), indent=1) + "\n"
    files["vectors/evening.json"] = json.dumps(evening_vector(), indent=1) + "\n"
    files["vectors/verdicts.json"] = json.dumps(verdict_vector(), indent=1) + "\n"
    files["vectors/announcement.json"] = json.dumps(announcement_vector(), indent=1) + "\n"
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    stale = []
    for name, text in render().items():
        path = ROOT / "protocol" / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote protocol/{name}")
    if stale:
        print("out of date: " + ", ".join(stale) + " (run scripts/gen_protocol.py)")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
