"""A second, independent implementation written from protocol/CRYPTO.md alone.

It uses raw libsodium bindings and Python integers, never ``p2pcards.crypto``,
and must reproduce the published vectors: if CRYPTO.md is wrong or
incomplete, this test fails. It covers the framing, hash-to-curve, draws,
key proofs, the seeded generator, a whole shuffle (proved from the documented
order of randomness, and verified), and decryption shares.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import nacl.bindings as nb

VECTORS = pathlib.Path(__file__).resolve().parents[2] / "protocol" / "vectors"
L = 2**252 + 27742317777372353535851937790883648493
IDENTITY = b"\x01" + bytes(31)
G = nb.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return data


def hx(value: Any) -> Any:
    """Hex text, or nested lists of it (JSON: any shape), as bytes."""
    return bytes.fromhex(value) if isinstance(value, str) else [hx(v) for v in value]


# -- §3 hashing -------------------------------------------------------------

def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def sha512f(tag: str, *fields: bytes) -> bytes:
    data = b"".join(len(f).to_bytes(4, "big") + f for f in (tag.encode(), *fields))
    return nb.crypto_hash_sha512(data)


def hs(tag: str, *fields: bytes) -> int:
    return int.from_bytes(sha512f(tag, *fields), "little") % L


def h2c(tag: str, *fields: bytes) -> bytes:
    return nb.crypto_core_ed25519_from_uniform(sha512f(tag, *fields)[:32])


# -- points as bytes, scalars as ints ---------------------------------------

def sc(n: int) -> bytes:
    return (n % L).to_bytes(32, "little")


def mul(n: int, p: bytes) -> bytes:
    n %= L
    if n == 0 or p == IDENTITY:
        return IDENTITY
    if p == G:
        return nb.crypto_scalarmult_ed25519_base_noclamp(sc(n))
    return nb.crypto_scalarmult_ed25519_noclamp(sc(n), p)


def add(*points: bytes) -> bytes:
    total = IDENTITY
    for p in points:
        total = p if total == IDENTITY else (total if p == IDENTITY else nb.crypto_core_ed25519_add(total, p))
    return total


def neg(p: bytes) -> bytes:
    return IDENTITY if p == IDENTITY else nb.crypto_core_ed25519_sub(IDENTITY, p)


def lin(scalars: Iterable[int], points: Iterable[bytes]) -> bytes:
    return add(*(mul(s, p) for s, p in zip(scalars, points, strict=False)))


class SeededRng:
    def __init__(self, seed: bytes) -> None:
        self.seed, self.block, self.buf = seed, 0, b""

    def __call__(self, n: int) -> bytes:
        while len(self.buf) < n:
            self.buf += sha512f("p2pcards/v1/test/seeded-rng", self.seed, u64(self.block))
            self.block += 1
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


def random_scalar(rng: Callable[[int], bytes]) -> int:
    for _ in range(8):
        n = int.from_bytes(rng(64), "little") % L
        if n:
            return n
    raise AssertionError("eight zero scalars in a row")


def uniform_below(n: int, word: Callable[[], int]) -> int:
    limit = 2**64 - 2**64 % n
    for _ in range(64):
        w = word()
        if w < limit:
            return w % n
    raise AssertionError("64 rejected words in a row")


def fisher_yates(n: int, word: Callable[[], int]) -> list[int]:
    p = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform_below(i + 1, word)
        p[i], p[j] = p[j], p[i]
    return p


def ctx_fields(session: bytes, seat: int, deck: int) -> tuple[bytes, bytes, bytes]:
    return session, u64(seat), u64(deck)


# -- the tests ----------------------------------------------------------------

def test_spec_hashing_seeded_rng_points_and_cards() -> None:
    v = load("hashing.json")
    fields = hx(v["sha512_fields"]["fields"])
    assert sha512f("p2pcards/v1/example", *fields).hex() == v["sha512_fields"]["digest"]
    assert sha512f("p2pcards/v1/example", *fields)[:32].hex() == v["digest32"]
    assert sc(hs("p2pcards/v1/example", *fields)).hex() == v["hash_to_scalar"]
    assert h2c("p2pcards/v1/example", *fields).hex() == v["hash_to_point"]
    assert SeededRng(hx(v["seeded_rng"]["seed"]))(200).hex() == v["seeded_rng"]["first_200_bytes"]
    p = load("points.json")
    assert p["G"] == G.hex() == "58" + "66" * 31
    assert p["H"] == h2c("p2pcards/v1/generator/chain").hex()
    assert p["h"] == [h2c("p2pcards/v1/generator/perm", u64(i)).hex() for i in range(52)]
    assert p["cards"] == {str(m): h2c("p2pcards/v1/card", u64(m)).hex() for m in range(52)}


def test_spec_draw() -> None:
    v = load("draw.json")
    session, purpose = hx(v["session"]), v["purpose"].encode()
    nonces = hx(v["nonces"])
    assert v["commit_purpose"] == "table set-up" and purpose == b"seats"  # as the protocol draws
    assert [sha512f("p2pcards/v1/draw/commit", session, u64(i), b"table set-up", n)[:32].hex()
            for i, n in enumerate(nonces)] == v["commitments"]
    seed = sha512f("p2pcards/v1/draw/seed", session, purpose, u64(len(nonces)), b"".join(nonces))[:32]
    assert seed.hex() == v["seed"]

    def stream() -> Iterator[int]:
        for block in range(64):  # far more words than any draw here takes
            data = sha512f("p2pcards/v1/draw/stream", seed, u64(block))
            for w in range(8):
                yield int.from_bytes(data[8 * w:8 * w + 8], "big")

    words = stream()
    assert [next(words) for _ in range(10)] == v["first_10_words"]
    assert uniform_below(52, stream().__next__) == v["uniform_index_52"]
    assert fisher_yates(52, stream().__next__) == v["permutation_52"]
    assert fisher_yates(4, stream().__next__) == v["permutation_4"]
    first = sha512f("p2pcards/v1/draw/seed", session, b"first", u64(len(nonces)),
                    b"".join(nonces))[:32]
    assert first.hex() == v["first"]["seed"]


def test_spec_keys() -> None:
    v = load("keys.json")
    session, deck = hx(v["session"]), v["deck"]
    publics = []
    for i, entry in enumerate(v["seats"]):
        x = random_scalar(SeededRng(b"p2pcards/vectors/v1/key/seat%d" % i))
        assert sc(x).hex() == entry["secret"]
        X = mul(x, G)
        assert X.hex() == entry["public"]
        ctx = ctx_fields(session, i, deck)
        assert sha512f("p2pcards/v1/key/commit", *ctx, X)[:32].hex() == entry["commitment"]
        c, s = (int.from_bytes(b, "little") for b in hx(entry["proof"]))
        R = add(mul(s, G), neg(mul(c, X)))
        assert hs("p2pcards/v1/key/schnorr", *ctx, G, X, R) == c
        k = random_scalar(SeededRng(b"p2pcards/vectors/v1/key-proof/seat%d" % i))
        assert hs("p2pcards/v1/key/schnorr", *ctx, G, X, mul(k, G)) == c and (k + c * x) % L == s
        publics.append(X)
    assert add(*publics).hex() == v["joint_key"]


def deck_bytes(deck: Iterable[tuple[bytes, bytes]]) -> bytes:
    return b"".join(c1 + c2 for c1, c2 in deck)


Deck = list[tuple[bytes, bytes]]
Context = tuple[bytes, bytes, bytes]


def spec_prove(deck_in: Deck, Y: bytes, ctx: Context, rng: Callable[[int], bytes]) -> tuple[Deck, list[Any]]:
    n = len(deck_in)
    H = h2c("p2pcards/v1/generator/chain")
    h = [h2c("p2pcards/v1/generator/perm", u64(i)) for i in range(n)]
    psi = fisher_yates(n, lambda: int.from_bytes(rng(8), "big"))
    rp = [random_scalar(rng) for _ in range(n)]
    out = [(add(deck_in[psi[i]][0], mul(rp[i], G)), add(deck_in[psi[i]][1], mul(rp[i], Y)))
           for i in range(n)]
    r, c = [0] * n, [b""] * n
    for i in range(n):
        r[psi[i]] = random_scalar(rng)
        c[psi[i]] = add(mul(r[psi[i]], G), h[i])
    y0 = (*ctx, Y, H + b"".join(h), deck_bytes(deck_in), deck_bytes(out), b"".join(c))
    useed = sha512f("p2pcards/v1/shuffle/u", *y0)
    u = [hs("p2pcards/v1/shuffle/u_i", useed, u64(j)) for j in range(n)]
    up = [u[psi[i]] for i in range(n)]
    rh, ch, prev = [], [], H
    for i in range(n):
        rh.append(random_scalar(rng))
        prev = add(mul(rh[i], G), mul(up[i], prev))
        ch.append(prev)
    w1, w2, w3, w4 = (random_scalar(rng) for _ in range(4))
    wh, wp = [], []
    for _ in range(n):
        wh.append(random_scalar(rng))
        wp.append(random_scalar(rng))
    t1, t2 = mul(w1, G), mul(w2, G)
    t3 = add(mul(w3, G), lin(wp, h))
    t41 = add(lin(wp, [o[1] for o in out]), neg(mul(w4, Y)))
    t42 = add(lin(wp, [o[0] for o in out]), neg(mul(w4, G)))
    th = [add(mul(wh[i], G), mul(wp[i], ([H] + ch)[i])) for i in range(n)]
    e = hs("p2pcards/v1/shuffle/c", *y0, b"".join(ch), t1, t2, t3, t41, t42, b"".join(th))
    v = [1] * n
    for i in range(n - 1, 0, -1):
        v[i - 1] = up[i] * v[i] % L
    s1 = w1 - e * sum(r)
    s2 = w2 - e * sum(rh[i] * v[i] for i in range(n))
    s3 = w3 - e * sum(r[j] * u[j] for j in range(n))
    s4 = w4 - e * sum(rp[i] * up[i] for i in range(n))
    sh = [wh[i] - e * rh[i] for i in range(n)]
    sp = [wp[i] - e * up[i] for i in range(n)]
    proof = [t1, t2, t3, t41, t42, th, sc(s1), sc(s2), sc(s3), sc(s4),
             [sc(x) for x in sh], [sc(x) for x in sp], c, ch]
    return out, proof


def spec_verify(deck_in: Deck, out: Deck, proof: list[Any], Y: bytes, ctx: Context) -> bool:
    n = len(deck_in)
    H = h2c("p2pcards/v1/generator/chain")
    h = [h2c("p2pcards/v1/generator/perm", u64(i)) for i in range(n)]
    t1, t2, t3, t41, t42, th = proof[:6]
    s1, s2, s3, s4 = (int.from_bytes(b, "little") for b in proof[6:10])
    sh, sp = ([int.from_bytes(b, "little") for b in lst] for lst in proof[10:12])
    c, ch = proof[12], proof[13]
    y0 = (*ctx, Y, H + b"".join(h), deck_bytes(deck_in), deck_bytes(out), b"".join(c))
    useed = sha512f("p2pcards/v1/shuffle/u", *y0)
    u = [hs("p2pcards/v1/shuffle/u_i", useed, u64(j)) for j in range(n)]
    e = hs("p2pcards/v1/shuffle/c", *y0, b"".join(ch), t1, t2, t3, t41, t42, b"".join(th))
    uprod = 1
    for x in u:
        uprod = uprod * x % L
    ok = [
        t1 == add(mul(e, add(*c, *(neg(x) for x in h))), mul(s1, G)),
        t2 == add(mul(e, add(ch[-1], neg(mul(uprod, H)))), mul(s2, G)),
        t3 == add(mul(e, lin(u, c)), mul(s3, G), lin(sp, h)),
        t41 == add(mul(e, lin(u, [d[1] for d in deck_in])), neg(mul(s4, Y)), lin(sp, [o[1] for o in out])),
        t42 == add(mul(e, lin(u, [d[0] for d in deck_in])), neg(mul(s4, G)), lin(sp, [o[0] for o in out])),
    ]
    ok += [th[i] == add(mul(e, ch[i]), mul(sh[i], G), mul(sp[i], ([H] + ch)[i])) for i in range(n)]
    return all(ok)


def test_spec_shuffles_prove_and_verify() -> None:
    v = load("shuffle.json")
    session, deck_no, Y = hx(v["session"]), v["deck"], hx(v["joint_key"])
    deck = [(IDENTITY, h2c("p2pcards/v1/card", u64(m))) for m in v["codes"]]
    for entry in v["shuffles"]:
        ctx = ctx_fields(session, entry["seat"], deck_no)
        assert [list(x) for x in deck] == hx(entry["deck_in"])
        out, proof = spec_prove(deck, Y, ctx, SeededRng(hx(entry["rng_seed"])))
        assert [list(x) for x in out] == hx(entry["deck_out"])
        assert proof == hx(entry["proof"])
        assert spec_verify(deck, out, proof, Y, ctx)
        other_seat = ctx_fields(session, entry["seat"] + 1, deck_no)
        assert not spec_verify(deck, out, proof, Y, other_seat)
        deck = out


def test_spec_decryption_shares() -> None:
    v = load("shares.json")
    publics = [hx(e["public"]) for e in load("keys.json")["seats"]]
    secrets = [int.from_bytes(hx(e["secret"]), "little") for e in load("keys.json")["seats"]]
    session, deck_no = hx(v["session"]), v["deck"]
    cards = {h2c("p2pcards/v1/card", u64(m)): m for m in v["codes"]}
    deck = hx(v["final_deck"])
    for entry in v["dealing"]:
        slot, (c1, c2) = entry["slot"], deck[entry["slot"]]
        points = [hx(entry["owner_point"])]
        assert points[0] == mul(secrets[entry["owner"]], c1)
        for seat_text, wire in entry["shares"].items():
            seat = int(seat_text)
            D, cb, sb = hx(wire)
            c, s = int.from_bytes(cb, "little"), int.from_bytes(sb, "little")
            A = add(mul(s, G), neg(mul(c, publics[seat])))
            B = add(mul(s, c1), neg(mul(c, D)))
            ctx = ctx_fields(session, seat, deck_no)
            assert hs("p2pcards/v1/share/dleq", *ctx, u64(slot), G, publics[seat], c1, c2, D, A, B) == c
            k = random_scalar(SeededRng(b"p2pcards/vectors/v1/share/seat%d/slot%d" % (seat, slot)))
            assert (k + c * secrets[seat]) % L == s
            points.append(D)
        assert cards[add(c2, neg(add(*points)))] == entry["code"]
