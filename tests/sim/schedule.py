"""What one simulated run does, drawn from one integer: the :class:`Schedule`.

A schedule is data, decided before the run starts: the game, the coalition (up
to three players, the host or not) and its attacks, which links are missing or
cut and when, how long frames take, a crash, spectators, fake shuffles, and the
table's hints, pauses and leaves. :func:`schedule_for` draws one from a seed, so
one seed is one execution and a failing seed is its own reproduction
(``python scripts/simulate.py --seed N``); the variants (:func:`hint_schedule_for`,
:func:`pause_schedule_for`, :func:`leave_schedule_for`) draw from the same seed
first, then from a generator of their own, so that adding one never changes
the others' draws.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from p2pcards.protocol.session import HOST, Path

PLAYERS = 4
#: The seating: the genesis, four commits and four opens.
SEATED = 9
DEADLINE = 10.0

#: The coalition's attacks (``adversary.py`` says what each does).
ATTACKS = ("equivocate", "out_of_turn", "junk", "replay", "silent", "bad")

#: The games a schedule may play.
GAMES = ("topper", "bluff")
#: Bluff messages a coalition member may replace with a rule-breaking one.
BLUFF_BAD_TYPES = ("show", "discard", "pass", "challenge")

#: The coalition's ``hint`` breaches (:attr:`Schedule.hint_attack`): a hint at a
#: table that allows none instead of its move, a second hint right after its own
#: hint, and a hint for the position after its own move when another seat writes it.
HINT_ATTACKS = ("hint_off", "hint_twice", "hint_out_of_turn")


@dataclass
class Schedule:
    """What the adversary does in one run, drawn from ``seed`` (see :func:`schedule_for`)."""

    seed: int
    coalition: frozenset[int] = frozenset()
    #: The game played (``GAMES``).
    game: str = "topper"
    #: Players without direct links (seat 0, the host's own seat, never has any).
    no_direct: frozenset[int] = frozenset({0})
    max_delay: float = 0.2
    #: (start, end, link) with link ("host", p) or ("direct", p, q), p < q.
    cuts: list[tuple[float, float, tuple[Any, ...]]] = field(default_factory=list)
    #: Per coalition member: the paths it sends its own transcript messages on
    #: (None: all), and the chances it drops / duplicates a frame.
    paths: dict[int, frozenset[Path] | None] = field(default_factory=dict)
    drop: float = 0.0
    duplicate: float = 0.0
    #: The longest a coalition frame may be held back.
    hold: float = 0.0
    #: Attacks: see ``ATTACKS``.
    attacks: frozenset[str] = frozenset()
    #: The position a coalition member equivocates at (if its own), and the one
    #: at which it sends a rule-breaking message instead of its own (if its own).
    equivocate_at: int | None = None
    bad_at: int | None = None
    #: A coalition member that withholds (``silent``) writes nothing from here on.
    silent_from: int = 0
    #: The position a schedule stops at (None: the match's end).
    stop_at: int | None = None
    #: (player, down at, up at): its process is killed (``kill -9``), then started
    #: again from its record (finding 3).
    crash: tuple[int, float, float] | None = None
    #: Spectators asking the relay for the last 200 messages every ``flood`` s.
    spectators: int = 0
    flood: float = 0.005
    #: Bad-signature ``shuffle`` frames sent to the next shuffler (finding 2).
    fake_shuffles: int = 0
    #: With ``bad``: the rule-breaking message replaces the member's first message
    #: of this type at or after ``bad_at`` (None: the one at ``bad_at``, if its own).
    bad_type: str | None = None
    #: The genesis allows hints (``config.hints = 1``): honest players then sign a
    #: ``hint`` before some of their moves (seeded by the position, as their actions).
    hints: bool = False
    #: A coalition member's hint breach (``HINT_ATTACKS``), at its first own move
    #: in play at or after position ``hint_at`` (once a schedule).
    hint_attack: str | None = None
    hint_at: int = 0
    #: The pauses the genesis gives each player (``config.away``; 0: none): players
    #: then take one before some moves (seeded by the position).
    pauses: int = 0
    #: A coalition member writes ``away`` with no pause left instead of its first own
    #: move at or after ``hint_at`` that finds its pauses spent (taking them before).
    pause_attack: bool = False
    #: Coalition members leave (a signed ``leave`` notice to everyone) after their
    #: first own message at or after this position, each first sending, for every
    #: honest seat, a leave signed with its own key and one that seat signed at
    #: another table (neither may name that seat).
    leave_at: int | None = None

    def describe(self) -> str:
        return (f"game={self.game} seed={self.seed} coalition={sorted(self.coalition)} "
                f"no_direct={sorted(self.no_direct)} attacks={sorted(self.attacks)} "
                f"cuts={len(self.cuts)} drop={self.drop:.2f} hold={self.hold:.1f} "
                f"stop_at={self.stop_at} bad_at={self.bad_at} bad_type={self.bad_type}")


def schedule_for(seed: int, stop_at: int | None = None, game: str = "topper") -> Schedule:
    """The seeded schedule: a coalition of 0..3 players, cuts, delays, attacks, a crash,
    over the match's first ``stop_at`` positions (None: the whole match) of ``game``."""
    rng = random.Random(seed if game == "topper" else f"{game}/{seed}")
    size = rng.choice([0, 1, 1, 2, 2, 3])
    coalition = frozenset(rng.sample(range(PLAYERS), size))
    no_direct = {0} | {p for p in range(1, PLAYERS) if rng.random() < 0.2}
    span = 6 * DEADLINE if stop_at is not None and stop_at <= SEATED else 12 * DEADLINE
    last = stop_at if stop_at is not None else (45 if game == "topper" else 32)
    cuts = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        if rng.random() < 0.5:
            link: tuple[Any, ...] = ("host", rng.randrange(PLAYERS))
            if link[1] == 0 and 0 not in coalition:
                continue  # the host's own seat is in its process: its link cannot be cut
        else:
            p, q = sorted(rng.sample(range(1, PLAYERS), 2))
            link = ("direct", p, q)
        start = rng.uniform(0, span)
        cuts.append((start, start + rng.uniform(0.1, DEADLINE / 4), link))
    paths: dict[int, frozenset[Path] | None] = {}
    for member in coalition:
        if rng.random() < 0.4:
            options: list[Path] = [HOST, *[p for p in range(PLAYERS) if p != member]]
            paths[member] = frozenset(rng.sample(options, rng.randrange(len(options) + 1)))
        else:
            paths[member] = None
    attacks = {a for a in ATTACKS if coalition and rng.random() < 0.3}
    schedule = Schedule(
        seed=seed, coalition=coalition, no_direct=frozenset(no_direct),
        max_delay=rng.choice([0.01, 0.05, 0.2, 0.5]), cuts=cuts, paths=paths,
        drop=rng.choice([0.0, 0.0, 0.2, 0.6]) if coalition else 0.0,
        duplicate=rng.choice([0.0, 0.3]) if coalition else 0.0,
        hold=rng.choice([0.0, 1.0, DEADLINE / 2, 1.5 * DEADLINE]) if coalition else 0.0,
        attacks=frozenset(attacks),
        equivocate_at=rng.randrange(1, last) if "equivocate" in attacks else None,
        bad_at=rng.randrange(1, last) if "bad" in attacks else None,
        silent_from=rng.randrange(1, last) if "silent" in attacks else 0,
        stop_at=stop_at, game=game)
    # Drawn last: the draws above stay what they were before crashes were drawn.
    # A player's process (not the host's: its relay would go too) is killed and
    # started again from its record, sometimes after more than a deadline.
    if rng.random() < 0.15:
        down = rng.uniform(0, span)
        schedule.crash = (rng.randrange(1, PLAYERS), down, down + rng.uniform(0.5, 1.5 * DEADLINE))
    # Bluff's own cheats (a show with wrong or too few shares, a rule-breaking
    # discard): half of them aimed at the member's next message of that type.
    if game == "bluff" and schedule.bad_at is not None and rng.random() < 0.5:
        schedule.bad_type = rng.choice(BLUFF_BAD_TYPES)
        schedule.bad_at = rng.randrange(1, SEATED + 8)
    return schedule


