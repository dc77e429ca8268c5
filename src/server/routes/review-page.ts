/**
 * The review page (issue 14): `GET /ui` on `warden serve` — recent decisions (GET /v1/audit), pending
 * approvals with Approve / Deny buttons (/v1/approvals), and the loaded policies with their rules
 * (/v1/policies). Plain HTML, CSS and JavaScript served as static strings: no build step, no framework.
 *
 * Behind the same keys: the three static files hold no data and are served without a key (a browser
 * cannot send one when it navigates); everything shown comes from the API, called with the key the
 * reviewer types, kept in sessionStorage (gone with the tab) and sent as `Authorization: Bearer`. The
 * page calls only its own origin (which the browser guard admits) and is locked by its Content-Security-
 * Policy: scripts, styles and connections from 'self' only, no inline script or handler, no framing, no
 * forms. Data is written with textContent, never as HTML, so a subject an agent wrote cannot script it.
 */
import type { Hono } from "hono";

/** The paths served without a key (static, data-free). */
export const REVIEW_PAGE_PATHS: ReadonlySet<string> = new Set(["/ui", "/ui/", "/ui/app.js", "/ui/app.css"]);

export const REVIEW_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Warden review</title>
<link rel="stylesheet" href="/ui/app.css">
<script src="/ui/app.js" defer></script>
</head>
<body>
<header>
  <h1>Warden review</h1>
  <div id="key-box">
    <label for="key">API key</label>
    <input id="key" type="password" autocomplete="off" placeholder="wdn_…">
    <button id="save-key" type="button">Use key</button>
    <button id="forget-key" type="button">Forget</button>
    <span id="key-state" role="status"></span>
  </div>
</header>
<main>
  <section id="approvals-section">
    <h2>Pending approvals</h2>
    <p class="note" id="approvals-note"></p>
    <ul id="approvals"></ul>
    <h3>Decided here</h3>
    <ul id="decided"></ul>
  </section>
  <section id="decisions-section">
    <h2>Recent decisions</h2>
    <p class="note" id="decisions-note"></p>
    <table id="decisions"><thead><tr><th>Time</th><th>Verdict</th><th>Policy</th><th>Caller</th><th>Rules</th><th>Explanation</th></tr></thead><tbody></tbody></table>
  </section>
  <section id="policies-section">
    <h2>Policies</h2>
    <p class="note" id="policies-note"></p>
    <div id="policies"></div>
  </section>
</main>
</body>
</html>
`;

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#f6f6f4}
header{display:flex;flex-wrap:wrap;gap:1em;align-items:center;justify-content:space-between;padding:.6em 1.2em;background:#20232a;color:#fff}
header h1{font-size:1.2em;margin:0}
#key-box{display:flex;gap:.4em;align-items:center}
main{padding:1em 1.2em;display:grid;gap:1.2em}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.6em 1em}
h2{font-size:1.05em;margin:.2em 0 .6em}
.note{color:#666;margin:.2em 0}
ul{list-style:none;padding:0;margin:0}
li.approval{border-top:1px solid #eee;padding:.6em 0}
li.approval pre{background:#f3f3f3;padding:.4em;overflow:auto;max-height:12em;margin:.3em 0}
button{cursor:pointer}
button.approve{background:#1f7a3a;color:#fff;border:0;padding:.3em .9em;border-radius:4px}
button.deny{background:#a12727;color:#fff;border:0;padding:.3em .9em;border-radius:4px;margin-left:.4em}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;border-top:1px solid #eee;padding:.25em .4em;vertical-align:top}
.verdict-allow{color:#1f7a3a}.verdict-deny{color:#a12727}.verdict-ask{color:#a06600}
.rules{font-family:ui-monospace,monospace;font-size:.9em}
`;

