"""The command line's switches for direct links reach the session."""

from __future__ import annotations

from p2pcards.app.joined import joining_session
from p2pcards.commands.options import build_parser
from p2pcards.protocol.identity import Identity


def test_join_and_resume_take_the_direct_link_switches() -> None:
    parser = build_parser()
    plain = parser.parse_args(["join", "--connect", "127.0.0.1:1"])
    assert not plain.no_listen and not plain.no_direct
    args = parser.parse_args(["join", "--connect", "127.0.0.1:1", "--no-listen", "--no-direct"])
    assert args.no_listen and args.no_direct
    resumed = parser.parse_args(["resume", "abcd", "--no-listen"])
    assert resumed.no_listen and not resumed.no_direct


def test_a_joiner_links_directly_unless_told_not_to() -> None:
    me = Identity.generate("me")
    session = joining_session(me, agent=None, host="127.0.0.1", port=1)  # type: ignore[arg-type]  # never plays
    assert session.direct and session.links.listen
    quiet = joining_session(me, agent=None, host="127.0.0.1", port=1,  # type: ignore[arg-type]
                            direct=False, listen=False)
    assert not quiet.direct and not quiet.links.listen
