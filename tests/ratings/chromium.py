"""Open a page in headless Chromium and report what happened, over the DevTools protocol
on a pipe (``--remote-debugging-pipe``: JSON messages ended by NUL, commands on the
browser's fd 3, answers and events on its fd 4), with the standard library only."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageReport:
    """Console errors and warnings, uncaught exceptions, log entries (CSP violations,
    failed loads), dialogs the page opened, the values of the expressions asked for, and
    a PNG screenshot."""

    console: list[tuple[str, str]] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    log: list[tuple[str, str]] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)
    screenshot: bytes = b""

    @property
    def errors(self) -> list[str]:
        found = [
            f"console.{kind}: {text}" for kind, text in self.console if kind in ("error", "assert")
        ]
        found += [f"exception: {text}" for text in self.exceptions]
        found += [f"log {level}: {text}" for level, text in self.log if level == "error"]
        return found


class _Pipe:
    def __init__(
        self, process: subprocess.Popen[bytes], to_browser: int, from_browser: int
    ) -> None:
        self.process = process
        self.to_browser = to_browser
        self.from_browser = from_browser
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.next_id

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no answer from the browser")
            waiter = select.poll()  # poll, not select: any descriptor number
            waiter.register(self.from_browser, select.POLLIN | select.POLLHUP)
            if waiter.poll(remaining * 1000):
                chunk = os.read(self.from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("the browser closed the pipe")
                self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)  # type: ignore[no-any-return]

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30,
    ) -> dict[str, Any]:
        identifier = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self._read(deadline)
            if message.get("id") == identifier:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})  # type: ignore[no-any-return]
            if "method" in message:
                self.events.append(message)

    def wait_for(self, method: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        if any(event["method"] == method for event in self.events):
            return
        while True:
            message = self._read(deadline)
            if "method" in message:
                self.events.append(message)
                if message["method"] == method:
                    return


def _above_nine(descriptor: int) -> int:
    moved = fcntl.fcntl(descriptor, fcntl.F_DUPFD, 10)
    os.close(descriptor)
    return moved


def open_page(
    browser: str,
    page: Path | str,
    expressions: dict[str, str],
    *,
    timeout: float = 60,
    log: int | None = None,
    width: int = 1200,
    height: int = 2000,
    mobile: bool = False,
    full_page: bool = False,
) -> PageReport:
    """Load ``page`` (a file, or a URL) in a window ``width`` x ``height`` CSS pixels (``mobile``:
    as a phone lays it out) and evaluate ``expressions`` (name -> JavaScript) after it
    has loaded; the screenshot is of the window, or of the whole page (``full_page``)."""
    profile = tempfile.mkdtemp(prefix="dp-arena-chromium-")
    to_browser_read, to_browser_write = os.pipe()
    from_browser_read, from_browser_write = os.pipe()
    # The child's ends move above fd 9 first: the shell below puts them on fds 3 and 4,
    # which must not be one of them already.
    to_browser_read = _above_nine(to_browser_read)
    from_browser_write = _above_nine(from_browser_write)
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--mute-audio",
        f"--user-data-dir={profile}",
        "--remote-debugging-pipe",
        "about:blank",
    ]
    # The browser wants the pipe on fds 3 and 4: a shell puts them there and execs it.
    script = f'exec "$@" 3<&{to_browser_read} 4>&{from_browser_write}'
    # bash, not sh: dash reads only single-digit descriptors in redirections.
    process = subprocess.Popen(
        [shutil.which("bash") or "/bin/bash", "-c", script, "bash", *command],
        pass_fds=(to_browser_read, from_browser_write),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL if log is None else log,
    )
    os.close(to_browser_read)
    os.close(from_browser_write)
    pipe = _Pipe(process, to_browser_write, from_browser_read)
    report = PageReport()
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"}, timeout=timeout)[
            "targetId"
        ]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Runtime", "Log", "Page"):
            pipe.call(f"{domain}.enable", session=session)
        pipe.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
            session=session,
        )
        pipe.events.clear()
        address = page if isinstance(page, str) else page.resolve().as_uri()
        pipe.call("Page.navigate", {"url": address}, session=session)
        pipe.wait_for("Page.loadEventFired", timeout=timeout)
        for name, expression in expressions.items():
            result = pipe.call(
                "Runtime.evaluate",
                {"expression": expression, "returnByValue": True},
                session=session,
            )
            report.values[name] = result.get("result", {}).get("value")
        shot = pipe.call(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": full_page},
            session=session,
        )
        report.screenshot = base64.b64decode(shot["data"])
        for event in pipe.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled":
                text = " ".join(
                    str(arg.get("value", arg.get("description", "")))
                    for arg in params.get("args", [])
                )
                report.console.append((params.get("type", ""), text))
            elif event["method"] == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                report.exceptions.append(
                    details.get("exception", {}).get("description") or details.get("text", "")
                )
            elif event["method"] == "Log.entryAdded":
                entry = params.get("entry", {})
                report.log.append((entry.get("level", ""), entry.get("text", "")))
            elif event["method"] == "Page.javascriptDialogOpening":
                report.dialogs.append(params.get("message", ""))
        with contextlib.suppress(OSError):  # the browser may be gone already
            pipe.send("Browser.close")
    finally:
        os.close(to_browser_write)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(from_browser_read)
        shutil.rmtree(profile, ignore_errors=True)
    return report
