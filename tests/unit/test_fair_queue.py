"""The server's answer queue: one answer per turn of the event loop, the least-served connection first."""

import asyncio

import pytest

from minirag.serve.fair import FairQueue


def test_a_newcomer_is_answered_before_a_looping_connection_s_next_requests():
    done = []

    async def main():
        queue = FairQueue()
        await queue.run("loop", done.append, "loop0")  # the looping connection has been served once
        waiting = [queue.run("loop", done.append, "loop1"), queue.run("loop", done.append, "loop2"),
                   queue.run("new", done.append, "new")]  # then its next two requests and a newcomer's wait
        await asyncio.gather(*waiting)

    asyncio.run(main())
    assert done == ["loop0", "new", "loop1", "loop2"]


def test_the_loop_polls_between_two_answers_and_errors_reach_their_caller():
    ticks = []

    async def ticker():
        for i in range(3):
            ticks.append(f"tick{i}")
            await asyncio.sleep(0)

    async def main():
        queue = FairQueue()
        tasks = [asyncio.create_task(queue.run(k, ticks.append, k)) for k in ("a", "b", "c")]
        tick = asyncio.create_task(ticker())
        await asyncio.gather(*tasks, tick)
        with pytest.raises(ZeroDivisionError):
            await queue.run("a", lambda: 1 / 0)
        assert await queue.run("a", lambda: "still answering") == "still answering"

    asyncio.run(main())
    assert ticks == ["tick0", "a", "tick1", "b", "tick2", "c"]  # another coroutine runs between two answers
