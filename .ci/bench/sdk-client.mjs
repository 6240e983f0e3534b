// The TypeScript SDK client side of howlbench's comparisons: what a user
// would otherwise write. Usage:
//   node sdk-client.mjs list <command> [args...]            every kind, every page, then close
//   node sdk-client.mjs calls <n> <inflight> <command> [args...]   n echo calls, prints calls/s
//   node sdk-client.mjs read <uri> <outfile> <command> [args...]   read one resource, write its bytes
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeFileSync } from "node:fs";

const [mode, ...rest] = process.argv.slice(2);
let n = 0, inflight = 1, uri = "", out = "";
if (mode === "calls") { n = Number(rest.shift()); inflight = Number(rest.shift()); }
if (mode === "read") { uri = rest.shift(); out = rest.shift(); }
const [command, ...args] = rest;

const client = new Client({ name: "sdk-bench", version: "1.0.0" });
// The SDK refuses stdio messages over 10 MiB by default; a 50 MiB blob is
// ~67 MiB of JSON, so reading big things needs the limit raised.
await client.connect(new StdioClientTransport({ command, args, stderr: process.env.SDK_STDERR ? "inherit" : "ignore", maxBufferSize: 256 << 20 }));
const caps = client.getServerCapabilities() ?? {};

async function all(method, key) {
  const items = [];
  let cursor;
  do {
    const page = await method.call(client, cursor ? { cursor } : {});
    items.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return items.length;
}

if (mode === "list") {
  const counts = {};
  if (caps.tools) counts.tools = await all(client.listTools, "tools");
  if (caps.resources) {
    counts.resources = await all(client.listResources, "resources");
    counts.templates = await all(client.listResourceTemplates, "resourceTemplates");
  }
  if (caps.prompts) counts.prompts = await all(client.listPrompts, "prompts");
  console.log(JSON.stringify(counts));
} else if (mode === "calls") {
  const start = performance.now();
  let next = 0;
  async function worker() {
    while (next < n) {
      next++;
      await client.callTool({ name: "echo", arguments: { message: "hello" } });
    }
  }
  await Promise.all(Array.from({ length: inflight }, worker));
  const secs = (performance.now() - start) / 1000;
  console.log(JSON.stringify({ calls: n, inflight, seconds: secs, calls_per_second: n / secs }));
} else if (mode === "read") {
  const res = await client.readResource({ uri });
  const c = res.contents[0];
  writeFileSync(out, c.blob !== undefined ? Buffer.from(c.blob, "base64") : c.text);
  console.log(JSON.stringify({ bytes: c.blob !== undefined ? Buffer.from(c.blob, "base64").length : c.text.length }));
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
await client.close();
