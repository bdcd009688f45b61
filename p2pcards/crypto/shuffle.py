"""A verifiable shuffle: permute and re-encrypt the deck, and prove it (Terelius–Wikström).

Why this proof: it is the one written out step by step for implementers in
Haenni, Locher, Koenig, Dubuis, "Pseudo-code algorithms for verifiable
re-encryption mix-nets" (2017), the CHVote algorithms GenShuffleProof and
CheckShuffleProof. This module follows them line by line, translated to
additive notation (CHVote's ``x·y`` is ``P + Q`` here, ``x^k`` is
``k·P``); ``CRYPTO.md`` spells out every step and every hash.

Conventions (0-based; CHVote is 1-based):

* ``ψ`` is the secret permutation and output ``i`` is input ``ψ(i)``
  re-encrypted with ``r'_i``: ``e'_i = (c1_ψ(i) + r'_i·G, c2_ψ(i) + r'_i·Y)``.
  CHVote's ElGamal pair ``(a, b)`` is our ``(c2, c1)``.
* ``c_j = r_j·G + h_i`` with ``j = ψ(i)`` commits to the permutation.
* ``u_j`` are challenges on the statement and ``c``; ``u'_i = u_ψ(i)``.
* ``ĉ_i = r̂_i·G + u'_i·ĉ_{i-1}`` with ``ĉ_{-1} = H`` chains them.

Strong Fiat–Shamir: the challenges hash the whole statement (domain tag,
session, seat, deck id, joint key, every generator, input and output decks,
commitments), so a proof made for one of them is worthless for any other.

A verifier checks the equations in two halves of about ``4N`` multiplications
each, at once on two cores where there are two (:mod:`p2pcards.crypto.halves`):
the path a table waits on between two shuffles. An offline verifier checks
many proofs at once instead (:mod:`p2pcards.crypto.batch`), from
:func:`checked_challenges`.

Cost for ``N`` cards, in scalar multiplications: the shuffler ``6N + 1``
variable-base (``5N + 1`` on the unmasked initial deck) and ``4N + 4``
fixed-base; each verifier ``8N + 4`` variable-base (``7N + 4`` when the
input is the unmasked initial deck) and ``N + 4`` fixed-base, plus
validating the ``5N + 5`` points it received.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import CardMap, Ciphertext
from p2pcards.crypto.errors import (
    CryptoError,
    InvalidEncoding,
    InvalidPoint,
    NotReEncrypted,
    ProofInvalid,
)
from p2pcards.crypto.generators import chain_base, generators, generators_sum
from p2pcards.crypto.group import (
    Point,
    Rng,
    Scalar,
    base_mul,
    default_rng,
    linear_combination,
    pending_points,
    random_scalar,
    sum_points,
    sum_scalars,
)
from p2pcards.crypto.halves import both_halves
from p2pcards.crypto.hashing import (
    TAG_SHUFFLE_C,
    TAG_SHUFFLE_U,
    TAG_SHUFFLE_U_I,
    hash_to_scalar,
    points_bytes,
    sha512_fields,
    u64,
)
from p2pcards.crypto.sampling import fisher_yates, words_from_rng
from p2pcards.crypto.wire import MAX_DECK_SIZE, expect_list, points_from_wire, scalars_from_wire
from p2pcards.wiremap import WireList

_PROOF_FIELDS = 14


@dataclass(frozen=True)
class ShuffleProof:
    """CHVote's ``π = (t, s, c, ĉ)``.

    ``t = (t1, t2, t3, (t4_1, t4_2), t_hat)``, ``s = (s1, s2, s3, s4, s_hat,
    s_prime)``, ``commitments`` is the permutation commitment ``c`` and
    ``chain`` the commitment chain ``ĉ``.
    """

    t1: Point
    t2: Point
    t3: Point
    t4_1: Point
    t4_2: Point
    t_hat: tuple[Point, ...]
    s1: Scalar
    s2: Scalar
    s3: Scalar
    s4: Scalar
    s_hat: tuple[Scalar, ...]
    s_prime: tuple[Scalar, ...]
    commitments: tuple[Point, ...]
    chain: tuple[Point, ...]

    @property
    def size(self) -> int:
        return len(self.commitments)

    def to_wire(self) -> WireList:
        """``[t1, t2, t3, t4_1, t4_2, [t_hat], s1, s2, s3, s4, [s_hat], [s_prime], [c], [c_hat]]``."""
        def pts(ps: Sequence[Point]) -> list[bytes]:
            return [p.to_bytes() for p in ps]

        def scs(ss: Sequence[Scalar]) -> list[bytes]:
            return [s.to_bytes() for s in ss]

        return [self.t1.to_bytes(), self.t2.to_bytes(), self.t3.to_bytes(),
                self.t4_1.to_bytes(), self.t4_2.to_bytes(), pts(self.t_hat),
                self.s1.to_bytes(), self.s2.to_bytes(), self.s3.to_bytes(), self.s4.to_bytes(),
                scs(self.s_hat), scs(self.s_prime), pts(self.commitments), pts(self.chain)]

    @classmethod
    def from_wire(cls, obj: object, seat: int | None = None) -> ShuffleProof:
        """Every point validated (never the identity), every scalar canonical and non-zero."""
        f = expect_list(obj, "shuffle proof", seat, length=_PROOF_FIELDS)
        n_items = expect_list(f[12], "shuffle proof c", seat, lo=1, hi=MAX_DECK_SIZE)
        n = len(n_items)
        def P(i: int, name: str) -> Point:
            return Point.from_bytes(f[i], what=f"shuffle proof {name}", seat=seat)

        def S(i: int, name: str) -> Scalar:
            return Scalar.from_bytes(f[i], what=f"shuffle proof {name}", seat=seat)

        return cls(
            t1=P(0, "t1"), t2=P(1, "t2"), t3=P(2, "t3"), t4_1=P(3, "t4_1"), t4_2=P(4, "t4_2"),
            t_hat=points_from_wire(f[5], "shuffle proof t_hat", seat, length=n),
            s1=S(6, "s1"), s2=S(7, "s2"), s3=S(8, "s3"), s4=S(9, "s4"),
            s_hat=scalars_from_wire(f[10], "shuffle proof s_hat", seat, length=n),
            s_prime=scalars_from_wire(f[11], "shuffle proof s_prime", seat, length=n),
            commitments=points_from_wire(f[12], "shuffle proof c", seat, length=n),
            chain=points_from_wire(f[13], "shuffle proof c_hat", seat, length=n),
        )

    def __repr__(self) -> str:
        return f"ShuffleProof({self.size} cards)"


def _deck_bytes(deck: Sequence[Ciphertext]) -> bytes:
    return b"".join(ct.c1.to_bytes() + ct.c2.to_bytes() for ct in deck)


def _statement(ctx: ProofContext, joint_key: Point, gens: Sequence[Point],
               deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext],
               commitments: Sequence[Point]) -> tuple[bytes, ...]:
    """CHVote's ``y`` without ``ĉ``: the fields every challenge starts with."""
    return (*ctx.fields(), joint_key.to_bytes(), points_bytes([chain_base(), *gens]),
            _deck_bytes(deck_in), _deck_bytes(deck_out), points_bytes(commitments))


