"""What a deal (Bluff) or a hand (Topper) came to, said once it is over.

A deal's result used to be on screen for about two seconds before the next
shuffle replaced it. A :class:`ResultRecorder` follows the public events of
the deal — the cards revealed by calls, the bluffs caught — and, when the
deal or hand is scored, gives a :class:`Summary` that the screen keeps up
until the player has read it: who won, the safe box or the tricks, chip or
score changes, the cards revealed, any bluff caught. Only public facts go
in, so a summary cannot hold a hidden card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from p2pcards.cards import Card, Rank
from p2pcards.protocol import events as proto
from p2pcards.rules import bluff as bluff
from p2pcards.rules.bluff import DECK_SIZE, SEATS
from p2pcards.rules.contract import Engine, HandDealt
from p2pcards.rules.topper import events as topper
from p2pcards.ui.text_common import cards_text, game_name, plural, seat_name, who

#: Seconds a deal's summary stays up by itself at a LAN table, where the others go on
#: (against bots it waits for the person); every screen counts it down.
LAN_SUMMARY_SECONDS = 6.0


@dataclass(frozen=True)
class Summary:
    """A finished deal or hand in a few lines."""

    title: str
    lines: tuple[str, ...]


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value) if value < 0 else "±0"


class ResultRecorder:
    """Follows one table's public events; :meth:`summary` says a finished deal or hand.

    ``take`` every referee event in order; once a deal (hand) is scored, the
    next ``summary`` call returns it, once. Bluff chip changes need the chips
    after the deal, which the events do not carry: the caller passes the
    seat's view (its ``stacks`` are public) when it has one.
    """

    def __init__(self) -> None:
        self._revealed: list[Card] = []
        self._caught: list[tuple[int, int]] = []
        self._due: bluff.DealWon | topper.HandScored | topper.ThrownIn | None = None
        self._chips_before: tuple[int, ...] | None = None

    def take(self, event: object) -> None:
        # The table protocol's HandDealt starts every deal: the referee's own deal
        # events stay inside the table (its deal() results are not passed on).
        if isinstance(event, (HandDealt, proto.HandReceived)):
            self._revealed, self._caught = [], []
        elif isinstance(event, bluff.ChallengeResolved):
            self._revealed.extend(event.faces)
            if event.bluff:
                self._caught.append((event.discarder, len(event.faces)))
        elif isinstance(event, (bluff.DealWon, topper.HandScored, topper.ThrownIn)):
            self._due = event

    @property
    def due(self) -> bool:
        """A deal or hand was scored and its summary not yet given."""
        return self._due is not None

    def summary(self, names: Sequence[str], me: int | None, view: Engine | None = None,
                symbols: bool = False) -> Summary | None:
        """The summary of the deal (hand) just scored, once; None if there is none."""
        event, self._due = self._due, None
        if isinstance(event, bluff.DealWon):
            return self._bluff(event, names, me, view, symbols)
        if isinstance(event, topper.HandScored):
            return _topper(event, names, me)
        if isinstance(event, topper.ThrownIn):
            return Summary(f"Hand {event.hand} thrown in",
                           ("Everyone passed: nobody bid, nothing is scored.",
                            f"{who(names, event.next_dealer, me)} deals the next hand."))
        return None

    def _bluff(self, event: bluff.DealWon, names: Sequence[str], me: int | None,
               view: Engine | None, symbols: bool) -> Summary:
        lines = [f"{who(names, event.winner, me)} won the deal and the safe box of "
                 f"{event.safe_box}."]
        if game_name(view) == "bluff":  # Bluff's chips are public
            bluff_view = cast(bluff.BluffState, view)
            stacks = tuple(bluff_view.stacks)
            starting = bluff_view.config.starting_chips
            assert starting is not None  # a config fills in its defaults
            before = self._chips_before or (starting,) * len(stacks)
            lines.append("Chips: " + ", ".join(
                f"{seat_name(names, s)} {chips} ({_signed(chips - before[s])})"
                for s, chips in enumerate(stacks)))
            self._chips_before = stacks
        lines.append(f"Cards revealed by calls: {cards_text(self._revealed, symbols)}."
                     if self._revealed else "No card was revealed this deal.")
        if self._caught:
            lines.append("Bluffs caught: " + ", ".join(
                f"{who(names, seat, me, start=False)} ({plural(count, 'card')})"
                for seat, count in self._caught) + ".")
        else:
            lines.append("No bluff was caught.")
        deal = getattr(view, "deal_number", None)
        return Summary(f"Deal {deal} over" if deal else "Deal over", tuple(lines))


def _topper(event: topper.HandScored, names: Sequence[str], me: int | None) -> Summary:
    took = event.tricks[event.bidder]
    bidder = who(names, event.bidder, me)
    lines = (
        f"{bidder} bid {event.bid} and took {plural(took, 'trick')}: made it "
        f"(+{event.changes[event.bidder]})." if event.made else
        f"{bidder} bid {event.bid} but took only {plural(took, 'trick')}: "
        f"{plural(event.bid, 'point')} lost.",
        "Tricks: " + ", ".join(f"{seat_name(names, s)} {t}" for s, t in enumerate(event.tricks)),
        "Scores: " + ", ".join(f"{seat_name(names, s)} {score} ({_signed(event.changes[s])})"
                               for s, score in enumerate(event.scores)),
    )
    return Summary(f"Hand {event.hand} scored", lines)


# --- history: the scoreboard and the record of this deal ------------------------------------

@dataclass(frozen=True)
class ScoreRow:
    """One scored deal (Bluff: chips after it) or hand (Topper: scores after it)."""

    number: int
    totals: tuple[int, ...] | None
    note: str
    """Who won the deal and its safe box, or the bid and whether it was made (seat-indexed
    words are filled in when shown)."""
    seat: int


class History(ResultRecorder):
    """A :class:`ResultRecorder` that also keeps the scoreboard and this deal's record:
    the cards calls revealed (Bluff) and the tricks played (Topper)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[ScoreRow] = []
        self.tricks: list[topper.TrickWon] = []

    def take(self, event: object) -> None:
        super().take(event)
        if isinstance(event, (HandDealt, proto.HandReceived)):
            self.tricks = []
        elif isinstance(event, topper.TrickWon):
            self.tricks.append(event)
        elif isinstance(event, topper.HandScored):
            made = "made" if event.made else "set"
            self.rows.append(ScoreRow(event.hand, tuple(event.scores),
                                      f"bid {event.bid}, {made}", event.bidder))

    def summary(self, names: Sequence[str], me: int | None, view: Engine | None = None,
                symbols: bool = False) -> Summary | None:
        event = self._due
        summary = super().summary(names, me, view, symbols)
        if isinstance(event, bluff.DealWon):
            deal = getattr(view, "deal_number", None) or len(self.rows) + 1
            self.rows.append(ScoreRow(deal, self._chips_before, f"safe box {event.safe_box}",
                                      event.winner))
        return summary

    def lines(self, names: Sequence[str], me: int | None, view: Engine | None,
              symbols: bool = False) -> list[str]:
        """The scoreboard, then the record of the deal (hand) in play, as text."""
        is_bluff = game_name(view) == "bluff"
        heads = [("you" if s == me else seat_name(names, s))[:8] for s in range(4)]
        word = "Deal" if is_bluff else "Hand"
        out = [f"Scoreboard: {'chips' if is_bluff else 'score'} after each "
               f"{word.lower()}" + ("" if self.rows else " (none scored yet)")]
        if self.rows:
            out.append(f"  {word:<5}" + "".join(f"{h:>9}" for h in heads))
            for row in self.rows:
                totals = "".join(f"{t:>9}" for t in row.totals) if row.totals else " " * 36
                who_ = "won by " if is_bluff else ""
                out.append(f"  {row.number:<5}{totals}   {who_}{seat_name(names, row.seat)} "
                           f"({row.note})")
        out.append("")
        if is_bluff:
            out.extend(self._bluff_record(cast(bluff.BluffState, view), me, symbols))
        else:
            out.extend(self._topper_record(names, me, symbols))
        return out

    def _bluff_record(self, view: bluff.BluffState, me: int | None, symbols: bool) -> list[str]:
        return bluff_record(view, me, symbols)

    def _topper_record(self, names: Sequence[str], me: int | None, symbols: bool) -> list[str]:
        if not self.tricks:
            return ["This hand's tricks: none played yet"]
        out = ["This hand's tricks (the last one last)"]
        for trick in self.tricks:
            plays = " ".join(f"{seat_name(names, s)} {cards_text([card], symbols)}"
                             for s, card in trick.plays)
            out.append(f"  Trick {trick.trick + 1}: {plays} → {who(names, trick.winner, me)}")
        return out


