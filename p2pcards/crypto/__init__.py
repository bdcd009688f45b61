"""Layer 2: the mental-poker deck. Pure cryptography over libsodium, no I/O.

Barnett–Smart style ElGamal on the prime-order subgroup of edwards25519:

* :mod:`~p2pcards.crypto.sodium` the libsodium functions the group uses, through PyNaCl's cffi binding;
* :mod:`~p2pcards.crypto.group` points and scalars with canonical encodings;
* :mod:`~p2pcards.crypto.validity` the op counter, validated encodings, validation a verifier defers;
* :mod:`~p2pcards.crypto.hashing` domain-separated hashing and hash-to-curve, every tag;
* :mod:`~p2pcards.crypto.context` what every proof is bound to;
* :mod:`~p2pcards.crypto.keys` the joint key by commit-then-reveal with Schnorr proofs;
* :mod:`~p2pcards.crypto.draw` joint random draws by commit-then-reveal;
* :mod:`~p2pcards.crypto.sampling` unbiased integers and permutations from random words;
* :mod:`~p2pcards.crypto.elgamal` ciphertexts, cards as points, the initial deck;
* :mod:`~p2pcards.crypto.generators` the shuffle proof's independent generators;
* :mod:`~p2pcards.crypto.shuffle` the verifiable shuffle (Terelius–Wikström);
* :mod:`~p2pcards.crypto.batch` many shuffle proofs checked at once (an offline verifier);
* :mod:`~p2pcards.crypto.shares` decryption shares with Chaum–Pedersen proofs;
* :mod:`~p2pcards.crypto.halves` two halves of one check at once, on two cores;
* :mod:`~p2pcards.crypto.checks` public proof checks as values, and a per-process record of those that passed;
* :mod:`~p2pcards.crypto.wire` shape checks shared by every ``from_wire``;
* :mod:`~p2pcards.crypto.seeded` a deterministic byte source for test vectors only;
* :mod:`~p2pcards.crypto.errors` the error vocabulary.

``protocol/CRYPTO.md`` at the top of the repository specifies every byte.
"""
