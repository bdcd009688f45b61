"""Link security, sans-IO: the handshake authenticates, sealed frames resist tampering."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.bindings import crypto_scalarmult, crypto_secretbox_open_easy
from nacl.public import PrivateKey

from p2pcards.net import link
from p2pcards.net.errors import (
    BadHandshakeSignature,
    HandshakeIncomplete,
    LinkError,
    MalformedHandshake,
    MalformedSealedFrame,
    OutOfOrderFrame,
    ReplayedFrame,
    TamperedFrame,
    UnexpectedPeer,
    UnsupportedVersion,
    WeakKeyExchange,
)
from p2pcards.net.link import HELLO_SIZE, LinkHandshake, Role, SecureChannel
from p2pcards.protocol.identity import Identity


def handshake(
    initiator: Identity, responder: Identity, expected: bytes | str | None = None
) -> tuple[LinkHandshake, LinkHandshake]:
    i = LinkHandshake(initiator, Role.INITIATOR, expected_peer=expected)
    r = LinkHandshake(responder, Role.RESPONDER)
    hello = i.start()
    assert hello is not None
    reply = r.receive(hello)
    assert reply is not None
    finish = i.receive(reply)
    assert finish is not None
    assert r.receive(finish) is None
    return i, r


def channels(alice: Identity, bob: Identity) -> tuple[SecureChannel, SecureChannel]:
    i, r = handshake(alice, bob)
    return i.channel(), r.channel()


def flip(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1:]


# --- handshake ------------------------------------------------------------------------


def test_handshake_authenticates_both_identities(alice: Identity, bob: Identity) -> None:
    i, r = handshake(alice, bob)
    assert i.complete and r.complete
    assert i.peer_public_key == bob.public_key
    assert r.peer_public_key == alice.public_key
    assert i.channel().peer_fingerprint == bob.fingerprint
    assert r.channel().peer_fingerprint == alice.fingerprint


def test_pin_by_fingerprint_or_key_accepts_the_right_peer(alice: Identity, bob: Identity) -> None:
    assert handshake(alice, bob, expected=bob.fingerprint)[0].complete
    assert handshake(alice, bob, expected=bob.fingerprint.upper())[0].complete
    assert handshake(alice, bob, expected=bob.public_key)[0].complete


@pytest.mark.parametrize("pin_kind", ["fingerprint", "key"])
def test_wrong_pinned_identity_fails(alice: Identity, bob: Identity, pin_kind: str) -> None:
    mallory = Identity.generate("mallory")
    pin = mallory.fingerprint if pin_kind == "fingerprint" else mallory.public_key
    with pytest.raises(UnexpectedPeer) as caught:
        handshake(alice, bob, expected=pin)
    assert caught.value.expected == mallory.fingerprint
    assert caught.value.got == bob.fingerprint


def test_responder_can_pin_the_initiator(alice: Identity, bob: Identity) -> None:
    r = LinkHandshake(bob, Role.RESPONDER, expected_peer=Identity.generate().fingerprint)
    hello = LinkHandshake(alice, Role.INITIATOR).start()
    assert hello is not None
    with pytest.raises(UnexpectedPeer):
        r.receive(hello)


def test_forged_responder_signature_is_rejected(alice: Identity, bob: Identity) -> None:
    i, r = LinkHandshake(alice, Role.INITIATOR), LinkHandshake(bob, Role.RESPONDER)
    reply = r.receive(i.start() or b"")
    assert reply is not None
    with pytest.raises(BadHandshakeSignature):
        i.receive(flip(reply, len(reply) - 1))
    assert not i.complete


def test_forged_initiator_signature_is_rejected(alice: Identity, bob: Identity) -> None:
    i, r = LinkHandshake(alice, Role.INITIATOR), LinkHandshake(bob, Role.RESPONDER)
    finish = i.receive(r.receive(i.start() or b"") or b"")
    assert finish is not None
    with pytest.raises(BadHandshakeSignature):
        r.receive(flip(finish, 0))
    assert not r.complete


def test_claiming_another_identity_fails(alice: Identity, bob: Identity) -> None:
    """Mallory relays Bob's signed reply but swaps in her own identity key."""
    mallory = Identity.generate("mallory")
    i, r = LinkHandshake(alice, Role.INITIATOR), LinkHandshake(bob, Role.RESPONDER)
    reply = r.receive(i.start() or b"")
    assert reply is not None
    offset = HELLO_SIZE - 32
    forged = reply[:offset] + mallory.public_key + reply[HELLO_SIZE:]
    with pytest.raises(BadHandshakeSignature):
        i.receive(forged)


