// `make ui-serve`: Agent Chat UI's build (dist/) with /ui/ forwarded to the page's LangGraph server.
// The Python server answers a component request (the plan card) with a script path relative to
// the page, /ui/<graph>/entrypoint.js, so the page's own server must hand that path on, and to
// the server the page talks to: the `apiUrl` of the page's URL (`?apiUrl=...`), which the
// browser sends in the Referer of these same-origin requests; without one, VITE_API_URL.
// Only loopback servers and VITE_API_URL's host are reached: never an open proxy.
// No import of "vite": the file then loads from any folder (tests run it from their own).
import http from "node:http";
import https from "node:https";

const DEFAULT_API = process.env.VITE_API_URL || "http://127.0.0.1:2024";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

function allowedHost(hostname) {
  return (
    LOOPBACK.has(hostname) ||
    hostname.startsWith("127.") ||
    hostname === new URL(DEFAULT_API).hostname
  );
}

// The server a /ui request goes to: the page's apiUrl, else VITE_API_URL; null when refused.
export function serverFor(referer) {
  let named = null;
  try {
    named = new URL(referer).searchParams.get("apiUrl");
  } catch {
    // no Referer, or not a URL: the default server
  }
  let target;
  try {
    target = new URL(named || DEFAULT_API);
  } catch {
    return null;
  }
  const web = target.protocol === "http:" || target.protocol === "https:";
  return web && allowedHost(target.hostname) ? target : null;
}

function refuse(res, status, text) {
  res.statusCode = status;
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.end(text + "\n");
}

function forward(req, res) {
  const target = serverFor(req.headers.referer);
  if (target === null) {
    refuse(
      res,
      403,
      "make ui-serve forwards /ui only to a loopback server or VITE_API_URL's host " +
        `(${new URL(DEFAULT_API).hostname}): open the page with such an apiUrl, or rebuild ` +
        "with make ui VITE_API_URL=...",
    );
    return;
  }
  const base = target.pathname.replace(/\/$/, "");
  const client = target.protocol === "https:" ? https : http;
  const headers = { ...req.headers, host: target.host };
  delete headers.referer; // the page's URL is not the LangGraph server's business
  const upstream = client.request(
    { hostname: target.hostname.replace(/^\[|\]$/g, ""), port: target.port, method: req.method,
      path: base + req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode || 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", (error) =>
    refuse(res, 502, `The LangGraph server at ${target.origin} did not answer: ${error.message}`),
  );
  req.pipe(upstream);
}

export default {
  plugins: [
    {
      name: "mcp-planner-ui-forward",
      // Before vite's own middlewares (static files, the single-page fallback).
      configurePreviewServer(server) {
        server.middlewares.use((req, res, next) => {
          if (req.url === "/ui" || req.url.startsWith("/ui/")) forward(req, res);
          else next();
        });
      },
    },
  ],
};