def _challenges_u(statement: tuple[bytes, ...], n: int) -> list[Scalar]:
    """CHVote's GetChallenges: ``u_j = H(TAG_SHUFFLE_U_I; SHA-512(TAG_SHUFFLE_U; y), u64(j))``."""
    seed = sha512_fields(TAG_SHUFFLE_U, *statement)
    return [hash_to_scalar(TAG_SHUFFLE_U_I, seed, u64(j)) for j in range(n)]


def _challenge_c(statement: tuple[bytes, ...], chain: Sequence[Point], t1: Point, t2: Point,
                 t3: Point, t4_1: Point, t4_2: Point, t_hat: Sequence[Point]) -> Scalar:
    """CHVote's GetChallenge(y, t), with ``ĉ`` completing ``y``."""
    return hash_to_scalar(TAG_SHUFFLE_C, *statement, points_bytes(chain), t1.to_bytes(),
                          t2.to_bytes(), t3.to_bytes(), t4_1.to_bytes(), t4_2.to_bytes(),
                          points_bytes(t_hat))


def precompute(codes: Sequence[int]) -> None:
    """Compute, once per process, the public points every shuffle of a deck of
    ``codes`` and every proof about it use: the card points, the generators
    ``h_i``, their sum and ``H`` (cached where they are defined).

    Why: they are about a hundred hash-to-curve (7 ms for 52 cards on a 2-core
    machine), and whatever first needs them pays for them: the last key message
    of a table, the first shuffle, the first check, all on the path every seat
    waits on. A session computes them when it starts, before its table does
    (``protocol.table_ahead.precompute_decks``).
    """
    n = len(CardMap(codes))
    generators_sum(n)
    chain_base()