def test_swapped_ephemeral_key_fails(alice: Identity, bob: Identity) -> None:
    """A man in the middle substituting his own ephemeral key breaks the signed hash."""
    i, r = LinkHandshake(alice, Role.INITIATOR), LinkHandshake(bob, Role.RESPONDER)
    reply = r.receive(i.start() or b"")
    assert reply is not None
    offset = len(link.MAGIC) + 1
    forged = reply[:offset] + bytes(PrivateKey.generate().public_key) + reply[offset + 32:]
    with pytest.raises(BadHandshakeSignature):
        i.receive(forged)


def test_signature_of_one_role_cannot_serve_as_the_other(alice: Identity) -> None:
    """Dialling yourself: only the role label tells the two signatures apart."""
    i, r = LinkHandshake(alice, Role.INITIATOR), LinkHandshake(alice, Role.RESPONDER)
    reply = r.receive(i.start() or b"")
    assert reply is not None
    with pytest.raises(BadHandshakeSignature):
        r.receive(reply[HELLO_SIZE:])  # the responder's own signature offered as the finish


def test_other_version_is_rejected_with_both_versions(alice: Identity, bob: Identity) -> None:
    hello = LinkHandshake(alice, Role.INITIATOR).start() or b""
    future = hello[:4] + bytes([link.LINK_VERSION + 1]) + hello[5:]
    with pytest.raises(UnsupportedVersion) as caught:
        LinkHandshake(bob, Role.RESPONDER).receive(future)
    assert (caught.value.got, caught.value.supported) == (link.LINK_VERSION + 1, link.LINK_VERSION)


@pytest.mark.parametrize("message", [b"", b"GET / HTTP/1.1\r\n\r\n", b"p2pc",
                                     b"p2pc" + bytes([link.LINK_VERSION]) + bytes(10)])
def test_malformed_hello_is_rejected(bob: Identity, message: bytes) -> None:
    with pytest.raises(MalformedHandshake):
        LinkHandshake(bob, Role.RESPONDER).receive(message)


def test_low_order_ephemeral_key_is_rejected(alice: Identity, bob: Identity) -> None:
    hello = LinkHandshake(alice, Role.INITIATOR).start() or b""
    offset = len(link.MAGIC) + 1
    weak = hello[:offset] + bytes(32) + hello[offset + 32:]
    with pytest.raises(WeakKeyExchange):
        LinkHandshake(bob, Role.RESPONDER).receive(weak)


def test_failed_handshake_refuses_further_input(alice: Identity, bob: Identity) -> None:
    r = LinkHandshake(bob, Role.RESPONDER)
    with pytest.raises(MalformedHandshake):
        r.receive(b"junk")
    with pytest.raises(MalformedHandshake):
        r.receive(LinkHandshake(alice, Role.INITIATOR).start() or b"")
    with pytest.raises(HandshakeIncomplete):
        r.channel()


def test_channel_before_completion_is_refused(alice: Identity) -> None:
    with pytest.raises(HandshakeIncomplete):
        LinkHandshake(alice, Role.INITIATOR).channel()


def test_channel_is_one_object_so_counters_are_never_reused(alice: Identity, bob: Identity) -> None:
    i, _ = handshake(alice, bob)
    assert i.channel() is i.channel()


# --- sealed frames ----------------------------------------------------------------------


def test_frames_flow_both_ways(alice: Identity, bob: Identity) -> None:
    a, b = channels(alice, bob)
    for n in range(5):
        assert b.open(a.seal(b"to bob %d" % n)) == b"to bob %d" % n
        assert a.open(b.seal(b"to alice %d" % n)) == b"to alice %d" % n


def test_altered_frame_is_rejected(alice: Identity, bob: Identity) -> None:
    a, b = channels(alice, bob)
    frame = a.seal(b"bet 10")
    for index in (8, 20, len(frame) - 1):  # authenticator, ciphertext, last byte
        with pytest.raises(TamperedFrame):
            b.open(flip(frame, index))
    assert b.open(frame) == b"bet 10"  # rejections did not move the counter


def test_replayed_frame_is_rejected(alice: Identity, bob: Identity) -> None:
    a, b = channels(alice, bob)
    frame = a.seal(b"once")
    b.open(frame)
    with pytest.raises(ReplayedFrame) as caught:
        b.open(frame)
    assert (caught.value.counter, caught.value.expected) == (0, 1)


def test_reordered_frames_are_rejected(alice: Identity, bob: Identity) -> None:
    a, b = channels(alice, bob)
    first, second = a.seal(b"1"), a.seal(b"2")
    with pytest.raises(OutOfOrderFrame):
        b.open(second)
    assert b.open(first) == b"1"
    assert b.open(second) == b"2"


