// A small MCP server on the official TypeScript SDK (stdio) for what
// server-everything does not do: paginated lists, requests from the server
// to the client, a server that dies mid-call or fails to start.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

if (process.env.AVA_TEST_FAIL_START) {
  console.error("ava-test-server: refusing to start as asked");
  process.exit(2);
}

const tools = [
  { name: "ask-client", description: "Pings the client and asks it for roots" },
  { name: "exit-now", description: "Exits the server process in the middle of the call" },
  { name: "sleep", description: "Answers after ms milliseconds",
    inputSchema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] } },
  { name: "big-text", description: "Returns bytes characters of text",
    inputSchema: { type: "object", properties: { bytes: { type: "number" } }, required: ["bytes"] } },
  { name: "fail", description: "Returns a tool error" },
].map((tool) => ({ inputSchema: { type: "object", properties: {} }, ...tool }));

// Pages of `size` items; the cursor is the index of the next item.
function page(items, cursor, size, key) {
  const start = cursor ? Number(cursor) : 0;
  const result = { [key]: items.slice(start, start + size) };
  if (start + size < items.length) result.nextCursor = String(start + size);
  return result;
}

const server = new Server(
  { name: "ava-test-server", version: "1.0.0" },
  { capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async (request) =>
  page(tools, request.params?.cursor, 2, "tools"));

const resources = [1, 2, 3].map((n) => ({ uri: `test://resource/${n}`, name: `resource ${n}` }));
server.setRequestHandler(ListResourcesRequestSchema, async (request) =>
  page(resources, request.params?.cursor, 2, "resources"));

const prompts = [1, 2, 3].map((n) => ({ name: `prompt-${n}`, description: `prompt ${n}` }));
server.setRequestHandler(ListPromptsRequestSchema, async (request) =>
  page(prompts, request.params?.cursor, 2, "prompts"));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "ask-client": {
      const outcomes = [];
      await server.ping();
      outcomes.push("ping: ok");
      try {
        await server.listRoots();
        outcomes.push("roots/list: answered");
      } catch (error) {
        outcomes.push(`roots/list: error ${error.code}`);
      }
      return { content: [{ type: "text", text: outcomes.join("; ") }] };
    }
    case "exit-now":
      process.exit(3);
      break;
    case "sleep":
      await new Promise((resolve) => setTimeout(resolve, args.ms));
      return { content: [{ type: "text", text: `slept ${args.ms} ms` }] };
    case "big-text":
      return { content: [{ type: "text", text: "x".repeat(args.bytes) }] };
    case "fail":
      return { content: [{ type: "text", text: "it failed on purpose" }], isError: true };
  }
  throw new Error(`unknown tool ${request.params.name}`);
});

await server.connect(new StdioServerTransport());
