"""Answers one at a time, fair to connections: a client that loops never starves one that just arrived.

    queue = FairQueue()
    result = await queue.run(("127.0.0.1", 51234), built.answer, query, ...)

An answer is CPU-bound work under the GIL, computed on the event loop. Run straight from each handler,
every request that arrived in one turn of the loop is answered before the loop looks at its sockets
again: with a hundred clients looping on kept-alive connections, a turn is a hundred answers, and a
newcomer's connection is accepted, read and answered only turns later (38 s at the median, measured).
Here handlers queue their work instead, and one worker answers a single request per turn of the loop,
so the sockets are polled between any two answers; among the waiting requests it takes the one whose
connection has been served least (a newcomer's first request goes first), then the oldest.

What it leaves out: limits per client (a proxy's job) and work that is not a local answer (a remote
reader's call runs in a thread; /search is fast enough to run in its handler).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections import OrderedDict
from typing import Any, Callable, Hashable

REMEMBERED = 10_000  # connections whose served counts are kept (the least recent forgotten first)


class FairQueue:
    def __init__(self):
        self.waiting: list[tuple[int, int, Hashable, asyncio.Future, Callable, tuple]] = []
        self.served: OrderedDict[Hashable, int] = OrderedDict()
        self.order = itertools.count()
        self.ready: asyncio.Event | None = None
        self.worker: asyncio.Task | None = None

    async def run(self, key: Hashable, fn: Callable, *args) -> Any:
        """`fn(*args)` in its turn among the waiting requests; `key` names the caller's connection."""
        loop = asyncio.get_running_loop()
        if self.worker is None or self.worker.done():
            self.ready = asyncio.Event()
            self.worker = loop.create_task(self.answer_in_turn())
        future = loop.create_future()
        heapq.heappush(self.waiting, (self.served.get(key, 0), next(self.order), key, future, fn, args))
        self.ready.set()
        return await future

    async def answer_in_turn(self) -> None:
        while True:
            if not self.waiting:
                self.ready.clear()
                await self.ready.wait()
                continue
            _, _, key, future, fn, args = heapq.heappop(self.waiting)
            if not future.cancelled():  # the client is gone: nothing to answer
                try:
                    future.set_result(fn(*args))
                except BaseException as exc:  # the caller's to raise, as its own handler would have
                    future.set_exception(exc)
                    if not isinstance(exc, Exception):
                        raise
                self.count(key)
            await asyncio.sleep(0)  # one answer per turn: the loop polls its sockets before the next

    def count(self, key: Hashable) -> None:
        self.served[key] = self.served.pop(key, 0) + 1
        while len(self.served) > REMEMBERED:
            self.served.popitem(last=False)
