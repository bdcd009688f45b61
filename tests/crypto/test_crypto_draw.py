"""Joint draws and the samplers behind draws and shuffles: binding, and no bias."""

from __future__ import annotations

import itertools

import pytest

from p2pcards.crypto import draw
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.errors import CommitmentMismatch, InvalidEncoding
from p2pcards.crypto.sampling import fisher_yates, uniform_below, words_from_rng
from tests.crypto.aliases import Seeded


def chi_square(counts: list[int], expected: float) -> float:
    return sum((c - expected) ** 2 / expected for c in counts)


def test_a_revealed_nonce_must_match_its_commitment_for_that_seat_and_purpose(session: bytes, seeded: Seeded) -> None:
    nonce = draw.new_nonce(seeded("nonce"))
    commitment = draw.draw_commitment(session, 1, "seating", nonce)
    draw.verify_draw_nonce(commitment, session, 1, "seating", nonce)
    other = draw.new_nonce(seeded("other"))
    for args in ((session, 1, "seating", other), (session, 2, "seating", nonce),
                 (session, 1, "first dealer", nonce), (bytes(32), 1, "seating", nonce)):
        with pytest.raises(CommitmentMismatch) as err:
            draw.verify_draw_nonce(commitment, *args)
        assert err.value.seat == args[1] and err.value.what == "draw nonce"
    with pytest.raises(InvalidEncoding):
        draw.verify_draw_nonce(commitment, session, 1, "seating", nonce[:16])


def test_the_seed_changes_with_any_one_seats_nonce(session: bytes, seeded: Seeded) -> None:
    nonces = [draw.new_nonce(seeded(f"n{i}")) for i in range(4)]
    seed = draw.draw_seed(session, "seating", nonces)
    for i in range(4):
        changed = list(nonces)
        changed[i] = draw.new_nonce(seeded(f"changed{i}"))
        assert draw.draw_seed(session, "seating", changed) != seed
    assert draw.draw_seed(session, "dealer", nonces) != seed
    assert draw.draw_seed(session, "seating", nonces[::-1]) != seed
    assert draw.draw_seed(session, b"seating", nonces) == seed


def test_draw_results_are_deterministic_in_range_and_permutations(session: bytes, seeded: Seeded) -> None:
    seed = draw.draw_seed(session, "x", [draw.new_nonce(seeded("d"))])
    assert draw.uniform_index(seed, 4) == draw.uniform_index(seed, 4)
    assert 0 <= draw.uniform_index(seed, 4) < 4
    assert sorted(draw.permutation(seed, 52)) == list(range(52))
    with pytest.raises(InvalidEncoding):
        draw.uniform_index(seed, 0)


def test_uniform_below_rejects_words_from_the_incomplete_top_range() -> None:
    # 2^64 mod 3 == 1, so the single word 2^64 - 1 would favour 0: it must be skipped.
    words = iter([2**64 - 1, 2**64 - 1, 5])
    assert uniform_below(3, lambda: next(words)) == 2
    words = iter([2**64 - 2])  # the last accepted word
    assert uniform_below(3, lambda: next(words)) == (2**64 - 2) % 3
    assert uniform_below(1, lambda: 2**64 - 1) == 0  # n = 1 never rejects
    with pytest.raises(InvalidEncoding):
        uniform_below(2**32 + 1, lambda: 0)


def test_uniform_index_over_many_seeds_hits_every_value_equally_often(session: bytes) -> None:
    n, draws = 5, 5000
    counts = [0] * n
    for k in range(draws):
        counts[draw.uniform_index(draw.draw_seed(session, "u", [k.to_bytes(32, "big")]), n)] += 1
    assert chi_square(counts, draws / n) < 27.0  # df 4; p < 1e-5


def test_the_permutation_sampler_puts_each_card_in_each_position_equally_often(seeded: Seeded) -> None:
    n, draws = 52, 2600
    counts = [[0] * n for _ in range(n)]
    words = words_from_rng(seeded("fisher-yates"))
    for _ in range(draws):
        for position, card in enumerate(fisher_yates(n, words)):
            counts[card][position] += 1
    cells = list(itertools.chain.from_iterable(counts))
    # df = 51 * 51 = 2601, sd = sqrt(2 * 2601) ~ 72: six standard deviations above.
    assert chi_square(cells, draws / n) < 2601 + 6 * 72


def test_the_permutation_sampler_draws_every_ordering_of_four_equally_often(seeded: Seeded) -> None:
    draws = 2400
    seen = {p: 0 for p in itertools.permutations(range(4))}
    words = words_from_rng(seeded("four"))
    for _ in range(draws):
        seen[tuple(fisher_yates(4, words))] += 1
    assert chi_square(list(seen.values()), draws / 24) < 60.0  # df 23; p < 1e-4


def test_context_commitments_bind_session_and_seat(ctxs: list[ProofContext], seeded: Seeded) -> None:
    nonce = draw.new_nonce(seeded("ctx"))
    commitment = draw.commit(ctxs[2], nonce)
    assert commitment == draw.draw_commitment(ctxs[2].session, 2, draw.SETUP_PURPOSE, nonce)
    assert draw.verify_commitment(ctxs[2], nonce, commitment)
    assert not draw.verify_commitment(ctxs[3], nonce, commitment)
    assert not draw.verify_commitment(ctxs[2], draw.new_nonce(seeded("other")), commitment)
    assert not draw.verify_commitment(ctxs[2], nonce, commitment, purpose="another draw")
    with pytest.raises(InvalidEncoding):
        draw.verify_commitment(ctxs[2], nonce[:-1], commitment)
