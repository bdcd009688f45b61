"""Each game's part of the browser table's page: the title's words, a seat's facts, the
board, and the controls of the seat to act, from this seat's view alone.

The controls are what the referee says this seat may do now
(``view.options()``), the labels those of the full screen's action bar
(:func:`p2pcards.ui.tui.keymap.hints`); the page draws them and sends a
choice back, which the peer checks as it checks a key press.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.cards import Card, Rank, Suit
from p2pcards.rules.bluff import BluffState, Claim
from p2pcards.rules.bluff import Phase as BluffPhase
from p2pcards.rules.contract import Engine
from p2pcards.rules.games import BLUFF, TOPPER
from p2pcards.rules.topper import Phase as TopperPhase
from p2pcards.rules.topper import TopperState
from p2pcards.rules.topper.order import big_jack, little_jack
from p2pcards.ui.text_common import plural
from p2pcards.ui.tui.keymap import SUIT_KEYS, hints
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.web.cardart import card_name

#: A value of the page (JSON).
Json = dict[str, object]
#: Every rank a Bluff lead may claim, as the page offers them.
RANKS = tuple(rank.label for rank in Rank)


def card(face: Card | None) -> Json:
    """A card as the page draws it: its file name and its name for a screen reader."""
    if face is None:
        return {"face": None, "name": "a hidden card"}
    return {"face": face.ascii, "name": card_name(face), "text": str(face)}


def cards(faces: Sequence[Card | None]) -> list[Json]:
    return [card(face) for face in faces]


def who(model: ScreenModel, seat: int | None) -> str:
    """``Bob`` or ``you``, as the board's sentences name a seat."""
    if seat is None:
        return "nobody"
    if seat == model.me and not model.observer:
        return "you"
    info = model.seat_info(seat)
    return info.name if info else f"Seat {seat}"


# -- the title -------------------------------------------------------------------------------

def title_parts(view: Engine | None) -> list[str]:
    """What the title says of the match: the deal or hand and the table's numbers."""
    if BLUFF.is_view(view):
        cap = view.config.deal_cap
        price = f"price {view.config.table_price}"
        if view.outcome is not None:  # counted as the outcome counts: the deals won
            return [f"over after {plural(view.outcome.deals, 'deal')}"
                    + (f" (cap {cap})" if cap else ""), price]
        return [f"deal {view.deal_number}" + (f" of {cap}" if cap else ""), price]
    if TOPPER.is_view(view):
        return [f"hand {view.hand_number}", f"first to {view.config.target_score}"]
    return []


# -- a seat's facts --------------------------------------------------------------------------

def seat_facts(view: Engine | None, seat: int) -> Json:
    """A seat's public facts: its chips or score, cards held, stake, bid, tricks."""
    if BLUFF.is_view(view):
        return _bluff_facts(view, seat)
    if TOPPER.is_view(view):
        return _topper_facts(view, seat)
    return {"facts": [], "cards": None}


def _bluff_facts(view: BluffState, seat: int) -> Json:
    facts = [plural(view.stacks[seat], "chip")]
    out = view.out[seat]
    held = None
    if out:
        facts.append("out of the match")
    elif view.phase is not BluffPhase.DEAL and view.outcome is None:
        held = view.hand_sizes[seat]
        facts.append(plural(held, "card"))
    if not out and view.discarder == seat and view.table_stake:
        facts.append(f"stake {view.table_stake} on table")
    if not out and view.phase is BluffPhase.LEAD and view.leader == seat:
        facts.append("leads")
    return {"facts": facts, "cards": held, "out": out, "chips": view.stacks[seat]}


def _topper_facts(view: TopperState, seat: int) -> Json:
    facts = [f"score {view.scores[seat]}/{view.config.target_score}"]
    bids = dict(view.bids)
    if seat in bids:
        facts.append("passed" if bids[seat] is None else f"bid {bids[seat]}")
    if view.phase is TopperPhase.PLAY or view.tricks:
        facts.append(plural(view.tricks_taken[seat], "trick"))
    held = None
    if view.phase not in (TopperPhase.DEAL, TopperPhase.MATCH_OVER):
        held = view.hand_sizes[seat]
        facts.append(plural(held, "card"))
    if view.dealer == seat:
        facts.append("dealer")
    return {"facts": facts, "cards": held, "dealer": view.dealer == seat,
            "tricks": view.tricks_taken[seat] if view.phase is TopperPhase.PLAY else None}


# -- the board -------------------------------------------------------------------------------

def board(model: ScreenModel, view: Engine | None) -> Json | None:
    """The middle of the table: the game's public facts (None before a game)."""
    if BLUFF.is_view(view):
        return _bluff_board(model, view)
    if TOPPER.is_view(view):
        return _topper_board(model, view)
    return None


