// howl's MCP Apps host page: it loads the app's document in a sandboxed
// iframe and carries the JSON-RPC bridge (postMessage) between the app and
// howl. Every decision is howl's (POST rpc); this page only relays, answers
// ui/initialize from /state and delivers the opening tool call.
"use strict";
(async () => {
  const frame = document.getElementById("app");
  const status = (s) => { document.getElementById("status").textContent = s; };
  const rpc = async (msg) => {
    const r = await fetch("rpc", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(msg) });
    if (r.status === 204) return null;
    if (!r.ok) return { error: { code: -32000, message: await r.text() } };
    return r.json();
  };
  const toApp = (msg) => frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, msg), "*");
  const state = await (await fetch("state")).json();
  document.title = state.title;
  document.getElementById("title").textContent = state.title;
  if (state.initialize.hostContext.theme === "dark") document.body.classList.add("dark");
  if (state.prefersBorder) frame.classList.add("border");
  frame.allow = state.allow; // exactly the features the app declared; howl's header denies the rest
  let nextId = 1;
  const pending = new Map();
  window.addEventListener("message", async (ev) => {
    if (ev.source !== frame.contentWindow) return;
    const m = ev.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
    if (m.method === undefined) {
      const p = pending.get(m.id);
      if (p) { pending.delete(m.id); p(m); }
      return;
    }
    if (m.method === "ui/initialize") {
      toApp({ id: m.id, result: state.initialize });
      rpc({ jsonrpc: "2.0", method: m.method });
      return;
    }
    if (m.method === "ui/notifications/initialized") {
      status("app running");
      toApp({ method: "ui/notifications/tool-input", params: { arguments: state.toolInput } });
      if (state.toolResult) toApp({ method: "ui/notifications/tool-result", params: state.toolResult });
    }
    if (m.method === "ui/notifications/size-changed" && m.params && m.params.height > 0) {
      frame.style.height = Math.min(m.params.height, 100000) + "px";
    }
    let reply;
    try {
      reply = await rpc(m);
    } catch (e) {
      reply = { error: { code: -32603, message: "the host page lost howl: " + e.message } };
    }
    if (m.id === undefined || !reply) return;
    toApp(reply.error ? { id: m.id, error: reply.error } : { id: m.id, result: reply.result });
    status(m.method + (reply.error ? " refused" : " done"));
  });
  const events = new EventSource("events");
  events.addEventListener("teardown", async () => {
    events.close();
    const id = "howl-teardown-" + nextId++;
    const answered = new Promise((resolve) => pending.set(id, resolve));
    toApp({ id, method: "ui/resource-teardown", params: {} });
    await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, 3000))]);
    frame.remove();
    status("closed by howl");
    await rpc({ jsonrpc: "2.0", method: "howl/torn-down" }).catch(() => {});
  });
  frame.src = "view";
})();
