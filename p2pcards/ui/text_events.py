"""Events in words: one line for each thing that happened at the table.

Three sources speak here: the referees (Bluff's and Topper's events), the
table protocol (:mod:`p2pcards.protocol.events`: what this peer verified)
and the network session (:mod:`p2pcards.net.session_events`). Events hold only what
this peer may know, so describing them cannot leak a hidden card. Early
protocol events name *players* (join order), later ones *seats*; the
``seating`` (player at each seat, from ``PlayersSeated``) links the two.
Text that came from another peer (names, reasons, verdict details) is
cleaned of control characters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2pcards.cards import Card, Rank
from p2pcards.net import session_events as peer
from p2pcards.protocol import events as proto
from p2pcards.protocol.errors import LocalProtocolError, ProtocolError
from p2pcards.protocol.table_settings import HINTS, MOVE_TIME
from p2pcards.protocol.talk import MAX_TALK_CHARS, TalkLine
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules import bluff as bluff
from p2pcards.rules.contract import HandDealt, MatchEnded, Outcome
from p2pcards.rules.games import BLUFF, TOPPER, UnknownGame, game_of
from p2pcards.rules.topper import events as topper
from p2pcards.ui.text_common import (
    NAME_WIDTH,
    card_text,
    cards_text,
    clean,
    ending_words,
    plural,
    quoted,
    seat_name,
    who,
)

Names = Sequence[str]
Seating = Sequence[int] | None


class Speaker:
    """Names people as the peer the lines are written for knows them: by seat
    and name once seats are drawn, by name before, and "you" for itself."""

    def __init__(self, names: Names, me: int | None, seating: Seating,
                 players: Names = (), me_player: int | None = None,
                 symbols: bool = False, game: str | None = None) -> None:
        self.names = names
        #: The game's name, where a line's words depend on it (None: not known).
        self.game = game
        self.me = me
        self.seating = tuple(seating) if seating is not None else None
        self.players = players
        self.me_player = me_player
        self.symbols = symbols

    def card(self, card: Card | None) -> str:
        return card_text(card, self.symbols)

    def cards(self, cards: Sequence[Card | None]) -> str:
        return cards_text(cards, self.symbols)

    def seat(self, seat: int | None, start: bool = True) -> str:
        return who(self.names, seat, self.me, start)

    def does(self, seat: int | None, verb: str) -> str:
        """``verb`` agreeing with the seat: "you lead", "Seat 2 (Bob) leads"."""
        return verb if seat is not None and seat == self.me else f"{verb}s"

    def player(self, player: int | None, start: bool = False) -> str:
        """A player (join order) as people know him: ``Seat 2 (Bob)`` once the
        seats are drawn, his name before (the join-order index never shows)."""
        if player is None:
            return "Nobody" if start else "nobody"
        if self.seating is not None and player in self.seating:
            return self.seat(self.seating.index(player), start)
        if player == self.me_player:
            return "You" if start else "you"
        name = clean(self.players[player], NAME_WIDTH) if 0 <= player < len(self.players) else ""
        return name or ("A player" if start else "a player")

    def player_does(self, player: int | None, verb: str) -> str:
        """``verb`` agreeing with the player: "you open", "Seat 2 (Bob) opens"."""
        mine = player is not None and (player == self.me_player or (
            self.seating is not None and player in self.seating
            and self.seating.index(player) == self.me))
        return verb if mine else f"{verb}s"

    def scores(self, values: Sequence[int]) -> str:
        return ", ".join(f"{seat_name(self.names, s)} {v}" for s, v in enumerate(values))


def _agreeing(phrase: str, seat: int | None, s: Speaker) -> str:
    """``phrase``'s first word agreeing with the seat: "you deal first", "Seat 2 (Bob) deals first"."""
    verb, _, rest = phrase.partition(" ")
    return " ".join(part for part in (s.does(seat, verb), rest) if part)


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- Bluff ---------------------------------------------------------------------------

def _bluff_line(e: object, s: Speaker) -> str | None:
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
        faces = s.cards(e.faces)
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
    return None


def winners_sentence(seats: Sequence[int], s: Speaker) -> str:
    """``Seat 2 (Cal) won``, ``You and Seat 1 (Bob) share the win``."""
    return _winners(seats, s)


def _winners(seats: Sequence[int], s: Speaker) -> str:
    names = [s.seat(w, False) for w in seats]
    if not names:
        return "Nobody won"
    joined = " and ".join(names)
    return f"{_upper_first(joined)} {'won' if len(names) == 1 else 'share the win'}"


