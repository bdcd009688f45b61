"""The one root of every exception p2pcards raises on purpose.

Catch :class:`P2PCardsError` to catch them all; each layer's own root below
it says where a failure comes from (as trio and hypothesis document theirs)::

    P2PCardsError
    ├── CardParseError (ValueError)        a card written wrongly (cards)
    ├── CryptoError (ValueError)           a point, scalar or proof that fails (crypto)
    ├── RuleError (ValueError)             an action the rules forbid: which seat, which rule (rules)
    ├── ConfigError (ValueError)           a table setting out of range (rules)
    ├── FacesUnknown (LookupError)         a referee asked for cards it cannot see (rules)
    ├── InconsistentView (ValueError)      no deal fits what a view shows (rules)
    ├── UnknownGame (LookupError)          no game of that name, or a value of no game (rules)
    ├── ProtocolError                      a message or frame refused: which rule, player, position (protocol)
    │   ├── LocalProtocolError             this peer tried what the protocol does not allow now
    │   │   └── SeatPlayedElsewhere        another process signs for this seat: stop, naming nobody
    │   ├── RemoteProtocolError            another peer's message broke a rule (a verdict names it)
    │   ├── VerdictRefused                 a saved verdict its evidence does not support (verify)
    │   ├── EveningRefused                 a rematch's link or an "again" not about the match before (rematch_genesis)
    │   │   ├── SeatRefused, NotTheSeatTaken   a freed seat refused; a genesis misseating a newcomer (seat_fill)
    │   │   └── DroppedPlayer, KeptLeaver      a rematch contradicting a signed again/leave held (rematch_genesis)
    │   └── AnnouncementIgnored            a direct-link announcement not dialled, and why (protocol.announce)
    ├── TalkDropped, TalkRefused           a chat line dropped or not sent (protocol.talk)
    ├── NetError                           a link, handshake or transport failure (net)
    ├── StorageError, JournalInUse         saved state that cannot be used (net)
    ├── SeatAlreadySaved                   a seat's saved secrets, never overwritten (net)
    ├── InvalidName (ValueError)           a display name the others would refuse (net)
    ├── SessionRejected, WatchRefused      the host refused this peer or spectator (net)
    ├── LeaveTable, TakePause              an agent's request to the session: leave; step away (net)
    ├── StepLimitExceeded, UnknownBot      a bot's search bound; no such bot (bots)
    ├── NoAdvice (LookupError)             nothing for the coach to advise: not your turn (bots.coach)
    ├── LocalSeatLate, TableEndedWhileAway a seat of this process late; a host back too late (app)
    ├── CommandError, ...                  a player's typed command or the UI's input (ui)
    ├── RecordNotFound                     no saved record, or several, for a session id typed (records)
    └── UserError                          a command that cannot run as given (commands)
        └── TableUnreachable               resume reached no host: which, why; the table is kept

This module imports nothing, so every layer may import it.
"""

from __future__ import annotations


class P2PCardsError(Exception):
    """Base of every exception p2pcards raises on purpose."""


__all__ = ["P2PCardsError"]