def _check_deck_size(n: int, seat: int | None) -> None:
    if not 1 <= n <= MAX_DECK_SIZE:
        raise InvalidEncoding(f"a deck must have 1..{MAX_DECK_SIZE} cards, got {n}", seat=seat)


def shuffle_and_prove(deck: Sequence[Ciphertext], joint_key: Point, ctx: ProofContext,
                      rng: Rng | None = None) -> tuple[list[Ciphertext], ShuffleProof]:
    """Permute and re-encrypt ``deck`` under ``joint_key``, with a proof for ``ctx``.

    The permutation and the re-encryption scalars never leave this function.
    Randomness is drawn from ``rng`` in the order documented in CRYPTO.md, all of
    it before any multiplication (none depends on a computed point).
    """
    draw = default_rng if rng is None else rng
    n = len(deck)
    _check_deck_size(n, ctx.seat)
    if joint_key.is_identity:
        raise InvalidPoint("joint public key", InvalidPoint.IDENTITY)
    psi = fisher_yates(n, words_from_rng(draw))
    secrets = _ProverSecrets.draw(psi, draw)
    return _prove(deck, psi, secrets, joint_key, ctx)


@dataclass(frozen=True)
class _ProverSecrets:
    """Every random scalar of one shuffle and its proof, drawn in CRYPTO.md §10's order
    (steps 2, 3, 5 and 6): ``r`` is indexed by input position ``j = ψ(i)``."""

    r_prime: list[Scalar]
    r: list[Scalar]
    r_hat: list[Scalar]
    w1: Scalar
    w2: Scalar
    w3: Scalar
    w4: Scalar
    w_hat: list[Scalar]
    w_prime: list[Scalar]

    @classmethod
    def draw(cls, psi: Sequence[int], draw: Rng) -> _ProverSecrets:
        n = len(psi)
        r_prime = [random_scalar(draw) for _ in range(n)]
        r: list[Scalar] = [Scalar.zero()] * n
        for i in range(n):
            r[psi[i]] = random_scalar(draw)
        r_hat = [random_scalar(draw) for _ in range(n)]
        w1, w2, w3, w4 = (random_scalar(draw) for _ in range(4))
        w_hat: list[Scalar] = []
        w_prime: list[Scalar] = []
        for _ in range(n):
            w_hat.append(random_scalar(draw))
            w_prime.append(random_scalar(draw))
        return cls(r_prime, r, r_hat, w1, w2, w3, w4, w_hat, w_prime)


