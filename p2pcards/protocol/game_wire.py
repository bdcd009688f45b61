"""How each game's referee meets the wire: configurations, action messages, reveals.

The table state machine is the same for both games; what differs lives here,
as data: the deck, the configuration's wire form, the action messages and
their shapes, which messages must carry the owner's decryption shares (the
rules' reveals), and which message a seat writes without a decision of its
own (Bluff: revealing a challenged discard is not optional).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from p2pcards.cards import Card, Rank, Suit
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.schema import Encoded, Int, ListOf, Shape, Struct, validate
from p2pcards.rules import bluff, topper
from p2pcards.rules import games as rules_games
from p2pcards.rules.contract import Engine, Outcome
from p2pcards.rules.games import Game, GameAction, GameConfig
from p2pcards.wiremap import WireMap, WireValue

SHARE = Encoded("decryption share [D, c, s]: three 32-byte strings (CRYPTO.md, decryption shares)")
DECK = Encoded("masked deck: one [c1, c2] pair of 32-byte points per card (CRYPTO.md, ElGamal)")
SHUFFLE_PROOF = Encoded("shuffle proof: the 14-field list of CRYPTO.md (shuffle proof encoding)")
SCHNORR_PROOF = Encoded("Schnorr proof [c, s]: two 32-byte scalars (CRYPTO.md, key set-up)")
DECK_NUMBER = Int(0, 10_000)
SHARES = ListOf(SHARE, 1, 13)  # a challenged discard has up to max_discard (<= 13) cards
EMPTY = Struct({})


@dataclass(frozen=True)
class GameRules:
    """One game as the protocol sees it: the rules' game object (its name, deck,
    referee and default table, defined there once) and how it meets the wire."""

    rules: Game[Engine, Outcome]
    shapes: dict[str, Shape]
    config_from_wire: Callable[[WireMap], GameConfig]
    #: Reads the config's fields by name (any object that has them).
    config_to_wire: Callable[[object], WireMap]
    encode: Callable[[GameAction], tuple[str, WireMap]]
    decode: Callable[[int, str, WireMap, list[Card]], GameAction]
    #: Given this game's own referee (the other game's never reaches it).
    reveal_slots: Callable[[Engine, str, WireMap], list[int]]
    automatic_message: Callable[[Engine, int], tuple[str, list[int]] | None]

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def deck(self) -> tuple[Card, ...]:
        """The cards every deal shuffles (the game's default table's deck)."""
        return self.rules.deck()

    def new_state(self, config: GameConfig | None, first: int) -> Engine:
        """The referee of a new match: ``first`` leads (Bluff) or deals (Topper) first."""
        return self.rules.new(config, first)

    def default_config(self) -> GameConfig:
        return self.rules.default_config()

    @property
    def deck_codes(self) -> tuple[int, ...]:
        return tuple(c.code for c in self.deck)

    @property
    def message_types(self) -> frozenset[str]:
        return frozenset(self.shapes)

    def validate_body(self, mtype: str, body: WireValue) -> WireMap:
        checked: WireMap = validate(self.shapes[mtype], body)
        return checked


def _config_from(cls: Callable[..., GameConfig], fields: dict[str, str],
                 optional_zero: set[str]) -> Callable[[WireMap], GameConfig]:
    """Read a config map: wire key -> field name; a 0 in ``optional_zero`` means None."""
    def read(wire: WireMap) -> GameConfig:
        unknown = set(wire) - set(fields)
        if unknown:
            raise MalformedMessage(f"config: unknown setting {sorted(unknown)[0]!r}")
        kwargs = {fields[k]: (None if k in optional_zero and v == 0 else v) for k, v in wire.items()}
        try:
            return cls(**kwargs)
        except (ValueError, TypeError) as exc:
            raise MalformedMessage(f"config: {exc}") from None
    return read


def _config_to(fields: dict[str, str], optional_zero: set[str]) -> Callable[[object], WireMap]:
    def write(config: object) -> WireMap:
        out = {}
        for key, name in fields.items():
            value = getattr(config, name)
            out[key] = 0 if (key in optional_zero and value is None) else value
        return out
    return write


# -- Bluff ----------------------------------------------------------------------

_BLUFF_FIELDS = {"price": "table_price", "chips": "starting_chips", "pass": "pass_price",
                 "stake": "min_stake", "deals": "deal_cap", "discard": "max_discard"}


def _bluff_encode(action: GameAction) -> tuple[str, WireMap]:
    if isinstance(action, bluff.Discard):
        return "discard", {"slots": list(action.slots), "stake": action.stake,
                           "rank": 0 if action.rank is None else int(action.rank)}
    if isinstance(action, bluff.Pass):
        return "pass", {}
    if isinstance(action, bluff.Challenge):
        return "challenge", {}
    raise MalformedMessage(f"no message for a Bluff action {type(action).__name__}")


def _bluff_decode(seat: int, mtype: str, body: WireMap, faces: list[Card]) -> GameAction:
    if mtype == "discard":
        rank = body["rank"]  # 0 or 2..14: the shape refuses 1 (message.malformed)
        return bluff.Discard(seat, tuple(body["slots"]), body["stake"],
                             None if rank == 0 else Rank(rank))
    if mtype == "pass":
        return bluff.Pass(seat)
    if mtype == "challenge":
        return bluff.Challenge(seat)
    return bluff.Reveal(seat, tuple(faces))


def _bluff_reveal_slots(state: Engine, mtype: str, body: WireMap) -> list[int]:
    if mtype != "show":
        return []
    claim = cast(bluff.BluffState, state).last_claim
    return [] if claim is None else list(claim.slots)


def _bluff_automatic(state: Engine, seat: int) -> tuple[str, list[int]] | None:
    if state.phase is bluff.Phase.REVEAL and state.to_act == seat:
        claim = cast(bluff.BluffState, state).last_claim
        assert claim is not None  # a reveal answers a claim
        return "show", list(claim.slots)
    return None


BLUFF = GameRules(
    rules=rules_games.BLUFF,
    shapes={
        "discard": Struct({"slots": ListOf(Int(0, 51), 1, 13), "stake": Int(0, 2**31 - 1),
                           "rank": Int(0, 14, gaps=(1,))}),
        "pass": EMPTY,
        "challenge": EMPTY,
        "show": Struct({"shares": SHARES}),
    },
    config_from_wire=_config_from(bluff.BluffConfig, _BLUFF_FIELDS, {"deals"}),
    config_to_wire=_config_to(_BLUFF_FIELDS, {"deals"}),
    encode=_bluff_encode,
    decode=_bluff_decode,
    reveal_slots=_bluff_reveal_slots,
    automatic_message=_bluff_automatic,
)


# -- Topper ---------------------------------------------------------------------

_TOPPER_FIELDS = {"target": "target_score", "deals": "deal_limit"}


def _topper_encode(action: GameAction) -> tuple[str, WireMap]:
    if isinstance(action, topper.Bid):
        return "bid", {"tricks": action.tricks}
    if isinstance(action, topper.PassBid):
        return "pass", {}
    if isinstance(action, topper.NameTrump):
        return "trump", {"suit": int(action.suit)}
    if isinstance(action, topper.Play):
        return "play", {"slot": action.slot}
    raise MalformedMessage(f"no message for a Topper action {type(action).__name__}")


def _topper_decode(seat: int, mtype: str, body: WireMap, faces: list[Card]) -> GameAction:
    if mtype == "bid":
        return topper.Bid(seat, body["tricks"])
    if mtype == "pass":
        return topper.PassBid(seat)
    if mtype == "trump":
        return topper.NameTrump(seat, Suit(body["suit"]))
    return topper.Play(seat, body["slot"], faces[0])


TOPPER = GameRules(
    rules=rules_games.TOPPER,
    shapes={
        "bid": Struct({"tricks": Int(0, 255)}),
        "pass": EMPTY,
        "trump": Struct({"suit": Int(0, 3)}),
        "play": Struct({"slot": Int(0, 23), "shares": ListOf(SHARE, 1, 1)}),
    },
    config_from_wire=_config_from(topper.TopperConfig, _TOPPER_FIELDS, {"deals"}),
    config_to_wire=_config_to(_TOPPER_FIELDS, {"deals"}),
    encode=_topper_encode,
    decode=_topper_decode,
    reveal_slots=lambda state, mtype, body: [body["slot"]] if mtype == "play" else [],
    automatic_message=lambda state, seat: None,
)

GAMES = {g.name: g for g in (BLUFF, TOPPER)}


def by_name(name: str) -> GameRules:
    try:
        return GAMES[name]
    except KeyError:
        raise MalformedMessage(f"unknown game {name[:16]!r} (known: {', '.join(GAMES)})") from None