def _bluff_outcome(outcome: bluff.BluffOutcome, s: Speaker) -> str:
    return (f"{ending_words(outcome.termination)} after "
            f"{plural(outcome.deals, 'deal')}. {_winners(outcome.winners, s)}. "
            f"Chips: {s.scores(outcome.chips)}.")


# --- Topper ----------------------------------------------------------------------------

def _topper_line(e: object, s: Speaker) -> str | None:
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
        big = s.card(Card(Rank.JACK, e.suit))
        return (f"{s.seat(e.seat)} named {e.suit.name.lower()} trump "
                f"(Big Jack {big}, Little Jack {s.card(e.little_jack)}).")
    if isinstance(e, topper.CardPlayed):
        return f"{s.seat(e.seat)} played {s.card(e.card)}."
    if isinstance(e, topper.ShowedVoid):
        has = "have" if e.seat == s.me else "has"
        return (f"{s.seat(e.seat)} {has} no {e.suit.name.lower()} left this hand "
                f"(played {s.card(e.card)} in trick {e.trick + 1}).")
    if isinstance(e, topper.TrickWon):
        plays = " ".join(s.card(card) for _, card in e.plays)
        return f"{s.seat(e.winner)} won trick {e.trick + 1} ({plays})."
    if isinstance(e, topper.HandScored):
        took = plural(e.tricks[e.bidder], "trick")
        result = (f"and took {took} (made it)" if e.made
                  else f"but took only {took} ({plural(e.bid, 'point')} lost)")
        return (f"Hand {e.hand} scored: {s.seat(e.bidder, False)} bid {e.bid} {result}. "
                f"Scores: {s.scores(e.scores)}.")
    if isinstance(e, topper.TieContinues):
        tied = " and ".join(s.seat(t, False) for t in e.seats)
        return f"Tie at {e.score} between {tied}, the bidder not among them: another hand."
    return None


def _topper_outcome(outcome: topper.TopperOutcome, s: Speaker) -> str:
    return (f"{ending_words(outcome.termination)} after "
            f"{plural(outcome.hands, 'hand')} scored. {_winners(outcome.winners, s)}. "
            f"Scores: {s.scores(outcome.scores)}.")


# --- both games ----------------------------------------------------------------------------

#: Each game's own events in words, chosen by the game object's name.
_EVENT_LINES: dict[str, Callable[[object, Speaker], str | None]] = {
    "bluff": _bluff_line, "topper": _topper_line}


def _dealt_line(e: HandDealt, s: Speaker) -> str:
    if e.dealer is None:  # Bluff: nobody deals, the leader opens
        return f"Deal {e.hand} begins: {s.seat(e.first, False)} {s.does(e.first, 'lead')}."
    return (f"Hand {e.hand}: {s.seat(e.dealer, False)} dealt; "
            f"{s.seat(e.first, False)} {s.does(e.first, 'bid')} first.")


def outcome_words(outcome: Outcome, s: Speaker) -> str:
    """``deal cap reached after 20 deals. Seat 2 (Cal) won. Chips: …``"""
    if BLUFF.is_outcome(outcome):
        return _bluff_outcome(outcome, s)
    if TOPPER.is_outcome(outcome):
        return _topper_outcome(outcome, s)
    raise UnknownGame(f"{type(outcome).__name__} belongs to no game")


def _outcome_line(outcome: Outcome, s: Speaker) -> str:
    return f"Match over: {outcome_words(outcome, s)}"


def _game_line(e: object, s: Speaker) -> str | None:
    """A referee's event in words (None for anything else)."""
    if isinstance(e, HandDealt):
        return _dealt_line(e, s)
    if isinstance(e, MatchEnded):
        return _outcome_line(e.outcome, s)
    try:
        game = game_of(e)
    except UnknownGame:
        return None
    return _EVENT_LINES[game.name](e, s)


# --- the table protocol ---------------------------------------------------------------------

