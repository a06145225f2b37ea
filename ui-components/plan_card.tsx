// The plan card: the graph's plan drawn in Agent Chat UI (LangGraph generative UI).
//
// Its props come from src/strategies/with_planner/plan_card.py (`card_props`); the LangGraph
// server bundles this file (langgraph.json, "ui") and Agent Chat UI loads it into a shadow root,
// so the page's Tailwind classes do not reach it: it is styled inline. React is the page's own.
import type { CSSProperties } from "react";

/** A task's status as the card shows it. */
export type CardStatus =
  | "pending"
  | "running"
  | "awaiting_approval"
  | "completed"
  | "failed"
  | "skipped"
  | "cancelled";

/** One task of the plan. */
export interface CardTask {
  id: string;
  expert: string;
  task: string;
  depends_on: string[];
  level: number;
  status: CardStatus;
  seconds: number | null;
  line: string | null;
  held: string[];
}

/** What a running task's call last said about its progress (plan_card.py `CardProgress`). */
export interface CardProgress {
  tool: string;
  progress: number;
  total: number | null;
  message: string | null;
}

/** The card's props. */
export interface CardProps {
  tasks: CardTask[];
  status: "ready" | "in_progress" | "completed" | "failed" | "cancelled";
  final: boolean;
  go_ahead: string[];
  // One key per task (`progress_key`), merged in while its call runs; a whole card drops them.
  [progress: `progress:${string}`]: CardProgress | undefined;
}

const LOOK: Record<CardStatus, { label: string; mark: string; color: string; bg: string }> = {
  pending: { label: "pending", mark: "○", color: "#6b7280", bg: "#f3f4f6" },
  running: { label: "running", mark: "◐", color: "#1d4ed8", bg: "#dbeafe" },
  awaiting_approval: { label: "awaiting approval", mark: "‖", color: "#b45309", bg: "#fef3c7" },
  completed: { label: "completed", mark: "✓", color: "#15803d", bg: "#dcfce7" },
  failed: { label: "failed", mark: "✗", color: "#b91c1c", bg: "#fee2e2" },
  skipped: { label: "skipped", mark: "↷", color: "#6b7280", bg: "#f3f4f6" },
  cancelled: { label: "cancelled", mark: "⊘", color: "#6b7280", bg: "#f3f4f6" },
};

const PLAN_LABEL: Record<CardProps["status"], string> = {
  ready: "planned",
  in_progress: "running",
  completed: "done",
  failed: "failed",
  cancelled: "cancelled",
};

const box: CSSProperties = {
  fontFamily: "ui-sans-serif, system-ui, sans-serif",
  fontSize: 14,
  lineHeight: 1.4,
  color: "#111827",
  border: "1px solid #e5e7eb",
  borderRadius: 12,
  padding: "12px 14px",
  background: "#ffffff",
  maxWidth: 680,
};

const muted: CSSProperties = { color: "#6b7280", fontSize: 12 };

/** The approval card Agent Chat UI draws under its last assistant message. */
function showApprovalCard(): void {
  const messages = document.querySelectorAll("div.group.mr-auto");
  const last = messages[messages.length - 1];
  (last ?? document.body).scrollIntoView({ behavior: "smooth", block: "start" });
}

function duration(seconds: number | null): string {
  if (seconds === null) return "";
  return seconds < 1 ? "<1 s" : `${seconds} s`;
}

function Status({ status }: { status: CardStatus }) {
  const look = LOOK[status];
  return (
    <span
      data-role="status"
      style={{
        color: look.color,
        background: look.bg,
        borderRadius: 999,
        padding: "1px 8px",
        fontSize: 12,
        whiteSpace: "nowrap",
      }}
    >
      {look.mark} {look.label}
    </span>
  );
}

function Held({ calls }: { calls: string[] }) {
  return (
    <div style={{ marginTop: 4 }}>
      {calls.map((call) => (
        <div key={call} data-role="held" style={{ fontSize: 12, color: "#92400e" }}>
          <code style={{ fontSize: 12 }}>{call}</code>{" "}
          <a
              href="#approval"
              data-role="approval-link"
              onClick={(event) => {
                event.preventDefault();
                showApprovalCard();
              }}
              style={{ color: "#b45309" }}
            >
            waits for your approval: see the approval card ↓
          </a>
        </div>
      ))}
    </div>
  );
}

