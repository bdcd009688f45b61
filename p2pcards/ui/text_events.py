"""Events in words: one line for each thing that happened at the table.

Three sources speak here: the referees (Bluff's and Topper's events), the
table protocol (:mod:`p2pcards.protocol.events`: what this peer verified)
and the network session (:mod:`p2pcards.net.peer`). Events hold only what
this peer may know, so describing them cannot leak a hidden card. Early
protocol events name *players* (join order), later ones *seats*; the
``seating`` (player at each seat, from ``PlayersSeated``) links the two.
Text that came from another peer (names, reasons, verdict details) is
cleaned of control characters.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from p2pcards.net import peer
from p2pcards.protocol import events as proto
from p2pcards.protocol.errors import LocalProtocolError, ProtocolError
from p2pcards.rules import bluff_model as bluff
from p2pcards.rules import topper_events as topper
from p2pcards.ui.text_common import cards_text, clean, known_name, plural, seat_name, who

Names = Sequence[str]
Seating = Optional[Sequence[int]]


class _Speaker:
    """The names and seat of the peer the lines are written for."""

    def __init__(self, names: Names, me: Optional[int], seating: Seating) -> None:
        self.names = names
        self.me = me
        self.seating = tuple(seating) if seating is not None else None

    def seat(self, seat: Optional[int], start: bool = True) -> str:
        return who(self.names, seat, self.me, start)

    def does(self, seat: Optional[int], verb: str) -> str:
        """``verb`` agreeing with the seat: "you lead", "Seat 2 (Bob) leads"."""
        return verb if seat is not None and seat == self.me else f"{verb}s"

    def player(self, player: Optional[int]) -> str:
        """``player 2 (Bob)``: a player by join order, named once seats are drawn."""
        if player is None:
            return "nobody"
        if self.seating is not None and player in self.seating:
            seat = self.seating.index(player)
            name = "you" if seat == self.me else known_name(self.names, seat)
            return f"player {player} ({name})" if name else f"player {player}"
        return f"player {player}"

    def scores(self, values: Sequence[int]) -> str:
        return ", ".join(f"{seat_name(self.names, s)} {v}" for s, v in enumerate(values))


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- Bluff ---------------------------------------------------------------------------

def _bluff_line(e: Any, s: _Speaker) -> Optional[str]:
    if isinstance(e, bluff.DealStarted):
        return f"Deal {e.deal} begins: {s.seat(e.leader, False)} {s.does(e.leader, 'lead')}."
    if isinstance(e, bluff.Discarded):
        cards = plural(len(e.slots), "card")
        if e.lead:
            return (f"{s.seat(e.seat)} led: named {e.rank.label}, staked {e.stake} and "
                    f"discarded {cards} face down.")
        return f"{s.seat(e.seat)} discarded {cards} as {e.rank.label}, stake {e.stake}."
    if isinstance(e, bluff.StakeReturned):
        return f"{s.seat(e.seat)} took back a stake of {e.amount}: the claim was accepted."
    if isinstance(e, bluff.Passed):
        return f"{s.seat(e.seat)} passed and paid {e.paid} into the safe box."
    if isinstance(e, bluff.Challenged):
        return f"{s.seat(e.challenger)} called BLUFF on {s.seat(e.discarder, False)}!"
    if isinstance(e, bluff.ChallengeResolved):
        faces = cards_text(e.faces)
        if e.bluff:
            return (f"It was a bluff: {faces}. {s.seat(e.discarder)} lost the stake of "
                    f"{e.paid} and took the cards back.")
        return (f"It was honest: {faces}. {s.seat(e.challenger)} paid {e.paid} "
                f"into the safe box.")
    if isinstance(e, bluff.RoundEnded):
        gone = f"{plural(e.cards_out, 'card')} left play unseen" if e.cards_out else "no pile"
        return (f"Round over ({gone}); {s.seat(e.leader, False)} "
                f"{s.does(e.leader, 'lead')} the next round.")
    if isinstance(e, bluff.PlayerOut):
        return f"{s.seat(e.seat)} ran out of chips and is out of the match."
    if isinstance(e, bluff.DealWon):
        return f"{s.seat(e.winner)} won the deal and the safe box of {e.safe_box}."
    if isinstance(e, bluff.MatchEnded):
        return _bluff_outcome(e.outcome, s)
    return None


def _bluff_outcome(outcome: bluff.BluffOutcome, s: _Speaker) -> str:
    winners = " and ".join(s.seat(w, False) for w in outcome.winners)
    return (f"MATCH OVER ({outcome.termination.value}, {plural(outcome.deals, 'deal')}): "
            f"won by {winners}. Chips: {s.scores(outcome.chips)}.")


# --- Topper ----------------------------------------------------------------------------

def _topper_line(e: Any, s: _Speaker) -> Optional[str]:
    if isinstance(e, topper.HandDealt):
        return (f"Hand {e.hand}: {s.seat(e.dealer, False)} dealt; "
                f"{s.seat(e.first_bidder, False)} {s.does(e.first_bidder, 'bid')} first.")
    if isinstance(e, topper.BidMade):
        return f"{s.seat(e.seat)} bid {e.tricks}."
    if isinstance(e, topper.BidPassed):
        return f"{s.seat(e.seat)} passed."
    if isinstance(e, topper.BiddingWon):
        return (f"{s.seat(e.bidder)} won the bidding with {e.tricks} and "
                f"{s.does(e.bidder, 'name')} trump.")
    if isinstance(e, topper.ThrownIn):
        return (f"Everyone passed: hand {e.hand} is thrown in; "
                f"{s.seat(e.next_dealer, False)} {s.does(e.next_dealer, 'deal')} next.")
    if isinstance(e, topper.TrumpNamed):
        big = f"J{e.suit.letter}"
        return (f"{s.seat(e.seat)} named {e.suit.name.lower()} trump "
                f"(Big Jack {big}, Little Jack {e.little_jack.ascii}).")
    if isinstance(e, topper.CardPlayed):
        return f"{s.seat(e.seat)} played {e.card.ascii}."
    if isinstance(e, topper.ShowedVoid):
        has = "have" if e.seat == s.me else "has"
        return (f"{s.seat(e.seat)} {has} no {e.suit.name.lower()} left this hand "
                f"(played {e.card.ascii} in trick {e.trick + 1}).")
    if isinstance(e, topper.TrickWon):
        plays = " ".join(card.ascii for _, card in e.plays)
        return f"{s.seat(e.winner)} won trick {e.trick + 1} ({plays})."
    if isinstance(e, topper.HandScored):
        took = e.tricks[e.bidder]
        result = "made it" if e.made else f"fell short and lost {e.bid}"
        return (f"Hand {e.hand} scored: {s.seat(e.bidder, False)} bid {e.bid}, took {took}, "
                f"{result}. Scores: {s.scores(e.scores)}.")
    if isinstance(e, topper.TieContinues):
        tied = " and ".join(s.seat(t, False) for t in e.seats)
        return f"Tie at {e.score} between {tied}, the bidder not among them: another hand."
    if isinstance(e, topper.MatchEnded):
        return _topper_outcome(e.outcome, s)
    return None


def _topper_outcome(outcome: topper.TopperOutcome, s: _Speaker) -> str:
    winners = " and ".join(s.seat(w, False) for w in outcome.winners)
    return (f"MATCH OVER ({outcome.termination.value}, {plural(outcome.hands, 'hand')} "
            f"scored): won by {winners}. Scores: {s.scores(outcome.scores)}.")


# --- the table protocol ---------------------------------------------------------------------

def _protocol_line(e: Any, s: _Speaker) -> Optional[str]:
    if isinstance(e, proto.Committed):
        return f"{_upper_first(s.player(e.player))} committed to a key share and a draw nonce."
    if isinstance(e, proto.KeyShareVerified):
        return f"{_upper_first(s.player(e.player))} opened its key share; proof verified."
    if isinstance(e, proto.PlayersSeated):
        seated = ", ".join(f"seat {seat}: {seat_name(s.names, seat)}"
                           for seat in range(len(e.player_at_seat)))
        return f"Seats drawn ({seated}); {s.seat(e.first_seat, False)} goes first."
    if isinstance(e, proto.ShuffleVerified):
        if e.own:
            return f"You shuffled deck {e.deck} and proved the shuffle."
        return f"{s.seat(e.seat)} shuffled deck {e.deck}; proof verified."
    if isinstance(e, proto.SharesVerified):
        if e.own:
            return f"You published {e.count} decryption shares for deck {e.deck}."
        return (f"Shares for deck {e.deck} from {s.seat(e.seat, False)} verified "
                f"({e.count} proofs).")
    if isinstance(e, proto.HandDealt):
        if not e.hand:
            return f"Deck {e.deck} dealt."
        cards = cards_text(sorted(card for _, card in e.hand))
        return f"Deck {e.deck} dealt. Your hand: {cards}."
    if isinstance(e, proto.CardsRevealed):
        return (f"{s.seat(e.seat)} opened {cards_text([c for _, c in e.cards])}; "
                f"decryption shares verified.")
    if isinstance(e, proto.ActionApplied):
        # The protocol follows the last action with its own MatchEnded: say it once.
        lines = [_game_line(r, s) for r in e.results
                 if not isinstance(r, (bluff.MatchEnded, topper.MatchEnded))]
        text = "\n".join(line for line in lines if line)
        return text or None
    if isinstance(e, proto.MatchEnded):
        outcome = e.outcome
        if isinstance(outcome, bluff.BluffOutcome):
            return _bluff_outcome(outcome, s)
        if isinstance(outcome, topper.TopperOutcome):
            return _topper_outcome(outcome, s)
        return "MATCH OVER."
    if isinstance(e, proto.TableEnded):
        return _verdict_line(e.verdict, s)
    if isinstance(e, proto.Reported):
        return _report_line(e, s)
    return None


def _report_line(e: proto.Reported, s: _Speaker) -> str:
    """Another peer's unchecked word: said as a report, never as a verdict."""
    accused = " and ".join(s.player(p) for p in e.players) or "nobody"
    rule, detail = clean(e.rule, 64), clean(e.detail, 160)
    if s.seating is not None and e.reporter in s.seating:
        reporter = s.seat(s.seating.index(e.reporter))
    else:
        reporter = _upper_first(s.player(e.reporter))
    return (f"{reporter} reports {rule} against {accused}: {detail} "
            f"(not confirmed here; play goes on).")


