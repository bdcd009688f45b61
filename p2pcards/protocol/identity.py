"""A peer's long-term identity: an Ed25519 key pair and a display name.

The identity signs every transcript message and every link handshake. People
compare identities by *fingerprint*, a short digest of the public key. This
module is pure: loading and saving the key lives in ``p2pcards.net.storage``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from nacl.encoding import RawEncoder
from nacl.hash import blake2b
from nacl.signing import SigningKey, VerifyKey

FINGERPRINT_PERSON = b"p2pcards-fp-v2"


def fingerprint(public_key: bytes) -> str:
    """Short, human-comparable digest of an Ed25519 public key: ``ab12-cd34-ef56``."""
    digest = blake2b(public_key, digest_size=6, person=FINGERPRINT_PERSON, encoder=RawEncoder).hex()
    return "-".join(digest[i:i + 4] for i in range(0, 12, 4))


class Signer(Protocol):
    """What a table needs of its seat's identity: the key that finds the seat, the
    name, and signatures. An :class:`Identity`, or a replay's stand-in that has only
    the public half and refuses to sign."""

    @property
    def public_key(self) -> bytes: ...

    @property
    def name(self) -> str: ...

    @property
    def fingerprint(self) -> str: ...

    def sign(self, message: bytes) -> bytes: ...


@dataclass(frozen=True)
class Identity:
    """A signing key and the name shown to other players. Never printed whole."""

    signing_key: SigningKey = field(repr=False)
    name: str = "player"

    @classmethod
    def generate(cls, name: str = "player") -> Identity:
        return cls(SigningKey.generate(), name)

    @property
    def public_key(self) -> bytes:
        return bytes(self.signing_key.verify_key)

    @property
    def verify_key(self) -> VerifyKey:
        return self.signing_key.verify_key

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, message: bytes) -> bytes:
        """Detached 64-byte Ed25519 signature."""
        return self.signing_key.sign(message).signature

    def __repr__(self) -> str:
        return f"Identity(name={self.name!r}, fingerprint={self.fingerprint})"