def _claim(model: ScreenModel, claim: Claim) -> Json:
    return {"seat": claim.seat, "who": who(model, claim.seat), "count": claim.count,
            "rank": claim.rank.label, "stake": claim.stake, "shown": claim.revealed,
            "text": f"{who(model, claim.seat)}: {plural(claim.count, 'card')} as "
                    f"{claim.rank.label}, stake {claim.stake}"
                    + (" · shown honest" if claim.revealed else "")}


def _last_call(model: ScreenModel, view: BluffState) -> Json | None:
    """What the last call revealed: whose claim, the faces, honest or a bluff."""
    for claim in reversed(view.claims):
        if claim.revealed:
            when = "Call" if claim in view.round_claims else "Last round's call"
            whose = "your" if claim.seat == model.me else f"{who(model, claim.seat)}'s"
            verdict = "honest" if claim.honest else "a BLUFF"
            return {"seat": claim.seat, "honest": bool(claim.honest),
                    "cards": cards(claim.faces or ()),
                    "text": f"{when} on {whose} {claim.rank.label}: {verdict}"}
    return None


def _bluff_board(model: ScreenModel, view: BluffState) -> Json:
    claim = view.last_claim
    return {
        "game": "bluff",
        "safe_box": view.safe_box,
        "on_table": view.table_stake or 0,
        "round_stake": view.round_stake if view.round_stake != view.table_stake else None,
        "named": view.named_rank.label if view.named_rank is not None else None,
        "pile": len(view.pile),
        "claim": _claim(model, claim) if claim is not None and view.phase is not BluffPhase.DEAL
        else None,
        "call": _last_call(model, view),
    }


def _topper_board(model: ScreenModel, view: TopperState) -> Json:
    trump = view.trump
    bidding: str
    if view.bidder is not None and view.phase is not TopperPhase.BIDDING:
        bidding = f"{who(model, view.bidder)} bid {view.high_bid}"
    elif view.high_bid:
        bidding = f"highest bid {view.high_bid} by {who(model, view.bidder)}"
    else:
        bidding = "no bid yet"
    last = view.tricks[-1] if view.tricks else None
    return {
        "game": "topper",
        "hand": view.hand_number,
        "dealer": who(model, view.dealer),
        "target": view.config.target_score,
        "bidding": bidding,
        "bidder": view.bidder,
        "trump": None if trump is None else {
            "suit": trump.letter, "name": trump.name.lower(), "symbol": trump.symbol,
            "red": trump.is_red, "jacks": f"Big Jack {big_jack(trump)} · Little Jack "
                                          f"{little_jack(trump)}"},
        "trick_number": len(view.tricks) + 1,
        "trick": [{"seat": seat, "who": who(model, seat), **card(face)}
                  for seat, face in view.current_trick],
        "last_trick": None if last is None else {
            "number": last.trick + 1, "winner": last.winner, "who": who(model, last.winner),
            "cards": [{"seat": seat, **card(face)} for seat, face in last.plays]},
    }


# -- the controls of the seat to act ---------------------------------------------------------

def controls(view: Engine) -> Json | None:
    """What this seat may do now, for the page's buttons (None: nothing, not its turn).

    ``keys`` are the full screen's action bar (key, shown, label); the rest
    says what the buttons need: a discard's rank and stake, the bids, the
    suits, the cards that may be played."""
    keys: list[Json] = [{"key": hint.key, "shown": hint.shown, "label": hint.label}
                        for hint in hints(view) if hint.key is not None]
    if BLUFF.is_view(view):
        return _bluff_controls(view, keys)
    if TOPPER.is_view(view):
        return _topper_controls(view, keys)
    return None


def _bluff_controls(view: BluffState, keys: list[Json]) -> Json | None:
    opts = view.options()
    if opts is None or opts.must_reveal or view.viewer != view.to_act:
        return None
    discard = None
    if opts.can_discard:
        discard = {"lead": opts.must_lead, "rank": opts.rank.label if opts.rank else None,
                   "ranks": list(RANKS) if opts.must_lead else [],
                   "low": opts.min_stake, "high": opts.max_stake,
                   "step": view.config.table_price,
                   "most": min(opts.max_discard, len(opts.hand))}
    return {"game": "bluff", "keys": keys, "select": "many" if discard else None,
            "discard": discard, "playable": None}


def _topper_controls(view: TopperState, keys: list[Json]) -> Json | None:
    opts = view.options()
    if opts is None or view.viewer != view.to_act:
        return None
    bids = list(range(opts.min_bid, opts.max_bid + 1)) if opts.can_bid else []
    allowed = set(opts.suits) if view.phase is TopperPhase.TRUMP else set()
    suits = [{"key": key, "name": name, "symbol": Suit.parse(name).symbol,
              "red": Suit.parse(name).is_red}
             for key, name in SUIT_KEYS.items() if Suit.parse(name) in allowed]
    playing = view.phase is TopperPhase.PLAY
    return {"game": "topper", "keys": keys, "select": "one" if playing else None,
            "bidding": view.phase is TopperPhase.BIDDING, "can_pass": opts.can_pass,
            "bids": bids, "suits": suits,
            "playable": list(opts.playable) if playing else None}
