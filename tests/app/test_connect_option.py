"""``--connect HOST:PORT`` as people type it, IPv6 included."""

from __future__ import annotations

import pytest

from p2pcards.commands import UserError
from p2pcards.commands.finding import host_port as _host_port


def test_connect_takes_ipv6_in_brackets_with_a_zone_and_refuses_it_bare() -> None:
    assert _host_port("[fd77::1]:4000") == ("fd77::1", 4000)
    assert _host_port("[fe80::1%eth0]:4000") == ("fe80::1%eth0", 4000)
    assert _host_port("10.0.0.5:4000") == ("10.0.0.5", 4000)
    assert _host_port("laptop.local:4000") == ("laptop.local", 4000)
    for bad in ("fd77::1:4000", "[fd77::1]4000", "[fd77::1]", "10.0.0.5", ":4000", "10.0.0.5:0", "h:99999"):
        with pytest.raises(UserError):
            _host_port(bad)