/** How far a call is: `3/10 (30%)` with a total, else the bare count. */
function amount(p: CardProgress): string {
  if (!p.total) return `${p.progress}`;
  return `${p.progress}/${p.total} (${Math.round((100 * p.progress) / p.total)}%)`;
}

function Progress({ progress }: { progress: CardProgress }) {
  // The server's message is plain text (React escapes it), already one capped line.
  return (
    <div data-role="progress" style={{ fontSize: 12, color: "#1d4ed8", marginTop: 2 }}>
      <code style={{ fontSize: 12 }}>{progress.tool}</code> {amount(progress)}
      {progress.message ? ` · ${progress.message}` : ""}
    </div>
  );
}

function TaskRow({ task, progress }: { task: CardTask; progress?: CardProgress }) {
  const failedLine = task.status === "failed" || task.status === "skipped";
  return (
    <li
      data-task={task.id}
      data-status={task.status}
      style={{ listStyle: "none", padding: "6px 0", borderTop: "1px solid #f3f4f6" }}
    >
      <div style={{ display: "flex", gap: 8, alignItems: "baseline", flexWrap: "wrap" }}>
        <strong style={{ minWidth: 24 }}>{task.id}</strong>
        <span style={{ ...muted, fontFamily: "ui-monospace, monospace" }}>{task.expert}</span>
        <span style={{ flex: "1 1 200px" }}>{task.task}</span>
        <Status status={task.status} />
        <span data-role="duration" style={muted}>
          {duration(task.seconds)}
        </span>
      </div>
      {task.depends_on.length > 0 ? (
        <div data-role="after" style={muted}>
          after {task.depends_on.join(", ")}
        </div>
      ) : null}
      {task.line ? (
        <div
          data-role="line"
          style={{ fontSize: 12, color: failedLine ? "#b91c1c" : "#374151", marginTop: 2 }}
        >
          {task.line}
        </div>
      ) : null}
      {task.status === "running" && progress ? <Progress progress={progress} /> : null}
      {task.held.length > 0 ? <Held calls={task.held} /> : null}
    </li>
  );
}

function steps(tasks: CardTask[]): CardTask[][] {
  const out: CardTask[][] = [];
  for (const task of tasks) (out[task.level] ??= []).push(task);
  return out.filter(Boolean);
}

/** The plan: its tasks step by step (a step's tasks may run together), each with its status. */
export function PlanCard(props: CardProps) {
  const tasks = props.tasks ?? [];
  const done = tasks.filter((t) => t.status === "completed").length;
  return (
    <div style={box} data-role="plan-card" data-final={props.final ? "true" : "false"}>
      <div style={{ display: "flex", justifyContent: "space-between", marginBottom: 6 }}>
        <strong>
          Plan · {tasks.length} task{tasks.length === 1 ? "" : "s"}
        </strong>
        <span data-role="plan-status" style={muted}>
          {done}/{tasks.length} completed · {PLAN_LABEL[props.status] ?? props.status}
          {props.final ? " · final" : ""}
        </span>
      </div>
      {steps(tasks).map((step, n) => (
        <div key={n} data-step={n + 1} style={{ marginTop: 4 }}>
          <div style={muted}>
            Step {n + 1}
            {step.length > 1 ? ` · ${step.length} tasks run in parallel` : ""}
          </div>
          <ul style={{ margin: 0, padding: 0 }}>
            {step.map((task) => (
              <TaskRow key={task.id} task={task} progress={props[`progress:${task.id}`]} />
            ))}
          </ul>
        </div>
      ))}
      {props.go_ahead?.length ? (
        <div data-role="go-ahead" style={{ marginTop: 8, fontSize: 12, color: "#92400e" }}>
          Held back (plan_only): reply “go ahead” to run
          {props.go_ahead.map((call) => (
            <div key={call}>
              <code style={{ fontSize: 12 }}>{call}</code>
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}

export default { plan: PlanCard };