const JS = `"use strict";
(() => {
  const KEY = "warden.review.key";
  const $ = (id) => document.getElementById(id);
  const el = (tag, props, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (name === "text") node.textContent = String(value);
      else if (name === "className") node.className = value;
      else node.setAttribute(name, String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  };
  const key = () => sessionStorage.getItem(KEY) || "";
  /** Approvals decided on this page: left out of the pending list however late its refresh lands. */
  const decidedHere = new Set();

  /** One API call with the key; resolves { ok, status, body }. */
  async function api(path, init) {
    const headers = { accept: "application/json" };
    if (key()) headers.authorization = "Bearer " + key();
    if (init && init.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(path, {
      method: (init && init.method) || "GET",
      headers,
      body: init && init.body !== undefined ? JSON.stringify(init.body) : undefined,
      credentials: "omit",
      cache: "no-store",
    });
    let body = null;
    try { body = await response.json(); } catch { body = null; }
    return { ok: response.ok, status: response.status, body };
  }
  const problem = (result) => {
    const error = result.body && result.body.error;
    if (result.status === 401) return "This service needs an API key: enter one above.";
    return (error && error.message) || "HTTP " + result.status;
  };

  async function loadApprovals() {
    const list = $("approvals");
    const result = await api("/v1/approvals?status=pending");
    list.replaceChildren();
    if (!result.ok) { $("approvals-note").textContent = problem(result); return; }
    const approvals = result.body.approvals || [];
    $("approvals-note").textContent = approvals.length === 0 ? "No approval is pending." : "";
    for (const a of approvals) {
      if (decidedHere.has(a.id)) continue;
      const approve = el("button", { type: "button", className: "approve", "data-action": "approve", text: "Approve" });
      const deny = el("button", { type: "button", className: "deny", "data-action": "deny", text: "Deny" });
      const item = el("li", { className: "approval", "data-approval-id": a.id },
        el("div", {},
          el("strong", { text: a.policy + (a.policyVersion ? " v" + a.policyVersion : "") }),
          el("span", { text: " — asked by " + a.caller + ", expires " + a.expiresAt })),
        el("div", { className: "rules", text: (a.rules || []).join(", ") }),
        el("div", { text: a.explanation }),
        el("pre", { text: JSON.stringify(a.subject, null, 2) }),
        el("div", { className: "note", text: "id " + a.id }),
        approve, deny);
      for (const button of [approve, deny]) {
        button.addEventListener("click", () => decide(a.id, button.getAttribute("data-action"), item));
      }
      list.append(item);
    }
  }

  async function decide(id, decision, item) {
    for (const b of item.querySelectorAll("button")) b.disabled = true;
    const result = await api("/v1/approvals/" + encodeURIComponent(id), { method: "POST", body: { decision } });
    if (!result.ok) {
      item.append(el("div", { className: "note", role: "status", text: problem(result) }));
      for (const b of item.querySelectorAll("button")) b.disabled = false;
      return;
    }
    decidedHere.add(id);
    item.remove();
    const a = result.body;
    $("decided").prepend(el("li", { className: "approval", "data-approval-id": a.id, "data-status": a.status, role: "status",
      text: a.status + " by " + a.decidedBy + " at " + a.decidedAt + " — " + a.policy + ", asked by " + a.caller + " (" + (a.rules || []).join(", ") + ")" }));
    setTimeout(refresh, 800);
  }

  async function loadDecisions() {
    const body = $("decisions").tBodies[0];
    const result = await api("/v1/audit?limit=50");
    body.replaceChildren();
    if (!result.ok) {
      const reason = result.body && result.body.error && result.body.error.details && result.body.error.details.reason;
      $("decisions-note").textContent = result.status === 404 && (reason === "audit-not-enabled" || reason === "route-not-found")
        ? "The audit log is not enabled on this server." : problem(result);
      return;
    }
    const entries = result.body.entries || [];
    $("decisions-note").textContent = entries.length === 0 ? "No decision recorded yet." : "";
    for (const e of entries) {
      body.append(el("tr", { "data-entry-id": e.id },
        el("td", { text: e.at }),
        el("td", { className: "verdict-" + e.verdict, text: e.verdict + (e.approvalId ? " (approval " + e.approvalId + ")" : "") }),
        el("td", { text: e.policy + (e.policyVersion ? " v" + e.policyVersion : "") }),
        el("td", { text: e.caller }),
        el("td", { className: "rules", text: (e.rules || []).join(", ") }),
        el("td", { text: e.explanation })));
    }
  }

  async function loadPolicies() {
    const box = $("policies");
    const result = await api("/v1/policies");
    box.replaceChildren();
    if (!result.ok) { $("policies-note").textContent = problem(result); return; }
    $("policies-note").textContent = "";
    for (const p of result.body.policies || []) {
      const section = el("details", { "data-policy": p.name },
        el("summary", { text: p.name + " v" + p.version + " — " + p.rules.total + " rules" + (p.description ? ": " + p.description : "") }));
      box.append(section);
      const full = await api("/v1/policies/" + encodeURIComponent(p.name));
      if (!full.ok) { section.append(el("p", { className: "note", text: "Rules: " + problem(full) })); continue; }
      const rules = full.body.rules || {};
      const list = el("ul", {});
      const add = (kind, r) => list.append(el("li", {},
        el("span", { className: "rules", text: "[" + (r.id || kind) + "] " }),
        el("span", { text: (r.effect ? r.effect + ": " : "") + (r.message || r.description || "") })));
      for (const r of rules.toolRules || []) add("tool", r);
      for (const r of rules.temporalRules || []) add("temporal", r);
      for (const r of rules.attributeRules || []) add("attribute", r);
      for (const r of (rules.access && rules.access.rules) || []) add("access", r);
      section.append(list);
    }
  }

  async function refresh() {
    $("key-state").textContent = key() ? "key set" : "no key";
    await Promise.all([loadApprovals(), loadDecisions()]);
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("save-key").addEventListener("click", () => {
      const value = $("key").value.trim();
      if (value) sessionStorage.setItem(KEY, value);
      $("key").value = "";
      refresh();
      loadPolicies();
    });
    $("forget-key").addEventListener("click", () => {
      sessionStorage.removeItem(KEY);
      refresh();
      loadPolicies();
    });
    refresh();
    loadPolicies();
    setInterval(() => { if (!document.hidden) loadApprovals(); }, 2000);
  });
})();
`;

const SECURITY_HEADERS = {
  "Content-Security-Policy": REVIEW_PAGE_CSP,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

export function useReviewPageRoutes(options: {
  // biome-ignore lint/suspicious/noExplicitAny: the app's env type belongs to create-warden-app.ts.
  app: Hono<any>;
}): void {
  const { app } = options;
  const serve = (body: string, type: string) => () =>
    new Response(body, { headers: { "Content-Type": type, ...SECURITY_HEADERS } });
  app.get("/ui", serve(HTML, "text/html; charset=utf-8"));
  app.get("/ui/", serve(HTML, "text/html; charset=utf-8"));
  app.get("/ui/app.js", serve(JS, "text/javascript; charset=utf-8"));
  app.get("/ui/app.css", serve(CSS, "text/css; charset=utf-8"));
}
