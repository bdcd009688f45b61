"""The judge of a simulated evening (``tests/sim/evening.py``, whose docstring lists
what is judged): the counts, the end boxes' lives, the rematch's check and its
opening."""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.protocol.again import AGAIN, AgainCount, sign_choice
from p2pcards.protocol.end_box import Ending
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import After, EveningRefused, rotated_seats
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.seats import SEATS

from . import evening as evening_module
from .evening_rematch import FORGERIES, contradiction, filler, forged_genesis, honest_genesis, open_rematch
from .schedule import PLAYERS

if TYPE_CHECKING:
    from .evening import Evening, EveningOutcome

#: Endings that are the host's word (the end box heard how the evening ended).
STATED = (Ending.REMATCH, Ending.TIMED_OUT, Ending.HOST_LEFT)


def judge_evening(ev: Evening) -> EveningOutcome:
    """Judge a run evening; its outcome with every failure found."""
    _judge_counts(ev)
    _judge_lives(ev)
    outcome = evening_module.EveningOutcome(
        ev.plan, ev.failures, {p: box.count for p, box in ev.boxes.items()},
        refused_frames=ev.refused_frames + sum(b.dropped for b in ev.boxes.values()),
        endings=dict(ev.endings), host_closed_at=ev.host_closed_at,
        presence_frames=ev.presence_frames)
    if not ev.hostile_host:
        outcome.counts[0] = ev.host_count
    _rematch(ev, outcome)
    return outcome


def _judge_counts(ev: Evening) -> None:
    """Every honest count agrees with each honest seat's choice; with an honest host,
    an end box that heard the host's word holds what the host's count holds."""
    counters: dict[int, AgainCount] = {p: box.count for p, box in ev.boxes.items()}
    if not ev.hostile_host:
        counters[0] = ev.host_count
    for counter, count in counters.items():
        for seat in ev.honest:
            got, chose = count.choices.get(seat), ev.plan.choices[seat]
            if got is not None and got != chose:
                ev.failures.append(f"player {counter}'s count has honest player {seat} "
                                   f"choosing {got!r}; it chose {chose!r}")
    if ev.hostile_host:
        return
    host = ev.host_count
    closed = ev.host_closed_at
    for player, box in ev.boxes.items():
        ending = ev.endings.get(player, (None, 0.0))[0]
        if ending not in STATED:
            continue
        chosen = ev.chosen_at.get(player)
        if chosen is not None and closed is not None and chosen < closed - 1.0 \
                and player not in host.choices and player not in host.filled:
            ev.failures.append(f"the host's count never heard honest player {player}'s "
                               f"{ev.plan.choices[player]!r} (chosen at {chosen:.1f}, the "
                               f"host closed at {closed:.1f})")
        if box.count.choices != host.choices or box.count.filled != host.filled:
            ev.failures.append(f"player {player}'s end box heard the host's word ({ending}) "
                               f"holding {box.count.choices} filled {sorted(box.count.filled)}; "
                               f"the host counted {host.choices} filled {sorted(host.filled)}")


def _judge_lives(ev: Evening) -> None:
    """With an honest host, no honest end box ends before the host's end box closed
    (presence churn, pings and junk end none early), and none is refused."""
    for player, box in ev.boxes.items():
        if player not in ev.endings:
            ev.failures.append(f"player {player}'s end box never ended (it listens until "
                               f"{box.closes_at:.1f})")
            continue
        ending, when = ev.endings[player]
        if ev.hostile_host or ending is Ending.LEFT or player in ev.blackout:
            continue  # (a link cut off by the schedule may end early: the host is gone to it)
        if ending is Ending.REFUSED:
            ev.failures.append(f"the honest host refused honest player {player}'s end box: "
                               f"{box.reason}")
        closed = ev.host_closed_at
        if closed is None or when < closed:
            ev.failures.append(f"player {player}'s end box ended ({ending.name}) at {when:.2f}, "
                               f"before the host's end box closed (at {closed})")


def _claimed_count(ev: Evening) -> AgainCount:
    """A hostile host's count: whatever it likes, every seat as the plan chose."""
    count = AgainCount(ev.finished, ev.keys)
    for p in range(PLAYERS):
        choice = AGAIN if p == 0 else ev.plan.choices[p]
        count.receive(sign_choice(ev.identities[p], ev.finished, p, choice).raw)
    for player in count.free:
        bot = filler(player)
        count.fill(player, bot.public_key, bot.name)
    return count


def _genesis(ev: Evening) -> tuple[bytes | None, AgainCount]:
    if not ev.hostile_host:
        if ev.lobby.ending is not Ending.REMATCH:
            return None, ev.host_count
        return honest_genesis(ev.identities[0], ev.host_count, ev.names, ev.game, ev.config,
                              ev.table_name, ev.plan.seed), ev.host_count
    count = _claimed_count(ev)
    if not count.ready:
        return None, count
    if ev.plan.forgery is None:
        return honest_genesis(ev.identities[0], count, ev.names, ev.game, ev.config,
                              ev.table_name, ev.plan.seed), count
    nonce = b"\x00" * 31 + bytes([ev.plan.seed % 256])
    return forged_genesis(ev.identities[0], count, ev.finished, ev.names, ev.game, ev.config,
                          ev.table_name, ev.plan.forgery, evening_module.dropped_of(ev.plan),
                          nonce), count