def _protocol_line(e: object, s: Speaker) -> str | None:
    if isinstance(e, proto.ClockPaused):
        return (f"{s.player(e.player, True)} {s.player_does(e.player, 'step')} away: "
                f"{e.seconds // 60} more minutes on this move "
                f"({plural(e.left, 'pause')} left).")
    if isinstance(e, proto.HintTaken):
        return (f"{s.player(e.player, True)} {s.player_does(e.player, 'ask')} the coach "
                f"for a hint (coached {plural(e.used, 'time')}).")
    if isinstance(e, proto.Committed):
        return f"{s.player(e.player, True)} committed to a key share and a draw nonce."
    if isinstance(e, proto.KeyShareVerified):
        mine = s.player_does(e.player, "x") == "x"
        return (f"{s.player(e.player, True)} opened {'your' if mine else 'a'} key share; "
                f"proof verified.")
    if isinstance(e, proto.PlayersSeated):
        seated = ", ".join(f"Seat {seat}: {seat_name(s.names, seat)}"
                           + (" (you)" if seat == s.me else "")
                           for seat in range(len(e.player_at_seat)))
        # The draw picks who starts: Bluff's first leader, Topper's first dealer.
        verb = "deal first" if s.game == "topper" else "start"
        return f"Seats drawn ({seated}); {s.seat(e.first_seat, False)} {_agreeing(verb, e.first_seat, s)}."
    if isinstance(e, proto.ShuffleVerified):
        if e.own:
            return f"You shuffled deck {e.deck} and proved the shuffle."
        return f"{s.seat(e.seat)} shuffled deck {e.deck}; proof verified."
    if isinstance(e, proto.SharesVerified):
        if e.own:
            return f"You published {e.count} decryption shares for deck {e.deck}."
        return (f"Shares for deck {e.deck} from {s.seat(e.seat, False)} verified "
                f"({e.count} proofs).")
    if isinstance(e, proto.HandReceived):
        if not e.hand:
            return f"Deck {e.deck} dealt."
        cards = s.cards(sorted(card for _, card in e.hand))
        return f"Deck {e.deck} dealt. Your hand: {cards}."
    if isinstance(e, proto.CardsRevealed):
        return (f"{s.seat(e.seat)} opened {s.cards([c for _, c in e.cards])}; "
                f"decryption shares verified.")
    if isinstance(e, proto.ActionApplied):
        # The protocol follows the last action with its own MatchEnded: say it once.
        lines = [_game_line(r, s) for r in e.results if not isinstance(r, MatchEnded)]
        text = "\n".join(line for line in lines if line)
        return text or None
    if isinstance(e, proto.MatchCompleted):
        if isinstance(e.outcome, Outcome):
            return _outcome_line(e.outcome, s)
        return "Match over."
    if isinstance(e, proto.TableEnded):
        return _verdict_line(e.verdict, s)
    if isinstance(e, proto.Reported):
        return _report_line(e, s)
    return None


def _report_line(e: proto.Reported, s: Speaker) -> str:
    """Another peer's unchecked word: said as a report, never as a verdict."""
    accused = " and ".join(s.player(p) for p in e.players) or "nobody"
    what = offence(clean(e.rule, 64), clean(e.detail, 160), mine=False)
    return (f"{s.player(e.reporter, True)} {s.player_does(e.reporter, 'report')} that "
            f"{accused} {what} (not confirmed here; play goes on).")


def _verdict_line(verdict: Verdict, s: Speaker) -> str:
    return f"Table ended: {verdict_sentence(verdict, s)}"


def verdict_sentence(verdict: Verdict, s: Speaker) -> str:
    """``Seat 3 (Alice) ran out of time.``: a verdict in the table's words."""
    players = list(verdict.players)
    if not players:
        return f"the table ended with nobody named ({clean(verdict.detail, 160)})."
    blamed = " and ".join(s.player(p, True) for p in players)
    mine = len(players) == 1 and s.player_does(players[0], "x") == "x"
    what = offence(clean(verdict.rule, 64), clean(verdict.detail, 240), mine)
    if verdict.rule in ("deadline", "left"):
        proof = ""
    elif verdict.provable:
        whose = "your" if mine else "their"
        proof = f", proven by {whose} signed message{'s' if len(players) > 1 else ''}"
    else:
        proof = " (reported, not provable from the transcript)"
    return f"{blamed} {what}{proof}."


#: What each rule broken means, said of the one who broke it. ``{detail}``
#: is the referee's own refusal, for rules whose id alone says too little.
_OFFENCES: dict[str, str] = {
    "deadline": "ran out of time",
    "left": "left the table",
    "turn": "wrote out of turn",
    "chain.equivocation": "signed two different messages for one turn",
    "crypto": "sent a cryptographic proof that fails ({detail})",
    "message.signature": "sent a message with a bad signature",
    "message.malformed": "sent a malformed message ({detail})",
    "wire.malformed": "sent bytes that are not a message",
    "message.session": "sent a message of another table",
    "table.hint": "asked the coach where hints are not allowed ({detail})",
    "rules.card.not-held": "tried to play a card not in {their} hand",
    "rules.card.mismatch": "showed cards other than those discarded",
    "rules.topper.follow-suit": "did not follow suit while able to",
    "rules.topper.renege": "reneged (kept back a card {they} had to play)",
}


