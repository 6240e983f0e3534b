// The TypeScript SDK client side of howlbench's comparisons: what a user
// would otherwise write. Usage:
//   node sdk-client.mjs list <command> [args...]            every kind, every page, then close
//   node sdk-client.mjs calls <n> <inflight> <warm> <command> [args...]
//       <warm> untimed echo calls (so the process is warm, as howl's runtime
//       is), then n timed ones; prints calls/s
//   node sdk-client.mjs read <uri> <outfile> <max> <command> [args...]
//       read one resource and write its bytes, or (max > 0) the first max
//       characters of its text: the page howl shows
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeFileSync } from "node:fs";

const [mode, ...rest] = process.argv.slice(2);
let n = 0, inflight = 1, warm = 0, uri = "", out = "", max = 0;
if (mode === "calls") { n = Number(rest.shift()); inflight = Number(rest.shift()); warm = Number(rest.shift()); }
if (mode === "read") { uri = rest.shift(); out = rest.shift(); max = Number(rest.shift()); }
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
  async function round(count) {
    let next = 0;
    async function worker() {
      while (next < count) {
        next++;
        await client.callTool({ name: "echo", arguments: { message: "hello" } });
      }
    }
    await Promise.all(Array.from({ length: inflight }, worker));
  }
  await round(warm);
  const start = performance.now();
  await round(n);
  const secs = (performance.now() - start) / 1000;
  console.log(JSON.stringify({ calls: n, inflight, seconds: secs, calls_per_second: n / secs }));
} else if (mode === "read") {
  // A big line takes the SDK long to buffer: wait up to 110 s (howlbench
  // gives a run 120 s), not the default 60 s.
  const res = await client.readResource({ uri }, { timeout: 110000 });
  const c = res.contents[0];
  const data = c.blob !== undefined ? Buffer.from(c.blob, "base64") : (max > 0 ? c.text.slice(0, max) : c.text);
  writeFileSync(out, data);
  console.log(JSON.stringify({ bytes: data.length }));
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
await client.close();
