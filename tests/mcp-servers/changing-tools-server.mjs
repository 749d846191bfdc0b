// An MCP server (official TypeScript SDK, stdio) whose tool list changes on
// request: `add-tool` adds `late`, `remove-tool` removes it, and each change
// is announced with notifications/tools/list_changed before the call answers.
// For the tests of agents that follow a server's tool list while loaded.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const schema = { type: "object", properties: {} };
const base = [
  { name: "add-tool", description: "Adds the tool late", inputSchema: schema },
  { name: "remove-tool", description: "Removes the tool late", inputSchema: schema },
];
const late = { name: "late", description: "A tool that came later", inputSchema: schema };
let hasLate = false;

const server = new Server(
  { name: "changing-tools-server", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: hasLate ? [...base, late] : base,
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const text = (t) => ({ content: [{ type: "text", text: t }] });
  switch (request.params.name) {
    case "add-tool":
      hasLate = true;
      await server.sendToolListChanged();
      return text("added late");
    case "remove-tool":
      hasLate = false;
      await server.sendToolListChanged();
      return text("removed late");
    case "late":
      if (hasLate) return text("late tool ran");
  }
  return { content: [{ type: "text", text: `no tool ${request.params.name}` }], isError: true };
});

await server.connect(new StdioServerTransport());