def _verdict_line(verdict: Any, s: _Speaker) -> str:
    blamed = " and ".join(s.player(p) for p in verdict.players) or "nobody named"
    rule, detail = clean(verdict.rule, 64), clean(verdict.detail, 240)
    if rule == "deadline":
        what = f"{blamed} missed the deadline"
    elif rule == "left":
        what = f"{blamed} left the table"
    else:
        what = f"{blamed} broke rule {rule}"
    proof = ("signed evidence attached; anyone can re-check it" if verdict.provable
             else "not provable from the transcript")
    return f"TABLE ENDED: {what}: {detail} ({proof})."


# --- the network session --------------------------------------------------------------------

def _session_line(e: Any, s: _Speaker) -> Optional[str]:
    if isinstance(e, peer.LobbyUpdate):
        people = ", ".join(clean(name, 16) + (" (bot)" if bot else "")
                           for _, name, bot in e.players) or "nobody yet"
        missing = 4 - len(e.players)
        wait = f"; waiting for {missing} more" if missing > 0 else "; the table is full"
        return (f"Table {clean(e.table, 40)!r} ({clean(e.game, 10)}): "
                f"{plural(len(e.players), 'player')} joined: {people}{wait}.")
    if isinstance(e, peer.LinkUp):
        return "Reconnected to the host." if e.reconnect else "Connected to the host."
    if isinstance(e, peer.LinkDown):
        return f"Lost the link to the host ({clean(e.reason, 120)}); reconnecting."
    if isinstance(e, peer.Waiting):
        if e.player is None:
            return None
        return f"Waiting for {s.player(e.player)}."
    if isinstance(e, peer.Paths):
        if not e.paths:
            return None
        parts = [f"{s.player(p)} {'direct' if path == 'direct' else 'is the host' if path == 'host' else 'via the host'}"
                 for p, path in sorted(e.paths.items())]
        return "Links: " + ", ".join(parts) + "."
    if isinstance(e, peer.Rejected):
        return f"The host refused this player: {clean(e.reason, 160)}."
    return None


def _game_line(e: Any, s: _Speaker) -> Optional[str]:
    return _bluff_line(e, s) or _topper_line(e, s)


_SOURCES: tuple[Callable[[Any, _Speaker], Optional[str]], ...] = (
    _protocol_line, _session_line, _bluff_line, _topper_line)


def describe(event: Any, names: Names, me: Optional[int],
             seating: Seating = None) -> Optional[str]:
    """What ``event`` means, in words for the player at seat ``me``; None if not worth a line.

    ``names[seat]`` is the display name at each seat; ``seating`` (player
    index at each seat, known once ``PlayersSeated`` came) lets early
    protocol events and verdicts, which count players, name them too. An
    :class:`ActionApplied` gives one line per referee event it carries.
    """
    speaker = _Speaker(names, me, seating)
    if isinstance(event, LocalProtocolError):
        return f"Your action was refused: {clean(event, 200)}"
    if isinstance(event, ProtocolError):
        return f"Protocol error: {clean(event, 200)}"
    for source in _SOURCES:
        line = source(event, speaker)
        if line is not None:
            return line
    return None
