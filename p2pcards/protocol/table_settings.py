"""The genesis configuration keys the table itself reads, and their checks.

The host's ``config`` in the genesis message may set a table clock
(``move_time``), pauses (``away``) and hints (``hints``); every peer checks the
same values the same way, so the rules that use them (the deadline, a pause, a
hint) are decided alike everywhere. Kept apart from the state machine in
:mod:`p2pcards.protocol.table` because the front ends and the network layer
read these keys without needing a table.
"""

from __future__ import annotations

from p2pcards.protocol.errors import MalformedMessage

#: The genesis configuration's table clock: seconds each writer has per message.
MOVE_TIME = "move_time"
#: The longest a table may give a writer (one hour); 0 means no limit.
MAX_MOVE_TIME = 3600


def move_time_of(value: int | None) -> int | None:
    """The table clock a genesis sets: its ``move_time`` (0..3600, 0 = no limit), or
    None when it sets none (each peer then keeps its own, as before the setting)."""
    if value is None:
        return None
    if not 0 <= value <= MAX_MOVE_TIME:
        raise MalformedMessage(f"config: move_time must be 0..{MAX_MOVE_TIME} seconds, not {value}")
    return value


#: The genesis configuration's pauses: how many times each player may write
#: ``away`` (absent: none), each giving him ``PAUSE_SECONDS`` more for that move.
PAUSES = "away"
MAX_PAUSES = 9
PAUSE_SECONDS = 300

#: The genesis configuration's hints: whether a player may write ``hint`` (1) or not
#: (0, absent), so that every peer knows which seats the coach advised.
HINTS = "hints"


def hints_of(value: int | None) -> bool:
    """Whether a genesis allows hints (``hints``: 0 or 1; absent: no)."""
    if value is None:
        return False
    if value not in (0, 1):
        raise MalformedMessage(f"config: hints must be 0 or 1, not {value}")
    return value == 1


def pauses_of(value: int | None) -> int:
    """How many pauses a genesis gives each player (0..9; absent: 0)."""
    if value is None:
        return 0
    if not 0 <= value <= MAX_PAUSES:
        raise MalformedMessage(f"config: away must be 0..{MAX_PAUSES} pauses, not {value}")
    return value
