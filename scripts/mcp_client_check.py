"""The official Python MCP client (PyPI `mcp`, pinned in scripts/setup.sh) against our `/mcp`,
for tests/integration/mcp_server.rs.

    mcp_client_check.py PLAN_JSON

PLAN_JSON: {"url": ..., "headers": {...}, "calls": [{"name": ..., "arguments": {...}}, ...]}.
Connects, initializes, lists the tools, makes the calls in order, and prints one JSON object:
{"initialized": {...} | null, "tools": [...], "calls": [{"name", "isError", "structured",
"text"} or {"name", "error", "code", "data"}], "error": "..." when the session itself failed}.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError


def flatten(error: BaseException) -> str:
    """The innermost messages of an exception group (anyio task groups wrap them)."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(flatten(e) for e in error.exceptions)
    return f"{type(error).__name__}: {error}"


async def run(plan: dict) -> dict:
    out = {"initialized": None, "tools": [], "calls": []}
    try:
        async with create_mcp_http_client(headers=plan.get("headers") or {}) as http:
            async with streamable_http_client(plan["url"], http_client=http) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    out["initialized"] = {
                        "protocolVersion": init.protocol_version,
                        "serverInfo": init.server_info.model_dump(mode="json") if init.server_info else None,
                        "tools": init.capabilities.tools is not None,
                    }
                    listed = await session.list_tools()
                    out["tools"] = [
                        {"name": t.name, "title": t.title, "description": t.description, "inputSchema": t.input_schema}
                        for t in listed.tools
                    ]
                    for call in plan.get("calls", []):
                        try:
                            result = await session.call_tool(call["name"], call.get("arguments") or {})
                            out["calls"].append({
                                "name": call["name"],
                                "isError": bool(result.is_error),
                                "structured": result.structured_content,
                                "text": "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text"),
                            })
                        except MCPError as e:
                            out["calls"].append({
                                "name": call["name"],
                                "error": e.error.message,
                                "code": e.error.code,
                                "data": e.error.data,
                            })
    except BaseException as e:  # noqa: BLE001 - the test reads what went wrong
        out["error"] = flatten(e)
    return out


def main() -> None:
    plan = json.loads(sys.argv[1])
    print(json.dumps(asyncio.run(run(plan))), flush=True)


if __name__ == "__main__":
    main()
