"""Layer 8: the bodies of the ``p2pcards`` commands, one module per idea.

:mod:`p2pcards.cli` parses the options and hands them to ``cmd_*`` here:
``hosting`` (play, host), ``finding`` (tables, and how join and watch pick a
table), ``joining`` (join, watch), ``resuming`` (resume), ``checking``
(verify, replay), ``listing`` (saved, standings); ``rematching`` (``--again N``, and
a seat back at its end box: the evening itself is :mod:`p2pcards.evening`'s);
``identity``, ``settings``, ``seated`` and ``printed`` are what several of them share.
"""

from __future__ import annotations

from p2pcards.errors import P2PCardsError


class UserError(P2PCardsError):
    """A command that cannot run as given: one sentence for the person, exit 2."""


class TableUnreachable(UserError):
    """A saved table's host that ``resume`` could not reach: which table and host,
    why in words, and what to do; the table is kept in play (nobody is blamed)."""