def _rematch(ev: Evening, outcome: EveningOutcome) -> None:
    """Every honest again-chooser told the rematch opens (or that lost the host)
    checks the genesis with its own count; then the rematch's opening, judged."""
    genesis, count = _genesis(ev)
    outcome.genesis = genesis
    if genesis is None:
        return
    keys = [key for key, _name in SignedMessage.parse(genesis).body["players"]]
    writers: dict[int, Identity] = {0: ev.identities[0]}
    bots = {filler(p).public_key: filler(p) for p in range(PLAYERS)}
    usurper = seeded_identity(23, "usurper", "u")
    bots[usurper.public_key] = usurper
    for index, key in enumerate(keys):
        if key in bots:
            writers[index] = bots[key]
    for player, box in ev.boxes.items():
        if box.mine is None or box.mine.choice != AGAIN:
            continue  # it chose nothing (its end box ended first), or it left
        ending = ev.endings.get(player, (None, 0.0))[0]
        if ending not in (Ending.REMATCH, Ending.HOST_GONE):
            continue
        joined = _check(ev, outcome, player, box.count, genesis, keys)
        if joined:
            writers[keys.index(ev.keys[player])] = ev.identities[player]
    opening = open_rematch(genesis, writers, host_answers=not ev.hostile_host)
    outcome.verdicts = dict(opening.verdicts)
    if not ev.hostile_host and len(writers) == len(keys) \
            and any(v is not None for v in opening.verdicts.values()):
        ev.failures.append(f"every player of the honest host's rematch wrote, yet its opening "
                           f"ended: {opening.verdicts}")
    honest_keys = {ev.keys[p] for p in ev.honest}
    if not ev.hostile_host:
        honest_keys |= {k for k in bots if k != usurper.public_key}
    honest_index = {i for i, key in enumerate(keys) if key in honest_keys}
    for index, verdict in opening.verdicts.items():
        if index not in honest_index or not isinstance(verdict, Verdict):
            continue
        named = set(verdict.players) & honest_index
        if named:
            who = [keys[i].hex()[:8] for i in sorted(named)]
            chooser = any(keys[i] in honest_keys and ev.plan.choices.get(
                ev.keys.index(keys[i]) if keys[i] in ev.keys else -1) == AGAIN
                for i in named)
            ev.failures.append(f"in the rematch's opening, honest peer {index} named honest "
                               f"{who} ({verdict.rule}: {verdict.detail})"
                               + (" — an again-chooser" if chooser else ""))


def _judge_rotation(ev: Evening, genesis: bytes, player: int) -> None:
    """The rematch seats each player of the match before one seat on (§14)."""
    body = SignedMessage.parse(genesis).body
    keys = [key for key, _name in body["players"]]
    after = After.from_wire(body["after"])
    seats = rotated_seats(after, keys)
    for previous, key in enumerate(after.seats):
        if key in keys and keys[seats[(previous + 1) % SEATS]] != key:
            ev.failures.append(f"player {player}: the rematch does not seat the player of "
                               f"seat {previous} at seat {(previous + 1) % SEATS}")


def _check(ev: Evening, outcome: EveningOutcome, player: int, held: AgainCount, genesis: bytes,
           keys: list[bytes]) -> bool:
    """One honest joiner's check of the genesis, judged; whether it joined."""
    owed = contradiction(held, keys)
    forgery = ev.plan.forgery
    if forgery in (None, "drop"):
        expected = owed  # what this end box holds decides (a hostile host may withhold)
        if owed is not None and not ev.hostile_host and held.choices == ev.host_count.choices:
            ev.failures.append(f"the honest host's rematch contradicts player {player}'s "
                               f"count ({owed.__name__}), which holds what the host counted")
    else:
        expected = FORGERIES[forgery]  # the link is checked first
    if forgery == "drop" and player == evening_module.dropped_of(ev.plan) and expected is None:
        ev.failures.append(f"the dropped player {player} is owed no refusal")
    try:
        evening_module.check_rematch(genesis, ev.finished, held)
    except EveningRefused as refused:
        outcome.joined[player], outcome.refusals[player] = False, refused
        if type(refused) is not expected:
            ev.failures.append(f"player {player} refused the rematch with "
                               f"{type(refused).__name__} ({refused}); expected "
                               f"{expected and expected.__name__}")
        return False
    outcome.joined[player] = True
    if expected is not None:
        ev.failures.append(f"player {player} joined a forged rematch ({forgery}; owed "
                           f"{expected.__name__})")
        return False
    _judge_rotation(ev, genesis, player)
    return True
