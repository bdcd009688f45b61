"""The relay's end box (sans-IO): ``again`` frames checked, kept once, shown to every
link at the end box (and again to a link that arrives later, with the fills and the
host's word); and a rematch's lobby that seats only the evening's players,
in the finished match's join order, under a genesis naming the match before."""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.protocol import frames
from p2pcards.protocol.again import AGAIN, LEAVE, sign_choice
from p2pcards.protocol.envelope import PROTOCOL_VERSION, SignedMessage
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import AgainHeard, Close, Dropped, Persist, Relay, Send
from p2pcards.protocol.relay import Output as RelayOutput
from p2pcards.protocol.rematch_genesis import After, FinishedMatch, Rematch


def hello(name: str) -> bytes:
    return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": name, "sid": b"", "have": 0,
                                   "bot": 0})


def started(ids: list[Identity], rematch: Rematch | None = None,
            order: Sequence[int] | None = None) -> tuple[Relay, list[RelayOutput]]:
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32),
                  rematch=rematch)
    outputs: list[RelayOutput] = []
    for link in order or range(4):
        relay.connected(link + 1, ids[link].public_key)
        outputs += relay.frame(link + 1, hello(ids[link].name))
    return relay, outputs


def ids_() -> list[Identity]:
    return [Identity.generate(f"p{i}") for i in range(4)]


def finished_of(relay: Relay) -> FinishedMatch:
    assert relay.session is not None
    return FinishedMatch(relay.session, bytes(range(32)), tuple(bytes([i]) * 32 for i in range(4)))


def again_frame(identity: Identity, finished: FinishedMatch, player: int, choice: str) -> bytes:
    return frames.encode("again", sign_choice(identity, finished, player, choice).raw)


def _sent(out: Sequence[RelayOutput]) -> list[tuple[int, str]]:
    return [(o.link, frames.decode(o.frame).kind) for o in out if isinstance(o, Send)]


def test_a_choice_is_kept_once_and_shown_at_every_end_box() -> None:
    ids = ids_()
    relay, _ = started(ids)
    finished = finished_of(relay)
    out = relay.frame(2, again_frame(ids[1], finished, 1, AGAIN))
    # Kept and counted, and shown to every seated link (its sender's too: a receipt).
    assert isinstance(out[-1], AgainHeard) and _sent(out[:-1]) == [(n, "again") for n in (1, 2, 3, 4)]
    out = relay.frame(3, again_frame(ids[2], finished, 2, LEAVE))
    assert isinstance(out[-1], AgainHeard) and _sent(out[:-1]) == [(n, "again") for n in (1, 2, 3, 4)]
    # A copy (a new link of the same end box sends it again): only a receipt to it.
    assert _sent(relay.frame(3, again_frame(ids[2], finished, 2, LEAVE))) == [(3, "again")]


def test_a_link_arriving_at_the_end_box_is_shown_every_choice_fill_and_the_hosts_word() -> None:
    """An end box that lost its link (or a player coming back) dials again: its hello
    is answered with every choice and fill kept, then the host's word on the end box,
    its time left counted down on the relay's clock (so a leave sent while its link
    was down is not lost to it)."""
    ids = ids_()
    now = [100.0]
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32),
                  clock=lambda: now[0])
    for link in range(4):
        relay.connected(link + 1, ids[link].public_key)
        relay.frame(link + 1, hello(ids[link].name))
    finished = finished_of(relay)
    relay.frame(2, again_frame(ids[1], finished, 1, AGAIN))
    relay.frame(2, again_frame(ids[1], finished, 1, LEAVE))
    relay.tell_fill({"v": PROTOCOL_VERSION, "sid": relay.session, "final": finished.final,
                     "from": 1, "seat": 0, "key": bytes(32), "name": "Dee", "bot": 1})
    assert _sent(relay.tell_end_box(120, 0)) == [(n, "endbox") for n in (1, 2, 3, 4)]
    relay.disconnected(3)
    now[0] += 30
    relay.connected(7, ids[2].public_key)
    shown = [frames.decode(o.frame) for o in relay.frame(7, hello(ids[2].name))
             if isinstance(o, Send)]
    kinds = [f.kind for f in shown]
    assert kinds[-4:] == ["again", "again", "fill", "endbox"], kinds
    assert shown[-1].body == {"left": 90, "end": 0}
    relay.tell_end_box(0, 2)  # the end box timed out: said as it is, with no time left
    relay.connected(8, ids[3].public_key)
    last = [frames.decode(o.frame) for o in relay.frame(8, hello(ids[3].name))
            if isinstance(o, Send)][-1]
    assert last.kind == "endbox" and last.body == {"left": 0, "end": 2}


def test_a_player_whose_seat_went_to_someone_else_is_closed_and_refused() -> None:
    ids = ids_()
    relay, _ = started(ids)
    out = relay.evict(ids[3].public_key)
    assert _sent(out) == [(4, "reject")] and isinstance(out[-1], Close)
    relay.disconnected(4)
    relay.connected(9, ids[3].public_key)
    refused = relay.frame(9, hello(ids[3].name))
    assert isinstance(refused[-1], Close) and "went to someone else" in refused[-1].reason


