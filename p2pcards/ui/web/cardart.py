"""The cards of the browser table, drawn as SVG by this module: faces, the back, the icon.

No image or font comes from anywhere else: the suits are paths drawn here,
the ranks are text in the browser's own serif font, the pips of a number
card stand where they stand on a printed deck. Each drawing is a small,
self-contained SVG document the page shows as an image (``/cards/QH.svg``),
so the page's strict Content-Security-Policy holds for them too.
"""

from __future__ import annotations

from functools import lru_cache

from p2pcards.cards import FULL_DECK, Card, Rank, Suit

#: The card's size in SVG units (a poker card's 5:7).
WIDTH, HEIGHT = 200, 280
RED, BLACK = "#c8102e", "#16181d"
BACK = "back"
#: Every card's name in a URL: ``QH``, ``10S``, and ``back``.
NAMES = frozenset(card.ascii for card in FULL_DECK) | {BACK}

#: The suits as paths in a 100 x 100 box (drawn here, not taken from a font).
_SUIT_PATHS = {
    Suit.HEARTS: "M50 90C20 66 4 48 4 29C4 13 16 4 29 4C39 4 46 10 50 19C54 10 61 4 71 4"
                 "C84 4 96 13 96 29C96 48 80 66 50 90Z",
    Suit.DIAMONDS: "M50 3Q66 28 89 50Q66 72 50 97Q34 72 11 50Q34 28 50 3Z",
    Suit.SPADES: "M50 4C60 22 95 38 95 61C95 75 85 84 72 84C62 84 56 79 53 72C54 82 59 90 68 96"
                 "H32C41 90 46 82 47 72C44 79 38 84 28 84C15 84 5 75 5 61C5 38 40 22 50 4Z",
    Suit.CLUBS: "M50 6A21 21 0 0 1 66 41A21 21 0 1 1 56 74C57 83 61 90 68 96H32C39 90 43 83 44 74"
                "A21 21 0 1 1 34 41A21 21 0 0 1 50 6Z",
}

