"""Where a table's work runs (``p2pcards.net.work_place``): a small message's check
and a small step's write on the event loop's own thread, a large message's check and
a shuffle's or shares' write in a worker thread; either way the job's result (or its
error) comes back as it was."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import cast

import pytest

from p2pcards.net import work_place
from p2pcards.net.same_bytes import SAME_MESSAGE
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage


def _where() -> threading.Thread:
    return threading.current_thread()


@pytest.mark.asyncio
async def test_a_small_message_is_checked_on_the_loop_and_a_large_one_in_a_worker() -> None:
    loop_thread = threading.current_thread()
    small = b"s" * work_place.SMALL_MESSAGE_BYTES
    large = b"l" * (work_place.SMALL_MESSAGE_BYTES + 1)
    assert await work_place.check(small, _where) is loop_thread
    assert await work_place.check(large, _where) is not loop_thread
    assert len(SAME_MESSAGE) == 0  # neither left a gate behind


@pytest.mark.asyncio
async def test_a_check_on_the_loop_raises_the_jobs_error_as_a_worker_would() -> None:
    def refuse() -> None:
        raise ProtocolError("refused here")

    for raw in (b"x" * 10, b"y" * (work_place.SMALL_MESSAGE_BYTES + 1)):
        with pytest.raises(ProtocolError, match="refused here"):
            await work_place.check(raw, refuse)
    assert len(SAME_MESSAGE) == 0


@pytest.mark.asyncio
@pytest.mark.parametrize("stage, on_loop", [
    (Stage.COMMIT, True), (Stage.OPEN, True), (Stage.PLAY, True),
    (Stage.SHUFFLE, False), (Stage.SHARES, False),
])
async def test_a_step_is_written_on_the_loop_only_in_a_stage_of_small_steps(
        stage: Stage, on_loop: bool) -> None:
    table = cast(Table, SimpleNamespace(stage=stage))
    loop_thread = threading.current_thread()
    assert work_place.written_on_loop(table) is on_loop
    assert (await work_place.write(table, _where) is loop_thread) is on_loop
