"""The asyncio event loop that runs ``async def`` handlers.

The Rust side queues calls and writes a byte to a socket; the loop watches that socket
(``add_reader``), takes every queued call and runs each as a task. The loop is the package's
own daemon thread, or the caller's loop while ``Server.run_async`` serves from inside one.

A server whose request handlers are all ``async def`` serves stdio from the loop's thread too
(``LoopBridge.serve_stdio``, ``serve_stdio_here`` for ``run_async``; ``stdio_loop.rs``): a call
then crosses no thread on its way in or out. ``FERRITE_PY_STDIO=loop`` (or ``runtime``)
chooses instead.
"""

from __future__ import annotations

import asyncio
import functools
import os
import stat
import threading
from typing import Any, List, Optional, Set

from . import _ferrite


async def _run(wrapper: Any, inp: Any, ctx: Any, done: _ferrite.Completion) -> None:
    try:
        result = await wrapper(inp, ctx)
    except asyncio.CancelledError as e:
        done.reject(e)
        raise
    except BaseException as e:  # reported to the client as the handler's failure
        done.reject(e)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
    else:
        done.resolve(result)


class LoopBridge:
    """Connects one server's queue of async calls to an event loop."""

    def __init__(self, core: _ferrite.Core) -> None:
        self._core = core
        self._lock = threading.Lock()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._thread: Optional[threading.Thread] = None
        self._tasks: Set["asyncio.Task[None]"] = set()
        # The loop a `Client` lent (see `borrow`), and how many clients share it.
        self._borrowed: Optional[asyncio.AbstractEventLoop] = None
        self._borrows = 0

    @property
    def loop(self) -> Optional[asyncio.AbstractEventLoop]:
        return self._loop

    def in_loop_thread(self) -> bool:
        """Whether the caller runs on the loop's thread (where blocking would deadlock)."""
        loop = self._loop
        if loop is None:
            return False
        try:
            return asyncio.get_running_loop() is loop
        except RuntimeError:
            return False

    def _drain(self) -> None:
        loop = self._loop
        if loop is None:
            return
        for wrapper, inp, ctx, done in self._core.take_async_jobs():
            task = loop.create_task(_run(wrapper, inp, ctx, done))
            # asyncio keeps only weak references to tasks.
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def drain(self) -> None:
        """Run the queued calls as tasks (on the loop's thread)."""
        self._drain()

    def serve_stdio(self, core: _ferrite.Core) -> None:
        """Serve stdio from the loop's thread until it ends, waiting here (Ctrl-C stops it)."""
        self.start_thread()
        loop = self._loop
        if loop is None:
            raise RuntimeError("the server is closed")
        stdio = core.stdio_loop(self._drain)
        watch = _StdioWatch(loop, stdio, core)
        loop.call_soon_threadsafe(watch.install)
        try:
            core.wait_stdio_loop(stdio)
        finally:
            try:
                loop.call_soon_threadsafe(watch.uninstall)
            except RuntimeError:  # the loop is closed
                pass
        watch.raise_failure()

    async def serve_stdio_here(self, core: _ferrite.Core) -> None:
        """Serve stdio from the running loop (``run_async``; attached) until it ends. Cancelled,
        it stops serving and lets in-flight requests finish before the cancellation goes on."""
        from .context import _settle

        loop = asyncio.get_running_loop()
        stdio = core.stdio_loop(self._drain)
        done: "asyncio.Future[None]" = loop.create_future()

        def resolve(error: Optional[BaseException], value: Any) -> None:  # a runtime thread
            try:
                loop.call_soon_threadsafe(_settle, done, error, value)
            except RuntimeError:  # the loop is closed
                pass

        core.report_stdio_loop(stdio, resolve)
        watch = _StdioWatch(loop, stdio, core)
        watch.install()
        try:
            try:
                await asyncio.shield(done)
            except asyncio.CancelledError:
                core.stop()
                await asyncio.wait([done])
                raise
        finally:
            watch.uninstall()
        watch.raise_failure()

    def start_thread(self) -> None:
        """Run the package's own loop on a daemon thread (unless a loop is attached)."""
        with self._lock:
            if self._loop is not None or self._core.closed:
                return
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def main() -> None:
                asyncio.set_event_loop(loop)
                loop.add_reader(self._core.async_wake_fd, self._drain)
                ready.set()
                try:
                    loop.run_forever()
                finally:
                    for task in list(self._tasks):
                        task.cancel()
                    if self._tasks:
                        loop.run_until_complete(asyncio.gather(*self._tasks, return_exceptions=True))
                    loop.remove_reader(self._core.async_wake_fd)
                    loop.close()

            self._loop = loop
            self._thread = threading.Thread(target=main, name="ferrite-asyncio", daemon=True)
            self._thread.start()
            ready.wait()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Run async handlers on ``loop`` (the caller's, running in this thread)."""
        self.stop()
        with self._lock:
            self._loop = loop
            loop.add_reader(self._core.async_wake_fd, self._drain)
        self._drain()  # calls queued before the loop was attached

    def detach(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            if self._loop is loop and self._thread is None:
                loop.remove_reader(self._core.async_wake_fd)
                self._loop = None

    def borrow(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Run async handlers on ``loop`` (an in-memory ``Client``'s, running in this thread)
        until :meth:`release`; clients on the same loop share it. False (nothing changes)
        when another loop is borrowed already: handlers then keep running where they run."""
        with self._lock:
            if self._borrowed is not None:
                if self._borrowed is not loop:
                    return False
                self._borrows += 1
                return True
        self.attach(loop)
        with self._lock:
            self._borrowed, self._borrows = loop, 1
        return True

    def release(self, loop: asyncio.AbstractEventLoop, restart: bool) -> None:
        """End one :meth:`borrow` of ``loop``; after the last, handlers go back to the
        package's own loop thread (started again when ``restart``)."""
        with self._lock:
            if self._borrowed is not loop:
                return
            self._borrows -= 1
            if self._borrows:
                return
            self._borrowed = None
        self.detach(loop)
        if restart:
            self.start_thread()

    def stop(self) -> None:
        """Stop the package's loop thread, if it runs (its tasks are cancelled)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            if thread is None or loop is None:
                return
            self._loop = None
            self._thread = None
        try:
            loop.call_soon_threadsafe(loop.stop)
        except RuntimeError:  # already closed
            return
        if thread is not threading.current_thread():
            thread.join(timeout=5)


class _StdioWatch:
    """The event loop's watch over stdin and the stdio loop's wake socket."""

    def __init__(self, loop: asyncio.AbstractEventLoop, stdio: _ferrite.StdioLoop, core: _ferrite.Core) -> None:
        self._loop, self._stdio, self._core = loop, stdio, core
        self._failed: List[BaseException] = []

    def _readable(self) -> None:
        if not self._stdio.readable():  # stdin ended
            self._loop.remove_reader(0)

    def install(self) -> None:
        """Watch both (on the loop's thread) and poll once: serving starts (or, stopped, ends)."""
        try:
            self._stdio.set_scheduler(functools.partial(self._loop.call_soon, self._stdio.flush))
            self._loop.add_reader(self._stdio.wake_fd, self._stdio.poked)
            self._loop.add_reader(0, self._readable)
        except BaseException as e:  # raised by the caller once serving stopped
            self._failed.append(e)
            self._core.stop()
        self._stdio.poked()

    def uninstall(self) -> None:
        self._loop.remove_reader(0)
        self._loop.remove_reader(self._stdio.wake_fd)

    def raise_failure(self) -> None:
        if self._failed:
            raise self._failed[0]


def stdio_on_loop(core: _ferrite.Core) -> bool:
    """Whether ``run()`` and ``run_async()`` serve stdio from the event loop's thread: when
    every request handler is an ``async def`` (a ``def`` call, which must not block the loop,
    would go to the pool instead of running where its request was read) and stdin is a pipe or
    socket the loop can watch. ``FERRITE_PY_STDIO=loop`` or ``runtime`` decides instead."""
    mode = os.environ.get("FERRITE_PY_STDIO", "")
    all_async = core.has_async_handlers and not core.has_sync_handlers
    if mode == "runtime" or (mode != "loop" and not all_async):
        return False
    try:
        kind = os.fstat(0).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(kind) or stat.S_ISSOCK(kind)