def _breach_alone(schedule: Schedule, rng: random.Random) -> None:
    """Half the time, the breach without the other attacks, so that it is reached."""
    if rng.random() < 0.5:
        schedule.attacks, schedule.equivocate_at, schedule.bad_at = frozenset(), None, None


def hint_schedule_for(seed: int, hints: bool = True, game: str = "topper") -> Schedule:
    """``schedule_for(seed)`` at a table whose genesis allows hints (or not), and,
    for half the schedules with a coalition, one of its hint breaches (a second
    hint only where hints are allowed, a hint at all only where they are not)."""
    schedule = schedule_for(seed, game=game)
    rng = random.Random(f"hints/{game}/{int(hints)}/{seed}")
    schedule.hints = hints
    if schedule.coalition and rng.random() < 0.5:
        schedule.hint_attack = rng.choice(("hint_twice" if hints else "hint_off",
                                           "hint_out_of_turn"))
        schedule.hint_at = rng.randrange(SEATED + 8, 32 if game == "topper" else 24)
        _breach_alone(schedule, rng)
    return schedule


def pause_schedule_for(seed: int, pauses: int = 1, game: str = "topper") -> Schedule:
    """``schedule_for(seed)`` at a table whose genesis gives ``pauses`` pauses a
    player, and, for half the schedules with a coalition, its ``away`` with none
    left (``Schedule.pause_attack``), alone half of those times."""
    schedule = schedule_for(seed, game=game)
    rng = random.Random(f"pauses/{game}/{pauses}/{seed}")
    schedule.pauses = pauses
    if schedule.coalition and rng.random() < 0.5:
        schedule.pause_attack = True
        schedule.hint_at = rng.randrange(SEATED + 8, 32 if game == "topper" else 24)
        _breach_alone(schedule, rng)
    return schedule


def leave_schedule_for(seed: int, game: str = "topper") -> Schedule:
    """``schedule_for(seed)`` in which, for schedules with a coalition, its members
    leave at a seeded position (``Schedule.leave_at``) after forging and replaying
    leaves for the honest seats."""
    schedule = schedule_for(seed, game=game)
    rng = random.Random(f"leave/{game}/{seed}")
    if schedule.coalition:
        schedule.leave_at = rng.randrange(1, 45 if game == "topper" else 32)
    return schedule


def describe_hints(schedule: Schedule) -> str:
    """``schedule.describe()`` with its hint settings (a failing seed's replay)."""
    return (f"{schedule.describe()} hints={schedule.hints} "
            f"hint_attack={schedule.hint_attack} hint_at={schedule.hint_at} "
            f"pauses={schedule.pauses} pause_attack={schedule.pause_attack} "
            f"leave_at={schedule.leave_at}")
