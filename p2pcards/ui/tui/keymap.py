"""Keys to actions: a key press, with the selected cards, becomes the command a person would type.

Every key is turned into the words of the line-based front end and parsed
by :func:`p2pcards.ui.text.parse_command`, which checks the action with the
referee's ``view.check`` and words a refusal the way the text module does.
So both front ends accept exactly the same actions and refuse the others
for the same, explained, reasons; a refused key changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from p2pcards.cards import Rank
from p2pcards.errors import P2PCardsError
from p2pcards.protocol.talk import REACTIONS
from p2pcards.rules.bluff import BluffState
from p2pcards.rules.bluff import Phase as BluffPhase
from p2pcards.rules.contract import Engine
from p2pcards.rules.games import BLUFF, TOPPER
from p2pcards.rules.topper import Phase as TopperPhase
from p2pcards.rules.topper import TopperState
from p2pcards.ui.text import CommandError, parse_command
from p2pcards.ui.text_common import HandCard, faces_as_symbols, parse_count, viewing_seat

#: Keys that name a Topper trump suit.
SUIT_KEYS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
_SUIT_MARK = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


class Refused(P2PCardsError):
    """A key that cannot act now; the message says why, for the person at the screen."""


@dataclass(frozen=True)
class KeyHint:
    """One entry of the action bar: the key(s) shown, what they do, the key a click sends."""

    shown: str
    label: str
    key: str | None = None


@dataclass
class DiscardFlow:
    """A Bluff discard whose cards are chosen, still asking the rank (leader) and the stake."""

    view: BluffState
    labels: tuple[int, ...]
    low: int
    high: int
    rank: Rank | None = None
    step: str = "rank"
    """``rank``, ``stake`` or ``done``."""
    stake: int | None = field(default=None)

    @classmethod
    def start(cls, view: BluffState, labels: Sequence[int]) -> DiscardFlow:
        me = viewing_seat(view)
        low, high = view.min_stake_for(me), view.stacks[me]
        lead = view.phase is BluffPhase.LEAD
        flow = cls(view, tuple(labels), low, high, None if lead else view.named_rank)
        flow.step = "rank" if lead else ("stake" if low < high else "done")
        return flow

    @property
    def question(self) -> str:
        cards = f"{len(self.labels)} card{'s' if len(self.labels) != 1 else ''}"
        if self.step == "rank":
            return f"Discard {cards}: claim which rank? (2-10, J, Q, K, A)"
        rank = self.rank.label if self.rank is not None else "?"
        return f"Discard {cards} as {rank}: stake? ({self.low} to {self.high})"

    @property
    def default(self) -> str:
        """What the prompt starts with (the least stake: Enter accepts it)."""
        return str(self.low) if self.step == "stake" else ""

    def answer(self, text: str) -> object | None:
        """Take the person's answer; the checked :class:`Discard` once complete, else None.

        A bad answer raises :class:`Refused` and leaves the step as it was.
        """
        word = text.strip()
        if self.step == "rank":
            try:
                self.rank = Rank.parse(word)
            except ValueError:
                raise Refused(f"{word[:12]!r} is not a rank: type 2..10, J, Q, K or A") from None
            self.step = "stake" if self.low < self.high else "done"
        elif self.step == "stake":
            try:
                stake = parse_count(word or str(self.low), "the stake")
            except CommandError as error:
                raise Refused(str(error)) from None
            action = self._command(stake)
            self.stake, self.step = stake, "done"
            return action
        return self._command(self.low) if self.step == "done" else None

    def _command(self, stake: int) -> object:
        cards = " ".join(str(label) for label in self.labels)
        rank = f" as {self.rank.label}" if self.view.phase is BluffPhase.LEAD and self.rank else ""
        return _parse(f"discard {cards}{rank} stake {stake}", self.view)


#: The quick reactions as the talk prompt offers them: ``1 gg · 2 nice · …``.
REACTION_HINT = " · ".join(f"{i} {word}" for i, word in enumerate(REACTIONS, start=1))


@dataclass
class TalkFlow:
    """A chat line being typed (``t``): Enter sends it, Esc cancels; a lone
    digit sends that quick reaction. Open at any moment, not only on one's turn."""

    question: str = "Say to the table:"
    default: str = ""

    def answer(self, text: str) -> str:
        """The line to send; raises :class:`Refused` for an empty one."""
        word = text.strip()
        if word.isdigit() and 1 <= int(word) <= len(REACTIONS):
            return REACTIONS[int(word) - 1]
        if not word:
            raise Refused("nothing to say: type a line (or a quick reaction's number), "
                          "Esc cancels")
        return word


#: What a key gives: an action for the referee, or a discard still asking its rank and stake.
Outcome = object | DiscardFlow


def _parse(command: str, view: Engine) -> object:
    try:
        return parse_command(command, view)
    except CommandError as error:
        raise Refused(faces_as_symbols(str(error))) from None


