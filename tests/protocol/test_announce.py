"""Direct-link announcements (issue 20, finding 6): what a peer accepts as another
player's own word on where it listens, and what it ignores, with which reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from nacl.signing import VerifyKey

from p2pcards.protocol import wire
from p2pcards.protocol.announce import (
    ANNOUNCE_TAG,
    MAX_ANNOUNCEMENT,
    AnnouncementBadAddress,
    AnnouncementBook,
    AnnouncementForged,
    AnnouncementIgnored,
    AnnouncementMalformed,
    AnnouncementOtherTable,
    AnnouncementStale,
    AnnouncementUnseated,
    SignedAnnouncement,
    announce_counter,
    seal_announcement,
)
from p2pcards.protocol.envelope import NOTICE_TAG, SIGN_TAG
from p2pcards.protocol.identity import Identity, fingerprint
from p2pcards.protocol.talk import TALK_TAG
from p2pcards.wiremap import WireList

SESSION = bytes(range(32))
OTHER_SESSION = bytes(32)
PLAYERS = [Identity.generate(f"p{i}") for i in range(4)]
KEYS = [p.public_key for p in PLAYERS]
ADDRS = [["192.168.1.7", 40123], ["fe80::1%eth0", 40123]]


def _book(me: int = 0) -> AnnouncementBook:
    return AnnouncementBook(SESSION, KEYS, me)


def _signed(player: int = 2, *, session: bytes = SESSION, addrs: list[WireList] | None = None,
            counter: int = 1000) -> bytes:
    return seal_announcement(PLAYERS[player], session=session, addrs=ADDRS if addrs is None else addrs,
                             counter=counter).raw


def _raw(payload: dict[str, object], signer: Identity, tag: bytes = ANNOUNCE_TAG) -> bytes:
    packed = wire.pack(payload)
    return wire.pack([packed, signer.sign(tag + packed)])


def _payload(player: int = 2, **changes: object) -> dict[str, object]:
    fields: dict[str, object] = {"v": 2, "sid": SESSION, "pk": KEYS[player], "n": 1000, "addrs": ADDRS}
    fields.update(changes)
    return fields


def test_a_seated_players_announcement_gives_its_index_and_addresses() -> None:
    found = _book().check(_signed(2))
    assert found is not None
    assert found.player == 2
    assert found.addrs == ADDRS


def test_the_same_announcement_again_is_a_quiet_copy() -> None:
    book = _book()
    raw = _signed(2)
    assert book.check(raw) is not None
    assert book.check(raw) is None


def test_a_forged_signature_is_ignored() -> None:
    forged = _raw(_payload(2), PLAYERS[3])  # player 3 signs player 2's addresses
    with pytest.raises(AnnouncementForged):
        _book().check(forged)


def test_an_altered_address_breaks_the_signature() -> None:
    signed = SignedAnnouncement.parse(_signed(2))
    altered = signed.payload.replace(b"192.168.1.7", b"192.168.1.9")
    with pytest.raises(AnnouncementForged):
        _book().check(wire.pack([altered, signed.signature]))


@pytest.mark.parametrize("tag", [SIGN_TAG, NOTICE_TAG, TALK_TAG, b""])
def test_a_signature_in_another_domain_is_forged(tag: bytes) -> None:
    with pytest.raises(AnnouncementForged):
        _book().check(_raw(_payload(2), PLAYERS[2], tag))


def test_an_announcement_for_another_session_is_ignored() -> None:
    with pytest.raises(AnnouncementOtherTable):
        _book().check(_signed(2, session=OTHER_SESSION))


def test_a_key_that_is_not_seated_is_ignored() -> None:
    stranger = Identity.generate("stranger")
    raw = seal_announcement(stranger, session=SESSION, addrs=ADDRS, counter=5).raw
    with pytest.raises(AnnouncementUnseated, match="not a player"):
        _book().check(raw)


def test_this_players_own_announcement_is_not_dialled() -> None:
    with pytest.raises(AnnouncementUnseated, match="own"):
        _book(me=2).check(_signed(2))


@pytest.mark.parametrize("address", ["224.0.0.251", "ff02::fb", "0.0.0.0", "::"])
def test_an_address_nobody_may_dial_is_refused(address: str) -> None:
    raw = _signed(2, addrs=[["192.168.1.7", 40123], [address, 40123]])
    with pytest.raises(AnnouncementBadAddress):
        _book().check(raw)


@pytest.mark.parametrize("addrs", [
    [["evil.example.com", 40123]],       # a host name: never resolved
    [["192.168.1.7", 0]],                # no port 0
    [["192.168.1.7", 70000]],
    [],                                  # nothing to dial
    [["10.0.0.1", 1]] * 5,               # more than four
    [["10.0.0.1"]],
])
def test_ill_shaped_addresses_are_malformed(addrs: list[object]) -> None:
    with pytest.raises(AnnouncementMalformed):
        _book().check(_raw(_payload(2, addrs=addrs), PLAYERS[2]))


@pytest.mark.parametrize("raw", [b"", b"\x92", wire.pack([b"x", b"y" * 64]), wire.pack({"a": 1}),
                                 b"\x00" * 600])
def test_bytes_that_are_no_announcement_are_malformed(raw: bytes) -> None:
    with pytest.raises(AnnouncementMalformed):
        _book().check(raw)


def test_extra_or_missing_fields_are_malformed() -> None:
    with pytest.raises(AnnouncementMalformed):
        _book().check(_raw(_payload(2, extra=1), PLAYERS[2]))
    fields = _payload(2)
    del fields["n"]
    with pytest.raises(AnnouncementMalformed):
        _book().check(_raw(fields, PLAYERS[2]))
    with pytest.raises(AnnouncementMalformed):
        _book().check(_raw(_payload(2, v=1), PLAYERS[2]))


def test_an_older_announcement_never_replaces_a_newer_one() -> None:
    book = _book()
    newer = _signed(2, addrs=[["10.0.0.2", 5000]], counter=2000)
    older = _signed(2, addrs=[["10.0.0.1", 4000]], counter=1000)
    assert book.check(newer) is not None
    with pytest.raises(AnnouncementStale):
        book.check(older)
    again = _signed(2, addrs=[["10.0.0.3", 6000]], counter=2000)
    with pytest.raises(AnnouncementStale):
        book.check(again)
    latest = book.check(_signed(2, addrs=[["10.0.0.4", 7000]], counter=3000))
    assert latest is not None and latest.addrs == [["10.0.0.4", 7000]]


def test_a_bad_announcement_changes_nothing_accepted_before() -> None:
    book = _book()
    good = _signed(2, counter=2000)
    book.check(good)
    with pytest.raises(AnnouncementForged):
        book.check(_raw(_payload(2, n=9000, addrs=[["10.9.9.9", 1]]), PLAYERS[3]))
    assert book.last[2].raw == good
    assert book.check(good) is None


def test_the_counter_only_goes_up() -> None:
    assert announce_counter(0, wall_ms=5000) == 5000
    assert announce_counter(7000, wall_ms=5000) == 7001


def test_an_announcer_lists_only_the_addresses_that_fit_and_a_longer_one_is_malformed() -> None:
    """Only text in other characters than ASCII (a zone so named) can pass the 512-byte
    limit (PROTOCOL.md §12): the announcer then drops its last addresses; a receiver
    refuses an announcement over the limit however well its fields are shaped."""
    wide = [[f"fe80::{i}%" + "\u8def" * 56, 40123 + i] for i in range(1, 5)]
    signed = seal_announcement(PLAYERS[2], session=SESSION, addrs=wide, counter=1000)
    assert len(signed.raw) <= MAX_ANNOUNCEMENT
    assert 1 <= len(signed.addrs) < len(wide)
    assert [list(a) for a in signed.addrs] == wide[:len(signed.addrs)]  # the first ones, in order
    assert _book().check(signed.raw) is not None
    too_long = _raw(_payload(addrs=wide), PLAYERS[2])
    assert len(too_long) > MAX_ANNOUNCEMENT
    with pytest.raises(AnnouncementMalformed):
        _book().check(too_long)


def test_the_announcement_vector_is_what_the_code_accepts_and_ignores() -> None:
    """protocol/vectors/announcement.json, read as another implementation would."""
    root = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
    vector = json.loads((root / "announcement.json").read_text())
    keys = [bytes.fromhex(k) for k in json.loads((root / "table-bluff.json").read_text())
            ["player_public_keys"]]
    session = bytes.fromhex(vector["session_id"])
    assert keys[vector["player"]].hex() == vector["public_key"]
    raw = bytes.fromhex(vector["announcement"])
    signed = SignedAnnouncement.parse(raw)
    VerifyKey(keys[1]).verify(ANNOUNCE_TAG + signed.payload, signed.signature)
    found = AnnouncementBook(session, keys, 0).check(raw)
    assert found is not None and (found.player, found.addrs) == (vector["player"], vector["addrs"])
    assert bytes.fromhex("".join(vector["txt"][f"d{i}"] for i in range(len(vector["txt"]) - 1))) == raw
    # The instance name and the SRV record carry the port of the first address (§12).
    assert vector["addrs"][0][1] != vector["addrs"][1][1]
    assert vector["srv_port"] == vector["addrs"][0][1]
    assert vector["instance"].split(".")[0].split(" ") == [
        session.hex()[:16], fingerprint(keys[1]), str(vector["addrs"][0][1])]
    largest = vector["largest_ascii"]
    assert largest["bytes"] == len(bytes.fromhex(largest["announcement"])) <= MAX_ANNOUNCEMENT
    assert largest["rule"] == "accepted"
    assert AnnouncementBook(session, keys, 0).check(bytes.fromhex(largest["announcement"]))
    for case in vector["ignored"]:
        book = AnnouncementBook(session, keys, 0)
        if "older" in case["case"]:
            book.check(raw)
        with pytest.raises(AnnouncementIgnored) as ignored:
            book.check(bytes.fromhex(case["announcement"]))
        assert ignored.value.rule == case["rule"], case["case"]
