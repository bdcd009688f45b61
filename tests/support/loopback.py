"""Which loopback addresses this machine has: a test over ``::1`` is skipped, not
failed, where IPv6 is off (a container, a CI runner without it)."""

from __future__ import annotations

import socket

import pytest


def has_loopback_v6() -> bool:
    """Whether this machine has an IPv6 loopback (``::1``) to listen on."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


#: Marks a test that needs ``::1``.
needs_loopback_v6 = pytest.mark.skipif(not has_loopback_v6(), reason="no IPv6 loopback (::1) on this machine")