def test_a_choice_about_another_session_or_by_another_player_is_dropped() -> None:
    ids = ids_()
    relay, _ = started(ids)
    finished = finished_of(relay)
    other = FinishedMatch(bytes(32), finished.final, finished.seats)
    assert isinstance(relay.frame(2, again_frame(ids[1], other, 1, AGAIN))[0], Dropped)
    # Player 1's link carrying player 2's choice (signed by player 2): not its own.
    assert isinstance(relay.frame(2, again_frame(ids[2], finished, 2, AGAIN))[0], Dropped)
    # Player 1 naming itself with a key that is not its own: a bad signature.
    assert isinstance(relay.frame(2, again_frame(ids[3], finished, 1, AGAIN))[0], Dropped)
    assert relay.choices == []


def test_a_choice_before_the_table_started_closes_the_link() -> None:
    ids = ids_()
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32))
    relay.connected(2, ids[1].public_key)
    relay.frame(2, hello("p1"))
    fake = FinishedMatch(bytes(32), bytes(32), tuple(bytes([i]) * 32 for i in range(4)))
    assert isinstance(relay.frame(2, again_frame(ids[1], fake, 1, AGAIN))[-1], Close)


def test_a_rematch_seats_only_its_players_in_the_old_join_order_and_names_the_match_before() -> None:
    ids = ids_()
    stranger = Identity.generate("x")
    after = After(bytes(32), bytes(range(32)), tuple(i.public_key for i in ids))
    rematch = Rematch(tuple(i.public_key for i in ids), after)
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32),
                  rematch=rematch)
    relay.connected(1, ids[0].public_key)
    relay.frame(1, hello("p0"))
    relay.connected(9, stranger.public_key)
    refused = relay.frame(9, hello("x"))
    assert isinstance(refused[-1], Close) and "rematch" in refused[-1].reason
    outputs: list[RelayOutput] = []
    for link in (3, 1, 2):  # they come back in another order than they first joined
        relay.connected(link + 1, ids[link].public_key)
        outputs += relay.frame(link + 1, hello(ids[link].name))
    genesis = SignedMessage.parse(next(o for o in outputs if isinstance(o, Persist)).raw)
    assert [bytes(p[0]) for p in genesis.body["players"]] == [i.public_key for i in ids]
    assert After.from_wire(genesis.body["after"]) == after


def test_a_player_signing_choices_about_other_ends_cannot_crowd_out_the_others() -> None:
    """A player may sign any number of choices about this session with other final
    digests (the relay cannot tell the right end; every count refuses them): the
    relay keeps at most two of one player's, so the choices of the players who
    choose after him are still kept, counted by the host and shown at every end box."""
    ids = ids_()
    relay, _ = started(ids)
    finished = finished_of(relay)
    for n in range(8):
        other_end = FinishedMatch(finished.session, bytes([n + 100]) * 32, finished.seats)
        relay.frame(2, again_frame(ids[1], other_end, 1, AGAIN))
    out = relay.frame(3, again_frame(ids[2], finished, 2, AGAIN))
    heard = [o for o in out if isinstance(o, AgainHeard)]
    assert len(heard) == 1 and heard[0].raw == sign_choice(ids[2], finished, 2, AGAIN).raw
    assert len(relay.choices) == 3
    assert (2, "again") in _sent(out)


def test_a_newcomers_hello_asks_for_a_freed_seat_only_while_the_end_box_has_one() -> None:
    from p2pcards.protocol.relay import TakeAsked

    ids = ids_()
    relay, _ = started(ids)
    newcomer = Identity.generate("nia")
    relay.connected(9, newcomer.public_key)
    refused = relay.frame(9, hello("nia"))  # no seat free: the table started without it
    assert isinstance(refused[-1], Close) and "started without you" in refused[-1].reason
    relay.seats_open = True
    relay.connected(10, newcomer.public_key)
    asked = relay.frame(10, hello("nia"))
    assert asked == [TakeAsked(10, newcomer.public_key, "nia", False)] and relay.hears(10)
    # The host's fill goes to every end box and to the newcomer.
    relay.frame(2, again_frame(ids[1], finished_of(relay), 1, AGAIN))
    body = {"v": PROTOCOL_VERSION, "sid": relay.session, "final": bytes(32), "from": 3,
            "seat": 0, "key": newcomer.public_key, "name": "nia", "bot": 0}
    sent = relay.tell_fill(body)
    assert all(isinstance(o, Send) for o in sent)
    assert _sent(sent) == [(n, "fill") for n in (1, 2, 3, 4, 10)]
    # A newcomer says nothing after its hello: anything else closes its link.
    assert isinstance(relay.frame(10, frames.encode("ping", {"n": 1}))[-1], Close)


def test_a_newcomer_the_host_gives_no_seat_is_told_why_and_closed() -> None:
    ids = ids_()
    relay, _ = started(ids)
    relay.seats_open = True
    newcomer = Identity.generate("nia")
    relay.connected(10, newcomer.public_key)
    relay.frame(10, hello("nia"))
    out = relay.refuse_taker(10, "no seat is free at this table's end box")
    told = out[0]
    assert isinstance(told, Send)
    assert frames.decode(told.frame).kind == "reject" and isinstance(out[1], Close)
    assert relay.refuse_taker(10, "again") == []  # told once