def _prove(deck_in: Sequence[Ciphertext], psi: Sequence[int], secrets: _ProverSecrets,
           joint_key: Point, ctx: ProofContext,
           output: Sequence[Ciphertext] | None = None) -> tuple[list[Ciphertext], ShuffleProof]:
    """The output deck and CHVote's GenShuffleProof, additive notation.

    ``t1`` … ``t4_2`` need neither the output deck nor the challenges: they are
    computed beside the rest, on a second core where there is one (2N of the 5N
    variable-base multiplications from the unmasked initial deck, 3N of 6N from
    a masked one; the result is the same bytes either way).
    ``output`` (white-box tests only) is a deck to prove instead of the honest one."""
    n = len(deck_in)
    h = generators(n)
    base_h = chain_base()
    z = secrets
    t: dict[str, Point] = {}

    def commitments_t() -> None:
        t["t1"] = base_mul(z.w1)
        t["t2"] = base_mul(z.w2)
        t["t3"] = base_mul(z.w3) + linear_combination(z.w_prime, h)
        # t4 = (Σ ω'_i·c2'_i - ω4·Y, Σ ω'_i·c1'_i - ω4·G), computed from the inputs, since
        # e'_i = e_ψ(i) + (r'_i·G, r'_i·Y): the same count of multiplications in general,
        # and N fewer for the unmasked initial deck, whose c1 are all the identity.
        w_r = sum_scalars(z.w_prime[i] * z.r_prime[i] for i in range(n)) - z.w4
        t["t4_1"] = (linear_combination(z.w_prime, [deck_in[psi[i]].c2 for i in range(n)])
                     + w_r * joint_key)
        t["t4_2"] = (linear_combination(z.w_prime, [deck_in[psi[i]].c1 for i in range(n)])
                     + base_mul(w_r))

    deck_out: list[Ciphertext] = []
    commitments: list[Point] = []
    chain: list[Point] = []
    t_hat: list[Point] = []
    u: list[Scalar] = []
    u_p: list[Scalar] = []
    statement: tuple[bytes, ...] = ()

    def output_and_chain() -> None:
        nonlocal statement
        deck_out.extend(output if output is not None else
                        (deck_in[psi[i]].reencrypt(z.r_prime[i], joint_key) for i in range(n)))
        if any(ct.c1.is_identity or ct.c2.is_identity for ct in deck_out):
            raise CryptoError("re-encryption produced the identity (probability 2^-250)")
        # Permutation commitment: c_ψ(i) = r_ψ(i)·G + h_i.
        commitments.extend([Point.identity()] * n)
        for i in range(n):
            commitments[psi[i]] = base_mul(z.r[psi[i]]) + h[i]
        statement = _statement(ctx, joint_key, h, deck_in, deck_out, commitments)
        u.extend(_challenges_u(statement, n))
        u_p.extend(u[psi[i]] for i in range(n))
        # Commitment chain: ĉ_i = r̂_i·G + u'_i·ĉ_{i-1}, ĉ_{-1} = H.
        previous = base_h
        for i in range(n):
            previous = base_mul(z.r_hat[i]) + u_p[i] * previous
            chain.append(previous)
        chain_before = [base_h, *chain[:-1]]
        t_hat.extend(base_mul(z.w_hat[i]) + z.w_prime[i] * chain_before[i] for i in range(n))

    both_halves(output_and_chain, commitments_t)
    c = _challenge_c(statement, chain, t["t1"], t["t2"], t["t3"], t["t4_1"], t["t4_2"], t_hat)

    # v_i = u'_{i+1} · ... · u'_{N-1}, v_{N-1} = 1.
    v = [Scalar.one()] * n
    for i in range(n - 1, 0, -1):
        v[i - 1] = u_p[i] * v[i]
    r_bar = sum_scalars(z.r)
    v_sum = sum_scalars(z.r_hat[i] * v[i] for i in range(n))
    r_u = sum_scalars(z.r[j] * u[j] for j in range(n))
    r_tilde = sum_scalars(z.r_prime[i] * u_p[i] for i in range(n))

    proof = ShuffleProof(
        t1=t["t1"], t2=t["t2"], t3=t["t3"], t4_1=t["t4_1"], t4_2=t["t4_2"], t_hat=tuple(t_hat),
        s1=z.w1 - c * r_bar, s2=z.w2 - c * v_sum, s3=z.w3 - c * r_u, s4=z.w4 - c * r_tilde,
        s_hat=tuple(z.w_hat[i] - c * z.r_hat[i] for i in range(n)),
        s_prime=tuple(z.w_prime[i] - c * u_p[i] for i in range(n)),
        commitments=tuple(commitments), chain=tuple(chain))
    if _has_identity_or_zero(proof):
        # Probability about 2^-245: the honest proof would not pass from_wire.
        raise CryptoError("shuffle proof produced a zero scalar or the identity; shuffle again")
    return deck_out, proof


def _has_identity_or_zero(proof: ShuffleProof) -> bool:
    points = (proof.t1, proof.t2, proof.t3, proof.t4_1, proof.t4_2, *proof.t_hat,
              *proof.commitments, *proof.chain)
    scalars = (proof.s1, proof.s2, proof.s3, proof.s4, *proof.s_hat, *proof.s_prime)
    return any(p.is_identity for p in points) or any(s.is_zero for s in scalars)