#: Where a number card's pips stand (x, y) on the card, as on a printed deck.
_LEFT, _MID, _RIGHT = 64, 100, 136
_TOP, _BOTTOM = 60, 220
_CENTRE = (_TOP + _BOTTOM) // 2
_FOUR_ROWS = (60, 113, 167, 220)
_PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    2: ((_MID, _TOP), (_MID, _BOTTOM)),
    3: ((_MID, _TOP), (_MID, _CENTRE), (_MID, _BOTTOM)),
    4: ((_LEFT, _TOP), (_RIGHT, _TOP), (_LEFT, _BOTTOM), (_RIGHT, _BOTTOM)),
    5: ((_LEFT, _TOP), (_RIGHT, _TOP), (_MID, _CENTRE), (_LEFT, _BOTTOM), (_RIGHT, _BOTTOM)),
    6: ((_LEFT, _TOP), (_RIGHT, _TOP), (_LEFT, _CENTRE), (_RIGHT, _CENTRE), (_LEFT, _BOTTOM),
        (_RIGHT, _BOTTOM)),
}
_PIPS[7] = _PIPS[6] + ((_MID, (_TOP + _CENTRE) // 2),)
_PIPS[8] = _PIPS[7] + ((_MID, (_CENTRE + _BOTTOM) // 2),)
_PIPS[9] = tuple((x, y) for y in _FOUR_ROWS for x in (_LEFT, _RIGHT)) + ((_MID, _CENTRE),)
_PIPS[10] = tuple((x, y) for y in _FOUR_ROWS for x in (_LEFT, _RIGHT)) + ((_MID, 86), (_MID, 194))

_RANK_NAMES = {Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king", Rank.ACE: "ace"}
_FONT = "Georgia, 'DejaVu Serif', 'Times New Roman', serif"


def card_name(card: Card) -> str:
    """``queen of hearts``: what a screen reader says for a card."""
    rank = _RANK_NAMES.get(card.rank, card.rank.label)
    return f"{rank} of {card.suit.name.lower()}"


def _suit(suit: Suit, x: float, y: float, size: float, upside_down: bool = False) -> str:
    """One suit mark of ``size`` units centred on (x, y)."""
    scale = size / 100
    turn = f" rotate(180 {x:g} {y:g})" if upside_down else ""
    return (f'<path transform="{turn.strip()} translate({x - size / 2:g} {y - size / 2:g}) '
            f'scale({scale:g})" d="{_SUIT_PATHS[suit]}"/>')


def _corner(card: Card) -> str:
    """The index in the top-left corner: the rank over a small suit."""
    narrow = ' letter-spacing="-3"' if card.rank == Rank.TEN else ""
    size = 33 if narrow else 40
    return (f'<text x="25" y="46" font-size="{size}" font-family="{_FONT}" font-weight="bold" '
            f'text-anchor="middle"{narrow}>{card.rank.label}</text>'
            + _suit(card.suit, 25, 68, 24))


def _face_picture(card: Card, colour: str) -> str:
    """A court card's picture: a framed panel, a crown or a plume, the rank's letter."""
    accent = "#d9a520"
    panel = (f'<rect x="44" y="44" width="112" height="192" rx="8" fill="#fbf3df" '
             f'stroke="{colour}" stroke-width="3"/>'
             f'<rect x="50" y="50" width="100" height="180" rx="5" fill="none" '
             f'stroke="{accent}" stroke-width="2" stroke-dasharray="6 4"/>')
    if card.rank == Rank.KING:
        headwear = (f'<path d="M70 98 L74 70 L87 86 L100 64 L113 86 L126 70 L130 98 Z" '
                    f'fill="{accent}" stroke="{colour}" stroke-width="2"/>')
    elif card.rank == Rank.QUEEN:
        headwear = (f'<path d="M76 98 Q78 80 88 74 Q100 86 112 74 Q122 80 124 98 Z" '
                    f'fill="{accent}" stroke="{colour}" stroke-width="2"/>'
                    f'<circle cx="100" cy="72" r="6" fill="{colour}"/>')
    else:
        headwear = (f'<path d="M78 98 Q84 74 104 72 Q120 74 124 98 Z" fill="{accent}" '
                    f'stroke="{colour}" stroke-width="2"/>'
                    f'<path d="M112 74 Q130 56 140 62 Q128 66 118 80 Z" fill="{colour}"/>')
    letter = (f'<text x="100" y="172" font-size="76" font-family="{_FONT}" font-weight="bold" '
              f'text-anchor="middle">{card.rank.label}</text>')
    pips = _suit(card.suit, 66, 210, 26) + _suit(card.suit, 134, 210, 26)
    return panel + headwear + f'<g fill="{colour}">{letter}{pips}</g>'


def _centre(card: Card, colour: str) -> str:
    if card.rank >= Rank.JACK and card.rank != Rank.ACE:
        return _face_picture(card, colour)
    if card.rank == Rank.ACE:
        size = 110 if card.suit == Suit.SPADES else 88
        return f'<g fill="{colour}">{_suit(card.suit, 100, 140, size)}</g>'
    pips = "".join(_suit(card.suit, x, y, 38, upside_down=y > _CENTRE)
                   for x, y in _PIPS[int(card.rank)])
    return f'<g fill="{colour}">{pips}</g>'


def _document(title: str, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'width="{WIDTH}" height="{HEIGHT}" role="img"><title>{title}</title>{body}</svg>')


def _blank(fill: str) -> str:
    """The card's outline: rounded, with a soft edge."""
    return (f'<rect x="2" y="2" width="{WIDTH - 4}" height="{HEIGHT - 4}" rx="16" fill="{fill}" '
            f'stroke="#9a968c" stroke-width="2"/>')


def face_svg(card: Card) -> str:
    """The face of ``card`` as an SVG document."""
    colour = RED if card.suit.is_red else BLACK
    corner = _corner(card)
    body = (_blank("#fffdf7")
            + f'<g fill="{colour}">{corner}'
            f'<g transform="rotate(180 {WIDTH / 2:g} {HEIGHT / 2:g})">{corner}</g></g>'
            + _centre(card, colour))
    return _document(card_name(card), body)


def back_svg() -> str:
    """The back every hidden card shows: a deep red lattice inside a white border."""
    lattice = "".join(
        f'<path d="M{x} 18 L{x + 160} 262" stroke="#e9c46a" stroke-opacity="0.35" '
        f'stroke-width="3"/><path d="M{x + 160} 18 L{x} 262" stroke="#e9c46a" '
        f'stroke-opacity="0.35" stroke-width="3"/>' for x in range(-150, 200, 24))
    body = (_blank("#fffdf7")
            + '<defs><clipPath id="inner"><rect x="16" y="16" width="168" height="248" rx="10"/>'
              '</clipPath></defs>'
            + '<rect x="16" y="16" width="168" height="248" rx="10" fill="#7d1d2c"/>'
            + f'<g clip-path="url(#inner)">{lattice}</g>'
            + '<rect x="16" y="16" width="168" height="248" rx="10" fill="none" '
              'stroke="#e9c46a" stroke-width="3"/>'
            + '<circle cx="100" cy="140" r="30" fill="#7d1d2c" stroke="#e9c46a" stroke-width="3"/>'
            + f'<g fill="#e9c46a">{_suit(Suit.SPADES, 100, 140, 34)}</g>')
    return _document("a card face down", body)


def icon_svg() -> str:
    """The page's icon: a spade on the felt."""
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
            '<rect width="100" height="100" rx="20" fill="#1f6b40"/>'
            f'<g fill="#fffdf7">{_suit(Suit.SPADES, 50, 50, 70)}</g></svg>')


@lru_cache(maxsize=64)
def drawing(name: str) -> str:
    """The SVG of a card by its URL name (``QH``, ``10S``, ``back``); KeyError for another."""
    if name not in NAMES:
        raise KeyError(name)
    return back_svg() if name == BACK else face_svg(Card.parse(name))
