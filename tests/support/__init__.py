"""What the suite's tests share: bounded waits (``until``, ``eventually``) and simulated
LANs in network namespaces (``tests.support.netns``, its fixtures registered by
``tests/conftest.py``)."""

from tests.support.polling import TIMEOUT, WaitTimedOut, eventually, until

__all__ = ["TIMEOUT", "WaitTimedOut", "eventually", "until"]
