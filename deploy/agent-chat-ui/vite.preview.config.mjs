// `make ui-serve`: Agent Chat UI's build (dist/) with /ui/ forwarded to the LangGraph server.
// The Python server answers a component request (the plan card) with a script path relative to
// the page, /ui/<graph>/entrypoint.js, so the page's own server must hand that path on.
import { defineConfig } from "vite";

export default defineConfig({
  preview: {
    proxy: { "/ui": process.env.VITE_API_URL || "http://127.0.0.1:2024" },
  },
});
