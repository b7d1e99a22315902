#!/usr/bin/env python3
"""The smallest MCP tool server over stdio (newline-delimited JSON-RPC), for the fast test tier,
which has no npm packages: one tool, `echo`. The real third-party servers are tested in the
tool-server tier (tests/tests/it/tool_servers.rs).

Scripted by its arguments (any other argument is ignored, so a test can mark its command line):
  --log PATH     append a line to PATH for each request: `initialize`, `call <tool>`…
  --hang-start   never answer `initialize` (a server that takes forever to start)
  --hang         also offer `hang`, a tool that never answers
  --clash        also offer `x y` and `x_y`, whose names a request can only carry as one
  --many N       also offer N tools `task_<i>` with long descriptions (a server of hundreds of tools)
  --annotated    also offer `look` (read-only, stays on this computer) and `erase` (destructive),
                 which answer as `echo` does
  --grows        also offer `grow`, which adds the tool `grown` and tells the client its tools changed
"""
import json
import sys

args = sys.argv[1:]
log = args[args.index("--log") + 1] if "--log" in args else None

TOOLS = [{
    "name": "echo",
    "description": "Says the message back.",
    "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
}]
if "--hang" in args:
    TOOLS.append({"name": "hang", "description": "Never answers.", "inputSchema": {"type": "object"}})
if "--many" in args:
    for i in range(int(args[args.index("--many") + 1])):
        TOOLS.append({
            "name": f"task_{i}",
            "description": f"Runs maintenance task {i} on the workspace: checks, reports and fixes what it finds. " * 3,
            "inputSchema": {"type": "object", "properties": {"dry_run": {"type": "boolean", "description": "Only report."}}},
        })
    TOOLS.append({"name": "weather_report", "description": "Tells the forecast for a city.",
                  "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}})
if "--annotated" in args:
    TOOLS.append({"name": "look", "description": "Looks something up.", "inputSchema": {"type": "object"},
                  "annotations": {"readOnlyHint": True, "openWorldHint": False}})
    TOOLS.append({"name": "erase", "description": "Erases something.", "inputSchema": {"type": "object"},
                  "annotations": {"readOnlyHint": False, "destructiveHint": True}})
if "--grows" in args:
    TOOLS.append({"name": "grow", "description": "Adds a tool.", "inputSchema": {"type": "object"}})
if "--clash" in args:
    for name in ["x y", "x_y"]:
        TOOLS.append({"name": name, "description": f"Says it is {name}.", "inputSchema": {"type": "object"}})


def note(line):
    if log:
        with open(log, "a") as f:
            f.write(line + "\n")


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue  # a notification
    method, params = msg.get("method"), msg.get("params") or {}
    note(method if method != "tools/call" else "call " + str(params.get("name")))
    if method == "initialize":
        if "--hang-start" in args:
            continue
        result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"), "capabilities": {"tools": {"listChanged": True}},
                  "serverInfo": {"name": "mini", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call" and params.get("name") == "hang":
        continue
    elif method == "tools/call" and params.get("name") == "weather_report":
        result = {"content": [{"type": "text", "text": "Sunny in " + str((params.get("arguments") or {}).get("city"))}]}
    elif method == "tools/call" and params.get("name") == "grow":
        if not any(t["name"] == "grown" for t in TOOLS):
            TOOLS.append({"name": "grown", "description": "Was added by grow.", "inputSchema": {"type": "object"}})
        print(json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}), flush=True)
        result = {"content": [{"type": "text", "text": "grew"}]}
    elif method == "tools/call" and params.get("name") in ("x y", "x_y"):
        result = {"content": [{"type": "text", "text": "called " + params["name"]}]}
    elif method == "tools/call":
        text = "Echo: " + str((params.get("arguments") or {}).get("message", ""))
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "ping":
        result = {}
    else:
        reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no such method"}}
        print(json.dumps(reply), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