def offence(rule: str, detail: str, mine: bool) -> str:
    """What breaking ``rule`` means, agreeing with its subject ("you", one or several)."""
    if rule == "deadline":
        # A deadline's detail is this peer's own wording of why its clock ran out.
        if "could not be reached" in detail:
            return "could not be reached (the host)"
        if "refused to go on" in detail:
            return "refused to go on (the host)"
    template = _OFFENCES.get(rule)
    if template is None:
        template = "broke a rule of the game: {detail}" if rule.startswith("rules.") \
            else "broke the table's rules: {detail}"
    their = "your" if mine else "their"
    they = "you" if mine else "they"
    return template.format(detail=detail, their=their, they=they)


# --- the network session --------------------------------------------------------------------

def _session_line(e: object, s: Speaker) -> str | None:
    if isinstance(e, peer.LobbyUpdate):
        people = ", ".join(clean(name, 16) + (" (bot)" if bot else "")
                           for _, name, bot in e.players) or "nobody yet"
        missing = 4 - len(e.players)
        wait = f"; waiting for {missing} more" if missing > 0 else "; the table is full"
        untimed = ", no clock: anyone can stall it for ever" if e.config.get(MOVE_TIME) == 0 else ""
        coached = ", hints allowed: every screen marks a coached seat" \
            if e.config.get(HINTS) == 1 else ""
        return (f"Table {quoted(e.table)} ({clean(e.game, 10)}{untimed}{coached}): "
                f"{plural(len(e.players), 'player')} joined: {people}{wait}.")
    if isinstance(e, peer.LinkUp):
        if e.own_host:
            return None
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
        how = {"direct": "direct", "host": "is the host"}
        parts = [f"{s.player(p)} {how.get(path, 'via the host')}"
                 for p, path in sorted(e.paths.items())]
        return "Links: " + ", ".join(parts) + "."
    if isinstance(e, peer.Presence):
        parts = [f"{s.player(p, True)} is back." if state == peer.CONNECTED else
                 f"{s.player(p, True)} dropped; reconnecting (usually up to {round(e.window)} s)."
                 for p, state in sorted(e.changed.items())]
        return " ".join(parts) or None
    if isinstance(e, peer.Rejected):
        return f"The host refused this player: {clean(e.reason, 160)}."
    if isinstance(e, peer.Degraded):
        return clean(e.reason, 300)
    if isinstance(e, peer.SeatFilled):
        # A newcomer's screen at a finished table's end box (the players' end boxes
        # say it with the leaver's name: p2pcards.ui.text_end_box.fill_line).
        taker = quoted(e.fill.name, 16) + (" (bot)" if e.fill.bot else "")
        return (f"End box: {taker} takes seat {e.fill.seat} of the match before; the rematch "
                f"starts when every seat is taken.")
    if isinstance(e, peer.EndBoxWord):
        if e.ending == 0:
            return (f"End box: the rematch starts when every seat is taken ({e.left} s left, "
                    f"then the evening ends).")
        return {1: "End box: every seat is taken: the rematch starts.",
                2: "End box: the wait ran out before every seat was taken; the evening ends here.",
                3: "End box: the host left; the evening ends here."}.get(e.ending)
    if isinstance(e, TalkLine):
        # A person's own words: every control and bidi character blanked (clean).
        return f"{s.player(e.player, True)}: {clean(e.text, MAX_TALK_CHARS)}"
    return None


_SOURCES: tuple[Callable[[object, Speaker], str | None], ...] = (
    _protocol_line, _session_line, _game_line)


def describe(event: object, names: Names, me: int | None, seating: Seating = None, *,
             players: Names = (), me_player: int | None = None,
             symbols: bool = False, game: str | None = None) -> str | None:
    """What ``event`` means, in words for the player at seat ``me``; None if not worth a line.

    ``names[seat]`` is the display name at each seat; ``seating`` (player
    index at each seat, known once ``PlayersSeated`` came) lets early
    protocol events and verdicts, which count players, name them by seat;
    before the seats are drawn ``players`` (names in join order) and
    ``me_player`` name them. People never read a join-order index. An
    :class:`ActionApplied` gives one line per referee event it carries;
    cards are written ``Q♥`` with ``symbols``, else ``QH``, as the board does; ``game``
    (its name) words the seat draw as that game starts (Topper's first seat deals).
    """
    speaker = Speaker(names, me, seating, players, me_player, symbols, game)
    if isinstance(event, LocalProtocolError):
        return f"Your action was refused: {clean(event, 200)}"
    if isinstance(event, ProtocolError):
        return f"Protocol error: {clean(event, 200)}"
    for source in _SOURCES:
        line = source(event, speaker)
        if line is not None:
            return line
    return None
