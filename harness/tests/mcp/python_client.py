"""A client of `navguard mcp` written apart from navguard, on the official Python MCP SDK: it
starts the server over stdio, lists its tools, and drives navigate, snapshot and click against a
page. Usage: python_client.py <navguard> <browser> <page URL> [server args…] (e.g. --webdriver-url
URL). Prints one JSON line per step and exits 0 only when every step answered as expected."""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

STEP_DEADLINE = 60


def fail(why):
    print(json.dumps({"failed": why}), flush=True)
    sys.exit(1)


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def call(session, name, args):
    result = await asyncio.wait_for(session.call_tool(name, args), STEP_DEADLINE)
    print(json.dumps({"tool": name, "isError": bool(result.is_error), "structured": result.structured_content}), flush=True)
    return result


async def main(navguard, browser, url, *more):
    server = StdioServerParameters(command=navguard, args=["mcp", "--browser", browser, *more])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await asyncio.wait_for(session.initialize(), STEP_DEADLINE)
            tools = await asyncio.wait_for(session.list_tools(), STEP_DEADLINE)
            names = [t.name for t in tools.tools]
            print(json.dumps({"tools": names}), flush=True)
            for needed in ("navigate", "snapshot", "click"):
                if needed not in names:
                    fail(f"no {needed} tool")
            click = next(t for t in tools.tools if t.name == "click")
            if click.input_schema.get("type") != "object" or "ref" not in click.input_schema.get("properties", {}):
                fail(f"click's schema names no ref: {click.input_schema}")

            opened = await call(session, "navigate", {"url": url})
            if opened.is_error or opened.structured_content["page"]["title"] != "Home":
                fail(f"navigate did not show the page: {text_of(opened)}")
            seen = await call(session, "snapshot", {})
            links = [e for e in seen.structured_content["page"]["elements"] if e["name"] == "go"]
            if seen.is_error or not links:
                fail(f"the snapshot shows no link 'go': {text_of(seen)}")
            clicked = await call(session, "click", {"ref": links[0]["ref"]})
            if clicked.is_error or clicked.structured_content["page"]["title"] != "Next":
                fail(f"the click did not answer with the next page: {text_of(clicked)}")
            # The ref belongs to the page that was left: refused as stale, flagged as an error.
            stale = await call(session, "click", {"ref": links[0]["ref"]})
            if not stale.is_error or stale.structured_content["failure"]["kind"] != "stale-ref":
                fail(f"a ref of the page that was left was not refused as stale: {text_of(stale)}")
    print(json.dumps({"passed": True}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
