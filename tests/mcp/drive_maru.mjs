// Drives `maru mcp` as another app would, with the official MCP client SDK
// (@modelcontextprotocol/sdk over stdio): connects, pings, lists the tools and makes each call
// asked, then prints what it saw as one JSON line for tests/tests/it/mcp_server.rs to check.
//
//   node drive_maru.mjs <maru binary> <data folder> '<calls as JSON: [{"name": …, "arguments": {…}}]>'

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, dataDir, callsJson] = process.argv.slice(2);
const calls = JSON.parse(callsJson ?? '[]');

const transport = new StdioClientTransport({ command: bin, args: ['--data-dir', dataDir, 'mcp'], stderr: 'ignore' });
const client = new Client({ name: 'maru-it-client', version: '1.0.0' });
await client.connect(transport);
const seen = {
  server: client.getServerVersion(),
  instructions: client.getInstructions() ?? null,
  ping: await client.ping(),
  tools: (await client.listTools()).tools,
  calls: [],
};
for (const call of calls) {
  const result = await client.callTool(call);
  seen.calls.push({ name: call.name, isError: result.isError ?? false, text: result.content.map((c) => c.text ?? '').join('\n') });
}
await client.close();
console.log(JSON.stringify(seen));