def verify_shuffle(deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext],
                   proof: ShuffleProof, joint_key: Point, ctx: ProofContext) -> None:
    """CHVote's CheckShuffleProof: return if ``deck_out`` is a shuffle of ``deck_in`` by ``ctx.seat``.

    Raises :class:`ProofInvalid` naming ``ctx.seat`` and the first failed
    check (``"deck size"``, ``"proof size"``, ``"t1"`` … ``"t4_2"``,
    ``"t_hat[i]"``), :class:`InvalidPoint` for an identity in the output
    deck or as the joint key, or :class:`NotReEncrypted` for an output
    ciphertext equal to an input one.
    """
    seat = ctx.seat
    u, c = checked_challenges(deck_in, deck_out, proof, joint_key, ctx)
    n = len(deck_in)
    h = generators(n)
    base_h = chain_base()

    pending = pending_points()

    def expect(name: str, claimed: Point, recomputed: Point) -> None:
        if claimed != recomputed:
            raise ProofInvalid(ProofInvalid.SHUFFLE, name, seat=seat)
        if pending is not None:  # equal to a point computed from accepted ones
            pending.vouched(claimed.to_bytes())

    # The challenge c is folded into the u_j, one multiplication saved per sum.
    cu = [c * u_j for u_j in u]

    def first_half() -> None:
        # c̄ = Σ c_j - Σ h_i = r̄·G: t1 = c·c̄ + s1·G.
        c_bar = sum_points(proof.commitments) - generators_sum(n)
        expect("t1", proof.t1, c * c_bar + base_mul(proof.s1))
        # ĉ_{N-1} - (Π u_j)·H = v·G: t2 = c·(…) + s2·G.
        u_prod = Scalar.one()
        for u_j in u:
            u_prod = u_prod * u_j
        expect("t2", proof.t2, c * (proof.chain[-1] - u_prod * base_h) + base_mul(proof.s2))
        expect("t3", proof.t3, linear_combination(cu, proof.commitments) + base_mul(proof.s3)
               + linear_combination(proof.s_prime, h))
        expect("t4_1", proof.t4_1, linear_combination(cu, [ct.c2 for ct in deck_in])
               - proof.s4 * joint_key
               + linear_combination(proof.s_prime, [ct.c2 for ct in deck_out]))

    def second_half() -> None:
        expect("t4_2", proof.t4_2, linear_combination(cu, [ct.c1 for ct in deck_in])
               - base_mul(proof.s4) + linear_combination(proof.s_prime, [ct.c1 for ct in deck_out]))
        previous = base_h
        for i in range(n):
            expect(f"t_hat[{i}]", proof.t_hat[i],
                   c * proof.chain[i] + base_mul(proof.s_hat[i]) + proof.s_prime[i] * previous)
            previous = proof.chain[i]

    both_halves(first_half, second_half)


def checked_challenges(deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext],
                       proof: ShuffleProof, joint_key: Point,
                       ctx: ProofContext) -> tuple[list[Scalar], Scalar]:
    """The checks of CheckShuffleProof that need no multiplication (sizes, identities,
    re-encryption; raising as :func:`verify_shuffle` does), then the challenges
    ``u_j`` and ``c`` recomputed from the statement and the proof."""
    seat = ctx.seat
    n = len(deck_in)
    _check_deck_size(n, None)
    if len(deck_out) != n:
        raise ProofInvalid(ProofInvalid.SHUFFLE, "deck size", seat=seat)
    if not (len(proof.commitments) == len(proof.chain) == len(proof.t_hat) == len(proof.s_hat)
            == len(proof.s_prime) == n):
        raise ProofInvalid(ProofInvalid.SHUFFLE, "proof size", seat=seat)
    if joint_key.is_identity:
        raise InvalidPoint("joint public key", InvalidPoint.IDENTITY)
    for i, ct in enumerate(deck_out):
        if ct.c1.is_identity or ct.c2.is_identity:
            raise InvalidPoint(f"output deck[{i}]", InvalidPoint.IDENTITY, seat=seat)
    # A permutation without re-encryption has a valid proof (all r'_i = 0), yet
    # lets everyone track every card through it: no output may equal an input.
    inputs = {_deck_bytes((ct,)) for ct in deck_in}
    for i, ct in enumerate(deck_out):
        if _deck_bytes((ct,)) in inputs:
            raise NotReEncrypted(i, seat=seat)
    statement = _statement(ctx, joint_key, generators(n), deck_in, deck_out, proof.commitments)
    c = _challenge_c(statement, proof.chain, proof.t1, proof.t2, proof.t3, proof.t4_1,
                     proof.t4_2, proof.t_hat)
    return _challenges_u(statement, n), c