def hints(view: Engine) -> list[KeyHint]:
    """The action bar of the viewer: only what is legal now (nothing if another seat acts)."""
    if getattr(view, "viewer", None) is not None and view.to_act != view.viewer:
        return []
    if BLUFF.is_view(view):
        return _bluff_hints(view)
    if TOPPER.is_view(view):
        return _topper_hints(view)
    return []


def _bluff_hints(view: BluffState) -> list[KeyHint]:
    opts = view.options()
    if opts is None or opts.must_reveal:
        return []
    out = []
    if opts.can_discard:
        top = min(opts.max_discard, len(opts.hand))
        rank = opts.rank.label if opts.rank is not None else "?"
        what = "as any rank" if opts.must_lead else f"as {rank}"
        out.append(KeyHint("←→ space", "select it" if top == 1 else f"select 1-{top}"))
        out.append(KeyHint("d", f"discard {what}", "d"))
    if opts.can_pass:
        out.append(KeyHint("p", f"pass ({view.config.pass_price})", "p"))
    if opts.can_challenge:
        out.append(KeyHint("b", "Bluff!", "b"))
    return out


def _topper_hints(view: TopperState) -> list[KeyHint]:
    cfg = view.config
    if view.phase is TopperPhase.BIDDING:
        low = max((view.high_bid or 0) + 1, cfg.min_bid)
        out = [KeyHint("p", "pass", "p")]
        if low <= cfg.max_bid:
            span = str(low) if low == cfg.max_bid else f"{low}-{cfg.max_bid}"
            out.append(KeyHint(span, "bid", str(low)))
        return out
    if view.phase is TopperPhase.TRUMP:
        return [KeyHint(f"{k}{_SUIT_MARK[k]}", f"{name} trump", k) for k, name in SUIT_KEYS.items()]
    if view.phase is TopperPhase.PLAY:
        return [KeyHint("←→", "choose"), KeyHint("Enter", "play the card", "enter")]
    return []


def press(key: str, view: Engine, chosen: Sequence[HandCard],
          cursor: HandCard | None) -> Outcome:
    """What ``key`` does for the seat to act in ``view``: a checked action or a discard flow.

    ``chosen`` are the selected cards, ``cursor`` the card under the cursor.
    Raises :class:`Refused` (saying why) when the key cannot act now.
    """
    if BLUFF.is_view(view):
        return _bluff_press(key, view, chosen, cursor)
    if TOPPER.is_view(view):
        return _topper_press(key, view, chosen, cursor)
    raise Refused("the table is not ready yet")


def playable(view: Engine) -> set[int] | None:
    """The slots that may be played now (Topper's play); None: no card is dimmed."""
    return _topper_playable(view) if TOPPER.is_view(view) else None


def picks_one_card(view: Engine) -> bool:
    """Whether an action takes one card (Topper's play), not several (Bluff's discard)."""
    return TOPPER.is_view(view)


def _bluff_press(key: str, view: BluffState, chosen: Sequence[HandCard],
                 cursor: HandCard | None) -> Outcome:
    if key == "p":
        return _parse("pass", view)
    if key == "b":
        return _parse("bluff", view)
    if key in ("d", "enter"):
        if not chosen:
            raise Refused("select the cards to discard first: ← → to move, space to select")
        labels = [entry.label for entry in chosen]
        probe = " as A" if view.phase is BluffPhase.LEAD else ""
        # Refuses a wrong number of cards, or a stake this seat cannot pay, before asking more.
        _parse(f"discard {' '.join(map(str, labels))}{probe}", view)
        return DiscardFlow.start(view, labels)
    raise Refused(_unknown(key, view))


def _topper_press(key: str, view: TopperState, chosen: Sequence[HandCard],
                  cursor: HandCard | None) -> Outcome:
    if key == "p":
        return _parse("pass", view)
    if key.isdigit():
        return _parse(f"bid {key}", view)
    if key in SUIT_KEYS:
        return _parse(f"trump {SUIT_KEYS[key]}", view)
    if key == "enter":
        if view.phase is not TopperPhase.PLAY:
            return _parse("play 1", view)  # refused: says which stage this is
        entry = chosen[0] if chosen else cursor
        if entry is None:
            raise Refused("you hold no card")
        return _parse(f"play {entry.label}", view)
    raise Refused(_unknown(key, view))


def _topper_playable(view: TopperState) -> set[int] | None:
    if view.phase is not TopperPhase.PLAY:
        return None
    opts = view.options()
    return set(opts.playable) if opts is not None else None


def _unknown(key: str, view: Engine) -> str:
    shown = "Space" if key == " " else key
    keys = ", ".join(f"{h.shown} {h.label}" for h in hints(view)) or "none"
    return f"the key {shown!r} does nothing here (keys now: {keys}; ? for help)"