def test_dropped_then_resent_frame_is_rejected(alice: Identity, bob: Identity) -> None:
    a, b = channels(alice, bob)
    dropped, after = a.seal(b"lost"), a.seal(b"next")
    with pytest.raises(OutOfOrderFrame):
        b.open(after)
    b.open(dropped)
    b.open(after)
    with pytest.raises(ReplayedFrame):
        b.open(dropped)


def test_renumbered_frame_fails_authentication(alice: Identity, bob: Identity) -> None:
    """The counter is bound into the nonce: moving a frame to another slot breaks its MAC."""
    a, b = channels(alice, bob)
    a.seal(b"zero")
    one = a.seal(b"one")
    with pytest.raises(TamperedFrame):
        b.open(bytes(8) + one[8:])


def test_truncated_frame_is_rejected(alice: Identity, bob: Identity) -> None:
    a, b = channels(alice, bob)
    frame = a.seal(b"a longer payload")
    with pytest.raises(TamperedFrame):
        b.open(frame[:-1])
    with pytest.raises(MalformedSealedFrame):
        b.open(frame[:10])


def test_frame_reflected_to_its_sender_is_rejected(alice: Identity, bob: Identity) -> None:
    a, _ = channels(alice, bob)
    with pytest.raises(TamperedFrame):
        a.open(a.seal(b"echo"))


def test_frame_from_another_session_is_rejected(alice: Identity, bob: Identity) -> None:
    old_a, _ = channels(alice, bob)
    _, new_b = channels(alice, bob)
    with pytest.raises(TamperedFrame):
        new_b.open(old_a.seal(b"replayed across sessions"))


# --- the documented computation ----------------------------------------------------------


def test_keys_and_nonces_match_the_documented_construction(
    alice: Identity, bob: Identity, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recompute protocol/LINK.md with hashlib: H, the i->r key, the nonce, the frame layout."""
    e_i, e_r = PrivateKey.generate(), PrivateKey.generate()
    keys = iter([e_i, e_r])
    monkeypatch.setattr(PrivateKey, "generate", classmethod(lambda cls: next(keys)))
    i, r = handshake(alice, bob)

    transcript = (
        b"p2pcards link\x00" + bytes([2]) + b"initiator\x00responder\x00"
        + bytes(e_i.public_key) + alice.public_key + bytes(e_r.public_key) + bob.public_key
    )
    h = hashlib.blake2b(transcript, digest_size=32, person=b"p2pcards-link-h").digest()
    shared = crypto_scalarmult(bytes(e_i), bytes(e_r.public_key))
    k_i2r = hashlib.blake2b(h, digest_size=32, key=shared, person=b"p2pcards-i2r").digest()

    frame = i.channel().seal(b"documented")
    assert frame[:8] == (0).to_bytes(8, "big")
    assert crypto_secretbox_open_easy(frame[8:], bytes(16) + frame[:8], k_i2r) == b"documented"
    assert r.channel().open(frame) == b"documented"


# --- hostile input and secrets ------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_handshake_bytes_raise_only_link_errors(data: bytes) -> None:
    responder = LinkHandshake(Identity.generate(), Role.RESPONDER)
    initiator = LinkHandshake(Identity.generate(), Role.INITIATOR)
    initiator.start()
    for side in (responder, initiator):
        with pytest.raises(LinkError):
            side.receive(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=100))
def test_random_sealed_frames_raise_only_link_errors(data: bytes) -> None:
    a, b = channels(Identity.generate(), Identity.generate())
    with pytest.raises(LinkError):
        b.open(data)
    assert b.open(a.seal(b"still fine")) == b"still fine"


def _secret_spellings(secret: bytes) -> list[str]:
    return [secret.hex(), secret.hex().upper(), repr(secret)[2:-1][:40]]


def test_nothing_secret_in_reprs_or_error_messages(alice: Identity, bob: Identity) -> None:
    i, r = handshake(alice, bob)
    a, b = i.channel(), r.channel()
    secrets = [bytes(alice.signing_key), bytes(bob.signing_key), a._send_key, a._receive_key]
    texts = [repr(i), repr(r), repr(a), repr(b), repr(alice), str(i), str(a)]
    errors: list[Exception] = []
    for attempt in (
        lambda: b.open(flip(a.seal(b"x"), 12)),
        lambda: b.open(b"short"),
        lambda: handshake(alice, bob, expected=Identity.generate().fingerprint),
        lambda: LinkHandshake(bob, Role.RESPONDER).receive(b"junk"),
    ):
        with pytest.raises(LinkError) as caught:
            attempt()
        errors.append(caught.value)
    texts += [str(error) for error in errors] + [repr(error) for error in errors]
    for text in texts:
        for secret in secrets:
            for spelling in _secret_spellings(secret):
                assert spelling not in text
