"""The middle of the table: the lobby while seats fill, then the game's public facts.

Bluff: the safe box, the stake on the table, the named rank, the face-down
pile, the last claim and what the last call revealed. Topper: the hand, the
bids, trump with its two Jacks, the trick in progress and the last trick.
While a deck is shuffled and dealt, the progress of the verified steps and
the result of the hand just played are shown first.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.cards import Card
from p2pcards.rules.bluff import BluffState, Claim
from p2pcards.rules.bluff import Phase as BluffPhase
from p2pcards.rules.contract import Engine
from p2pcards.rules.games import BLUFF, TOPPER, UnknownGame
from p2pcards.rules.seats import SEATS
from p2pcards.rules.topper import Phase as TopperPhase
from p2pcards.rules.topper import TopperState
from p2pcards.rules.topper.order import big_jack, little_jack
from p2pcards.ui.text_common import quoted
from p2pcards.ui.tui.hand import face_style, face_text
from p2pcards.ui.tui.lines import Fragment, Line, Lines, fit, pack
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.seats import seat_label


def _card(card: Card | None) -> Fragment:
    return (face_style(card), face_text(card).strip())


def _cards(cards: Sequence[Card | None]) -> Line:
    out: Line = []
    for i, card in enumerate(cards):
        if i:
            out.append(("", " "))
        out.append(_card(card))
    return out


def _v(text: object) -> Fragment:
    return ("class:value", str(text))


def lobby_lines(model: ScreenModel, width: int) -> Lines:
    """Who has joined so far, with fingerprints and bots: the lobby view."""
    game = (model.game or "?").upper()
    name = quoted(model.table_name) if model.table_name else "the table"
    lines: Lines = [[("class:board.title", f"{game} · {name}"),
                     ("class:dim", f" · {len(model.lobby)} of {SEATS} joined")]]
    for index in range(SEATS):
        if index < len(model.lobby):
            info = model.lobby[index]
            role = " (host)" if index == 0 else (" (bot)" if info.bot else "")
            lines.append([("", f"{index + 1}. "), ("class:seat.name", info.name),
                          ("class:dim", role), ("", "  "), ("class:fp", info.fingerprint)])
        else:
            lines.append([("class:dim", f"{index + 1}. waiting for a player…")])
    return [line for chunk in lines for line in pack([chunk], width)]


def _claim_chunks(model: ScreenModel, claim: Claim) -> list[Line]:
    count = f"{claim.count} card{'s' if claim.count != 1 else ''}"
    chunks: list[Line] = [[("class:label", "Last claim: "), ("class:seat.name", seat_label(model, claim.seat))],
              [("", f"{count} as "), ("class:rank", claim.rank.label)],
              [("", "stake "), _v(claim.stake)]]
    if claim.revealed:
        chunks.append([("class:dim", "shown honest")])
    return chunks


def _last_call(model: ScreenModel, view: BluffState) -> list[Line] | None:
    """What the last call revealed: whose claim, of which rank, the faces, the verdict."""
    for claim in reversed(view.claims):
        if claim.revealed:
            verdict = ("class:good", "honest") if claim.honest else ("class:bad", "a BLUFF")
            when = "Call" if claim in view.round_claims else "Last round's call"
            whose = "your" if claim.seat == model.me else f"{seat_label(model, claim.seat)}'s"
            return [[("class:label", f"{when} on "), ("class:seat.name", whose), ("", " "),
                     ("class:rank", claim.rank.label), ("", ":")],
                    _cards(claim.faces or ()), [("", "— "), verdict]]
    return None


def bluff_lines(model: ScreenModel, view: BluffState, width: int) -> Lines:
    rank = view.named_rank.label if view.named_rank is not None else "—"
    money: list[Line] = [[("class:label", "Safe box "), _v(view.safe_box)],
                         [("class:label", "on the table "), _v(view.table_stake or 0)]]
    if view.round_stake and view.round_stake != view.table_stake:
        money.append([("class:label", "round stake "), _v(view.round_stake)])
    lines = pack(money, width)
    lines += pack([[("class:label", "Named rank "), ("class:rank", rank)],
                   [("class:label", "pile "), _v(len(view.pile)), ("", " face down")]], width)
    claim = view.last_claim
    if claim is not None and view.phase is not BluffPhase.DEAL:
        lines += pack(_claim_chunks(model, claim), width)
    shown = _last_call(model, view)
    if shown is not None:
        lines += pack(shown, width, separator=" ")
    return lines


def topper_lines(model: ScreenModel, view: TopperState, width: int) -> Lines:
    lines: Lines = pack([[("class:label", "Hand "), _v(view.hand_number)],
                         [("class:label", "dealer "),
                          ("class:seat.name", seat_label(model, view.dealer))],
                         [("class:label", "first to "), _v(view.config.target_score)]], width)
    trump = view.trump
    bidding: list[Line] = []
    if trump is not None:
        bidding.append([("class:label", "Trump "),
                        (face_style(big_jack(trump)), f"{trump.symbol} {trump.name.lower()}")])
    if view.bidder is not None and view.phase is not TopperPhase.BIDDING:
        bidding.append([("class:label", "bidder "),
                        ("class:seat.name", seat_label(model, view.bidder)),
                        ("", " bid "), _v(view.high_bid)])
    elif view.phase is TopperPhase.BIDDING:
        bidding.append([("class:label", "Highest bid "), _v(view.high_bid),
                        ("", f" by {seat_label(model, view.bidder)}")] if view.high_bid else
                       [("class:label", "Bidding: "), ("", "no bid yet")])
    lines += pack(bidding, width)
    if trump is not None:
        lines += pack([[("class:label", "Big Jack "), _card(big_jack(trump))],
                       [("class:label", "Little Jack "), _card(little_jack(trump))]], width)
    if view.current_trick:
        plays: list[Line] = [[("class:label", f"Trick {len(view.tricks) + 1}:")]]
        plays += [[("", f"{seat_label(model, seat)} "), _card(card)]
                  for seat, card in view.current_trick]
        lines += pack(plays, width, separator="  ")
    if view.tricks:
        last = view.tricks[-1]
        lines += pack([[("class:label", f"Trick {last.trick + 1} won by "),
                        ("class:seat.name", seat_label(model, last.winner)), ("", ": ")]
                       + _cards([card for _, card in last.plays])], width)
    return lines


def _body(model: ScreenModel, view: Engine, width: int) -> Lines:
    """The game's public facts, drawn by the view's own game."""
    if BLUFF.is_view(view):
        return bluff_lines(model, view, width)
    if TOPPER.is_view(view):
        return topper_lines(model, view, width)
    raise UnknownGame(f"{type(view).__name__} belongs to no game")


def board_lines(model: ScreenModel, width: int, height: int) -> Lines:
    """The middle of the table for ``width`` × ``height`` cells."""
    view = model.view
    notes: Lines = []
    if model.result_line:
        notes += pack([[("class:result", model.result_line)]], width)
    if model.progress:
        notes += pack([[("class:progress", model.progress)]], width)
    if view is None:
        body = lobby_lines(model, width) if not model.seated else []
        return fit(notes + body if model.seated else body + notes, width, height)
    body = _body(model, view, width)
    waiting = view.awaiting_deal
    lines = notes + body if waiting else body + notes
    if model.last_move is not None and not waiting:
        # The move just made, first (where it fits): with quick bots it is easy to miss.
        last = pack([[("class:lastmove", "◆ " + model.last_move.text)]], width)
        if len(lines) + len(last) <= height:
            lines = last + lines
    return fit(lines, width, height)
