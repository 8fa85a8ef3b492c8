"""Each tool's call time through `navguard mcp`, on a machine doing nothing else: one client
(the official Python MCP SDK), one server, the fixture site, calls one after the other.

    agents/.venv/bin/python bench/mcp_calls.py [navguard binary ...] [--browser chromium|firefox]

With several binaries (a build before a change and one after), their servers take turns call by
call group, so both see the same machine. Prints per binary and tool the median, the lowest and
the highest call time in milliseconds. A report, not a test: nothing here passes or fails."""

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROUNDS = 8
SNAPSHOTS = 15
CALL_DEADLINE = 60


def start_site(navguard):
    """`navguard site` on loopback; returns the process and its first origin."""
    site = subprocess.Popen([navguard, "site"], stdout=subprocess.PIPE, text=True)
    first = site.stdout.readline().split()
    if len(first) != 2 or first[0] != "site:":
        site.kill()
        sys.exit(f"navguard site did not say where it serves: {first}")
    return site, first[1]


async def timed(session, times, tool, args, label=None):
    started = time.perf_counter()
    result = await asyncio.wait_for(session.call_tool(tool, args), CALL_DEADLINE)
    times.setdefault(label or tool, []).append((time.perf_counter() - started) * 1000)
    if result.is_error:
        sys.exit(f"{tool} {args} failed: {result.content[0].text}")
    return result


def ref_of(result, role=None, name=None):
    for element in result.structured_content["page"]["elements"]:
        if (role is None or element["role"] == role) and (name is None or element["name"] == name):
            return element["ref"]
    sys.exit(f"no {role or ''} {name or ''} in the answer")


async def one_round(session, times, site):
    """A loaded page looked at again and again, a form typed into, a link followed."""
    await timed(session, times, "navigate", {"url": f"{site}/page?title=Home&go=/page?title=Next"})
    for _ in range(SNAPSHOTS // ROUNDS + 1):
        await timed(session, times, "snapshot", {})
    await timed(session, times, "list_tabs", {})
    form = await timed(session, times, "navigate", {"url": f"{site}/form?title=Search&action=/submit"})
    await timed(session, times, "type", {"ref": ref_of(form, role="textbox"), "text": "abc"})
    await timed(session, times, "press_key", {"key": "Tab"})
    page = await timed(session, times, "navigate", {"url": f"{site}/page?title=Home&go=/page?title=Next"})
    await timed(session, times, "click", {"ref": ref_of(page, name="go")}, label="click (a link)")


async def main(binaries, browser):
    site_process, site = start_site(binaries[0])
    try:
        async with contextlib.AsyncExitStack() as stack:
            sessions = []
            for binary in binaries:
                server = StdioServerParameters(command=binary, args=["mcp", "--browser", browser])
                # The servers' progress reports (their stderr) would bury the figures.
                quiet = stack.enter_context(open(os.devnull, "w"))
                read, write = await stack.enter_async_context(stdio_client(server, errlog=quiet))
                session = await stack.enter_async_context(ClientSession(read, write))
                await asyncio.wait_for(session.initialize(), CALL_DEADLINE)
                sessions.append(session)
            times = [{} for _ in binaries]
            for _ in range(ROUNDS):
                for session, own in zip(sessions, times):
                    await one_round(session, own, site)
    finally:
        site_process.terminate()
        site_process.wait(10)
    print(f"navguard mcp, call times in ms ({browser}, {ROUNDS} rounds, the servers taking turns)")
    for binary, own in zip(binaries, times):
        print(binary)
        for tool, samples in own.items():
            print(f"  {tool:16} median {statistics.median(samples):7.1f}  lowest {min(samples):7.1f}  highest {max(samples):7.1f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    browser = "chromium"
    if "--browser" in args:
        at = args.index("--browser")
        browser = args[at + 1]
        del args[at : at + 2]
    asyncio.run(main(args or ["target/release/navguard"], browser))
