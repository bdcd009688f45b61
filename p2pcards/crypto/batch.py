"""Many shuffle proofs checked at once: one random linear combination of their equations.

Why: an offline verifier checks every shuffle of a match, and the equations of
those proofs share most of their points: shuffle ``k``'s output deck is shuffle
``k+1``'s input, every proof uses the generators ``h_i``, ``H`` and the joint
key, every first shuffle the card points. libsodium has no multi-scalar
multiplication, so each point of an equation costs one multiplication; checked
together, each *distinct* point costs one. For 52 cards that is ``5N + 5``
multiplications a shuffle instead of ``8N + 4`` (CRYPTO.md §10, "Verifying many
shuffles at once").

How: every equation ``claimed = Σ a_i·P_i`` of every proof (CRYPTO.md §10's
``t1`` … ``t_hat[i]``) is moved to one side, ``Σ a_i·P_i − claimed = O``, and
multiplied by its own weight ``w``, a fresh 128-bit integer from the operating
system; the weighted equations are added, the coefficients of each distinct
point summed (public integers, reduced modulo the order), and the sum computed.
If every equation holds it is the identity. If one does not, its left side
``Δ ≠ O`` is an element of a group of prime order ``L > 2^252`` (every point was
validated), and whatever the other weights, at most one value of its weight
modulo ``L`` cancels it: the sum is the identity with probability at most
``2^-128``. The weights are drawn after the proofs are fixed, and no prover sees
them.

A batch that fails says only that some proof is wrong: the caller then checks
the proofs one by one (:func:`~p2pcards.crypto.shuffle.verify_shuffle`), which
names the proof, the seat and the equation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import Ciphertext
from p2pcards.crypto.generators import chain_base, generators
from p2pcards.crypto.group import ORDER, G, Point, Scalar, default_rng, weighted_sum
from p2pcards.crypto.shuffle import ShuffleProof, checked_challenges

#: Bytes of one weight: 128 bits, a soundness error of 2^-128 per batch.
WEIGHT_BYTES = 16

#: Runs one partial sum (now, or on another thread) and returns a way to get its result.
Submit = Callable[[Callable[[], Point]], Callable[[], Point]]


def _now(job: Callable[[], Point]) -> Callable[[], Point]:
    result = job()
    return lambda: result


def _int(scalar: Scalar) -> int:
    return int.from_bytes(scalar.to_bytes(), "little")


class _Terms:
    """``point -> coefficient``, coefficients of the same point added."""

    def __init__(self) -> None:
        self.terms: dict[Point, int] = {}

    def add(self, point: Point, k: int) -> None:
        self.terms[point] = self.terms.get(point, 0) + k


class ShuffleBatch:
    """Shuffle proofs whose equations are checked together by :meth:`holds`.

    :meth:`add` makes at once every check of a proof that needs no
    multiplication (sizes, identities, re-encryption: it raises as
    :func:`~p2pcards.crypto.shuffle.verify_shuffle` does) and adds its weighted
    equations. The points of a chain of shuffles (each one's input the previous
    one's output) are summed as soon as the chain ends, through ``submit``
    (another thread may compute them while more proofs are read); the points
    every shuffle shares (``G``, ``H``, ``h_i``, the joint key, card points) are
    summed once, at the end.
    """

    def __init__(self, submit: Submit = _now) -> None:
        self._submit = submit
        self._shared = _Terms()
        self._base = 0  # the coefficient of G, among the shared terms
        self._chain = _Terms()
        self._chain_end: tuple[Ciphertext, ...] = ()
        self._partials: list[Callable[[], Point]] = []
        self.count = 0

    def add(self, deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext],
            proof: ShuffleProof, joint_key: Point, ctx: ProofContext) -> None:
        """Check what needs no multiplication now; weigh and add the proof's equations."""
        u_s, c_s = checked_challenges(deck_in, deck_out, proof, joint_key, ctx)
        if tuple(deck_in) != self._chain_end:
            self._close_chain()
        self._chain_end = tuple(deck_out)
        self.count += 1
        n = len(deck_in)
        raw = default_rng(WEIGHT_BYTES * (n + 5))  # the OS's: never a caller's choice
        w = [int.from_bytes(raw[i:i + WEIGHT_BYTES], "little")
             for i in range(0, len(raw), WEIGHT_BYTES)]
        w1, w2, w3, w4, w5, beta = w[0], w[1], w[2], w[3], w[4], w[5:]
        c = _int(c_s)
        cu = [c * _int(u_j) % ORDER for u_j in u_s]
        s_prime = [_int(s) for s in proof.s_prime]
        u_prod = 1
        for u_j in u_s:
            u_prod = u_prod * _int(u_j) % ORDER
        shared, own = self._shared, self._chain
        h = generators(n)
        unmasked = all(ct.c1.is_identity for ct in deck_in)  # the initial deck: card points
        inputs = shared if unmasked else own
        # t1 = c·(Σ c_j − Σ h_i) + s1·G      t3 = Σ c·u_j·c_j + s3·G + Σ s'_i·h_i
        for j in range(n):
            own.add(proof.commitments[j], w1 * c + w3 * cu[j])
            shared.add(h[j], w3 * s_prime[j] - w1 * c)
        # t2 = c·(ĉ_{N-1} − (Π u_j)·H) + s2·G
        own.add(proof.chain[-1], w2 * c)
        shared.add(chain_base(), -w2 * c * u_prod)
        # t4_1 = Σ c·u_j·c2_j − s4·Y + Σ s'_i·c2'_i   t4_2 = Σ c·u_j·c1_j − s4·G + Σ s'_i·c1'_i
        s4 = _int(proof.s4)
        shared.add(joint_key, -w4 * s4)
        for j in range(n):
            inputs.add(deck_in[j].c2, w4 * cu[j])
            own.add(deck_in[j].c1, w5 * cu[j])  # the identity (unmasked) adds nothing
            own.add(deck_out[j].c2, w4 * s_prime[j])
            own.add(deck_out[j].c1, w5 * s_prime[j])
        # t_hat[i] = c·ĉ_i + ŝ_i·G + s'_i·ĉ_{i-1}, ĉ_{-1} = H
        base = (w1 * _int(proof.s1) + w2 * _int(proof.s2) + w3 * _int(proof.s3) - w5 * s4)
        previous = chain_base()
        for i in range(n):
            b = beta[i]
            own.add(proof.chain[i], b * c)
            (shared if i == 0 else own).add(previous, b * s_prime[i])
            base += b * _int(proof.s_hat[i])
            own.add(proof.t_hat[i], -b)
            previous = proof.chain[i]
        for weight, claimed in ((w1, proof.t1), (w2, proof.t2), (w3, proof.t3),
                                (w4, proof.t4_1), (w5, proof.t4_2)):
            own.add(claimed, -weight)
        self._base += base

    def _close_chain(self) -> None:
        if self._chain.terms:
            terms = self._chain.terms
            self._partials.append(self._submit(lambda: weighted_sum(terms)))
            self._chain = _Terms()

    def holds(self) -> bool:
        """Whether every equation of every proof added holds (up to 2^-128).

        Raises what a multiplication raised: libsodium refusing a point not yet
        validated (:class:`~p2pcards.crypto.group.PendingPoints`)."""
        self._close_chain()
        self._shared.add(G, self._base)
        self._base = 0
        total = weighted_sum(self._shared.terms)
        self._shared = _Terms()
        for partial in self._partials:
            total = total + partial()
        self._partials = []
        return total.is_identity
