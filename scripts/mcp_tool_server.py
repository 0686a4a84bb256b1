"""An authority's tool server for the MCP tests (tests/integration/mcp_client.rs), written with
FastMCP (PyPI `fastmcp`, pinned in scripts/setup.sh), served over streamable HTTP.

    mcp_tool_server.py PORT [TOKEN]
    mcp_tool_server.py stdio


With TOKEN every request must carry `Authorization: Bearer TOKEN` (the orchestrator reads it
from a file with --mcp-header). The tools are a permit register as an authority might run one
behind its firewall: a lookup, a slow lookup, one whose back end is down, one whose name
clashes with a built-in tool of the orchestrator, one the approval policy asks about, and one
that adds a tool and says so (`notifications/tools/list_changed`).
"""

import asyncio
import sys

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError

PERMITS = {
    "92251854": [
        {"number": "NL 4521 EG", "kind": "erkenning vlees", "since": "2019-03-01"},
        {"number": "HACCP-2024-117", "kind": "HACCP-certificaat", "since": "2024-06-12"},
    ],
}

mcp = FastMCP("vergunningen")


@mcp.tool(title="Vergunningen opzoeken")
def lookup_permits(kvk: str) -> dict:
    """Zoekt de erkenningen en vergunningen van een levensmiddelenbedrijf op KVK-nummer
    (8 cijfers) in het vergunningenregister."""
    permits = PERMITS.get(kvk.replace(" ", ""), [])
    return {"kvk": kvk, "permits": permits, "count": len(permits)}


@mcp.tool
async def slow_lookup(kvk: str, seconds: float = 600.0) -> str:
    """Zoekt in het archief; dat duurt lang."""
    await asyncio.sleep(seconds)
    return f"archief {kvk}: niets gevonden"


@mcp.tool
def failing_lookup(kvk: str) -> str:
    """Zoekt in het handhavingsregister (dat nu storing heeft)."""
    raise ToolError("handhavingsregister niet bereikbaar (storing)")


@mcp.tool
def search_regulations(query: str) -> str:
    """Zoekt in de lokale verordeningen van de gemeente (niet de EU- of landelijke wetgeving)."""
    return f"geen lokale verordening over {query!r}"


@mcp.tool
def delete_permit(number: str) -> str:
    """Trekt een erkenning in (schrapt haar uit het register)."""
    return f"erkenning {number} ingetrokken"


def lookup_case(kvk: str) -> dict:
    """Zoekt lopende handhavingszaken van een bedrijf op KVK-nummer."""
    return {"kvk": kvk, "cases": [{"number": "HZ-2026-0412", "status": "open"}]}


@mcp.tool
async def open_case_register(ctx: Context) -> str:
    """Opent het zakenregister: daarna is er ook een tool om zaken op te zoeken."""
    mcp.add_tool(lookup_case)
    # On the call's own stream: the client hears of the new tool list right away.
    await ctx.send_notification(mcp_types.ToolListChangedNotification())
    return "zakenregister geopend"


def main() -> None:
    if sys.argv[1] == "stdio":
        mcp.run(transport="stdio", show_banner=False, log_level="warning")
        return
    port = int(sys.argv[1])
    token = sys.argv[2] if len(sys.argv) > 2 else None
    middleware = []
    if token is not None:
        from starlette.middleware import Middleware
        from starlette.responses import JSONResponse

        class RequireToken:
            def __init__(self, app):
                self.app = app

            async def __call__(self, scope, receive, send):
                if scope["type"] == "http":
                    headers = dict(scope["headers"])
                    if headers.get(b"authorization") != f"Bearer {token}".encode():
                        await JSONResponse({"error": "unauthorized"}, status_code=401)(scope, receive, send)
                        return
                await self.app(scope, receive, send)

        middleware.append(Middleware(RequireToken))
    mcp.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        show_banner=False,
        log_level="warning",
        middleware=middleware,
    )


if __name__ == "__main__":
    main()
