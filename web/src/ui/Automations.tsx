// Automations (docs/automations.md): scheduled prompts the server runs, each
// run a conversation. The list shows the next and the last run; a form adds
// or edits one, with the next five times of its schedule as it is typed.
import { useCallback, useEffect, useState } from "react";
import { api, ApiRequestError } from "../api/client";
import type { AutomationRequest, AutomationView, OccurrenceView, Project } from "../api/protocol.gen";
import { statusBus } from "../model/stores";

type Kind = "cron" | "every" | "at";

const localZone = (() => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
})();

export const when = (ms: number | null | undefined) => (ms ? new Date(ms).toLocaleString() : "—");

function StateBadge({ occurrence }: { occurrence: OccurrenceView }) {
  return (
    <span className={`badge occ-${occurrence.state}`} title={occurrence.error || undefined} data-testid="occurrence-state">
      {occurrence.state === "claimed" ? "queued" : occurrence.state}
    </span>
  );
}

interface FormState {
  name: string;
  project: string;
  prompt: string;
  kind: Kind;
  schedule: string;
  timeZone: string;
  overlap: string;
  missed: string;
  timeLimitSeconds: number;
}

const emptyForm = (project: string): FormState => ({
  name: "",
  project,
  prompt: "",
  kind: "cron",
  schedule: "0 9 * * mon-fri",
  timeZone: localZone,
  overlap: "skip",
  missed: "skip",
  timeLimitSeconds: 1800,
});

function formOf(a: AutomationView): FormState {
  return {
    name: a.name,
    project: a.project,
    prompt: a.prompt,
    kind: a.scheduleKind,
    schedule: a.schedule,
    timeZone: a.timeZone,
    overlap: a.overlap,
    missed: a.missed,
    timeLimitSeconds: a.timeLimitSeconds,
  };
}

