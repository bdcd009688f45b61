"""Deterministic simulations of the protocol: seeded schedules, an adversary, a judge.

The match (``simulation.py``, the run): ``schedule.py`` draws what one run does
from one integer, ``clock.py`` runs it, ``links.py`` carries its frames,
``tables.py`` seats the seeded players with crypto computed once,
``adversary.py`` is the coalition, ``peer.py`` one player's process, and
``judge.py`` what a finished run owes each honest peer (its docstring maps every
verdict rule to where it is checked both ways); ``sweeps.py`` is what the seeded
sweeps assert. The evening after a match: ``evening.py``, with
``evening_coalition.py``, ``evening_rematch.py`` and ``evening_judge.py``. A
failing seed replays with ``python scripts/simulate.py --seed N``.
"""