def bluff_record(view: bluff.BluffState, me: int | None, symbols: bool = False) -> list[str]:
    """This deal's record of a Bluff seat, by rank: the cards it knows (in its hand, its own
    discards, those calls showed) and the cards the others claimed that nobody has seen: the
    count the coach quotes. Only the seat's own view is read."""
    mine = {held.slot for held in view.hand(me)} if me is not None else set()
    known: dict[Rank, tuple[list[Card], list[Card], list[Card]]] = {}
    for slot in range(DECK_SIZE):
        face = view.face(slot)
        if face is None:
            continue
        hand, discarded, shown_ = known.setdefault(face.rank, ([], [], []))
        if slot in mine:
            hand.append(face)
        elif me is not None and slot % SEATS == me:
            discarded.append(face)
        else:
            shown_.append(face)
    claimed: dict[Rank, int] = {}
    for claim in view.claims:
        if claim.seat != me and not claim.revealed:
            claimed[claim.rank] = claimed.get(claim.rank, 0) + claim.count
    out = ["This deal's record, by rank: your hand, your discards, cards calls showed, "
           "and what the others claimed unseen"]
    for rank in sorted(set(known) | set(claimed), key=lambda r: r.value, reverse=True):
        hand, discarded, shown_ = known.get(rank, ([], [], []))
        parts = [f"{cards_text(cards, symbols)} {where}" for cards, where in (
            (hand, "in your hand"), (discarded, "discarded by you"), (shown_, "shown"))
            if cards]
        if claimed.get(rank):
            parts.append(f"{claimed[rank]} claimed by others")
        count = len(hand) + len(discarded) + len(shown_)
        out.append(f"  {rank.label:>2}: {count} of 4 known · " + ", ".join(parts))
    return out