/** The next five times of the schedule being typed, from the server (its zones, its cron). */
function Preview({ kind, schedule, timeZone }: { kind: Kind; schedule: string; timeZone: string }) {
  const [times, setTimes] = useState<string[]>([]);
  const [error, setError] = useState("");
  useEffect(() => {
    if (!schedule.trim()) return;
    const timer = setTimeout(() => {
      api.previewSchedule(kind, schedule, timeZone || "UTC").then(
        (p) => {
          setTimes(p.local);
          setError("");
        },
        (e: ApiRequestError) => {
          setTimes([]);
          setError(e.message);
        },
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [kind, schedule, timeZone]);
  if (error) return <div className="error" role="alert" data-testid="schedule-error">{error}</div>;
  return (
    <ol className="schedule-preview" aria-label="Next runs" data-testid="schedule-preview">
      {times.map((t) => (
        <li key={t}>{t}</li>
      ))}
      {times.length === 0 && <li className="muted">No run ahead</li>}
    </ol>
  );
}

function AutomationForm({ initial, editing, projects, onSaved, onCancel }: { initial: FormState; editing: string | null; projects: Project[]; onSaved: () => void; onCancel: () => void }) {
  const [form, setForm] = useState(initial);
  const [error, setError] = useState("");
  const set = (patch: Partial<FormState>) => setForm((f) => ({ ...f, ...patch }));
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    const body: AutomationRequest = {
      name: form.name,
      project: form.project,
      prompt: form.prompt,
      timeZone: form.timeZone,
      overlap: form.overlap as AutomationRequest["overlap"],
      missed: form.missed as AutomationRequest["missed"],
      timeLimitSeconds: form.timeLimitSeconds,
    };
    body[form.kind] = form.schedule;
    try {
      if (editing) await api.patchAutomation(editing, body);
      else await api.createAutomation(body);
      onSaved();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <form className="card automation-form" onSubmit={save} aria-label={editing ? "Edit the automation" : "New automation"}>
      <label>
        Name
        <input value={form.name} onChange={(e) => set({ name: e.target.value })} required pattern="[A-Za-z0-9._\-]+" placeholder="nightly-tests" />
      </label>
      <label>
        Project
        <input value={form.project} onChange={(e) => set({ project: e.target.value })} list="automation-projects" required placeholder="/home/me/project" />
        <datalist id="automation-projects">
          {projects.map((p) => (
            <option key={p.id} value={p.path}>
              {p.name}
            </option>
          ))}
        </datalist>
      </label>
      <label>
        Prompt
        <textarea value={form.prompt} onChange={(e) => set({ prompt: e.target.value })} required rows={3} placeholder="Run the tests and fix what fails, or /review" />
      </label>
      <fieldset className="schedule-kind">
        <legend>Schedule</legend>
        {(["cron", "every", "at"] as Kind[]).map((k) => (
          <label key={k}>
            <input type="radio" name="kind" checked={form.kind === k} onChange={() => set({ kind: k, schedule: k === "cron" ? "0 9 * * mon-fri" : k === "every" ? "1h" : "" })} />
            {k === "cron" ? "Cron" : k === "every" ? "Every" : "Once at"}
          </label>
        ))}
        <input aria-label="Schedule" value={form.schedule} onChange={(e) => set({ schedule: e.target.value })} placeholder={form.kind === "cron" ? "0 9 * * mon-fri" : form.kind === "every" ? "10m" : "2026-12-24 18:00"} required />
        <input aria-label="Time zone" value={form.timeZone} onChange={(e) => set({ timeZone: e.target.value })} placeholder="Europe/Berlin" />
      </fieldset>
      <Preview kind={form.kind} schedule={form.schedule} timeZone={form.timeZone} />
      <div className="row">
        <label>
          If still running
          <select value={form.overlap} onChange={(e) => set({ overlap: e.target.value })}>
            <option value="skip">skip the new run</option>
            <option value="queue">queue one</option>
            <option value="allow">run both</option>
          </select>
        </label>
        <label>
          Missed while off
          <select value={form.missed} onChange={(e) => set({ missed: e.target.value })}>
            <option value="skip">skip</option>
            <option value="run-once">run once</option>
          </select>
        </label>
        <label>
          Time limit (s)
          <input type="number" min={1} value={form.timeLimitSeconds} onChange={(e) => set({ timeLimitSeconds: Number(e.target.value) })} />
        </label>
      </div>
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      <div className="row">
        <button type="submit" className="primary">
          {editing ? "Save" : "Add automation"}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function History({ id, onOpen }: { id: string; onOpen: (conversationId: string) => void }) {
  const [occurrences, setOccurrences] = useState<OccurrenceView[] | null>(null);
  useEffect(() => {
    api.automationHistory(id).then(setOccurrences, () => setOccurrences([]));
  }, [id]);
  if (!occurrences) return <div className="muted">Loading…</div>;
  if (occurrences.length === 0) return <div className="muted">No runs yet</div>;
  return (
    <table className="history" aria-label="History">
      <tbody>
        {occurrences.map((o) => (
          <tr key={o.scheduledMs}>
            <td>{when(o.scheduledMs)}</td>
            <td>
              <StateBadge occurrence={o} />
            </td>
            <td>{o.trigger}</td>
            <td className="muted">{o.error}</td>
            <td>
              {o.conversationId && (
                <button type="button" className="link" onClick={() => onOpen(o.conversationId)}>
                  Open
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Automations({ projects, onOpen }: { projects: Project[]; onOpen: (conversationId: string) => void }) {
  const [list, setList] = useState<AutomationView[] | null>(null);
  const [error, setError] = useState("");
  const [form, setForm] = useState<{ initial: FormState; editing: string | null } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const reload = useCallback(() => {
    api.automations().then(setList, (e: Error) => setError(e.message));
  }, []);
  useEffect(reload, [reload]);
  // A run that ended (or was skipped) moves "last run" and "next run".
  useEffect(() => statusBus.subscribe((m) => m.type === "automation" && reload()), [reload]);
  const act = (promise: Promise<unknown>) => promise.then(reload, (e: Error) => setError(e.message));

  return (
    <main className="automations" aria-label="Automations">
      <header className="page-header">
        <h1>Automations</h1>
        <button type="button" className="primary" onClick={() => setForm({ initial: emptyForm(projects[0]?.path ?? ""), editing: null })}>
          New automation
        </button>
      </header>
      {error && (
        <div className="error-banner" role="alert">
          {error}
        </div>
      )}
      {form && (
        <AutomationForm
          key={form.editing ?? "new"}
          initial={form.initial}
          editing={form.editing}
          projects={projects}
          onSaved={() => {
            setForm(null);
            reload();
          }}
          onCancel={() => setForm(null)}
        />
      )}
      {list && list.length === 0 && !form && <p className="muted">No automations yet. A scheduled prompt runs as a conversation of its own, even with every window closed.</p>}
      <ul className="automation-list">
        {(list ?? []).map((a) => (
          <li key={a.id} className="card automation" data-testid="automation" data-name={a.name}>
            <div className="automation-head">
              <strong>{a.name}</strong>
              <code>
                {a.scheduleKind === "every" ? `every ${a.schedule}` : a.scheduleKind === "at" ? `at ${a.schedule}` : a.schedule}
              </code>
              <span className="muted">{a.timeZone}</span>
              {!a.enabled && <span className="badge">paused</span>}
            </div>
            <div className="automation-meta">
              <span>
                Next: <span data-testid="next-run">{a.enabled ? when(a.nextRunMs) : "—"}</span>
              </span>
              <span>
                Last: {a.lastRun ? <StateBadge occurrence={a.lastRun} /> : "—"} {a.lastRun && when(a.lastRun.scheduledMs)}
              </span>
              <span className="muted prompt">{a.prompt}</span>
            </div>
            <div className="row">
              <button type="button" onClick={() => act(api.runAutomation(a.id))}>
                Run now
              </button>
              <button type="button" onClick={() => act(api.patchAutomation(a.id, { enabled: !a.enabled }))}>
                {a.enabled ? "Pause" : "Resume"}
              </button>
              <button type="button" onClick={() => setForm({ initial: formOf(a), editing: a.id })}>
                Edit
              </button>
              <button type="button" aria-expanded={open === a.id} onClick={() => setOpen(open === a.id ? null : a.id)}>
                History
              </button>
              <button type="button" className="danger" onClick={() => confirm(`Remove ${a.name} and its history? Its conversations stay.`) && act(api.removeAutomation(a.id))}>
                Remove
              </button>
            </div>
            {open === a.id && <History key={a.lastRun?.scheduledMs ?? 0} id={a.id} onOpen={onOpen} />}
          </li>
        ))}
      </ul>
    </main>
  );
}
