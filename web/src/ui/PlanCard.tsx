// The plan a /plan turn answered with, above the composer while it waits for
// the person: "Approve and run" switches the conversation to the chosen mode
// and starts the next turn with the plan; typing instead keeps planning.
import { useState } from "react";

const MODES: { value: string; label: string }[] = [
  { value: "ask", label: "asking before changes" },
  { value: "accept-edits", label: "accepting edits" },
  { value: "auto", label: "auto" },
];

export const APPROVED_PLAN_TEXT = "The plan is approved. Carry it out now, step by step, and verify the result.";

export function PlanCard({ currentMode, onApprove }: { currentMode: string; onApprove: (mode: string) => Promise<string | null> }) {
  // Leaving plan mode is the point of approving: never offer it as the mode.
  const [mode, setMode] = useState(currentMode && currentMode !== "plan" ? currentMode : "ask");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const approve = async () => {
    setBusy(true);
    setError("");
    const failed = await onApprove(mode);
    setBusy(false);
    if (failed) setError(failed);
  };
  return (
    <section className="card plan-card" aria-label="Plan awaiting approval" data-testid="plan-card">
      <div className="plan-card-text">
        <strong>The plan above waits for you.</strong> Approve it to run it, or reply to change it.
      </div>
      <div className="plan-card-actions">
        <label>
          Run it{" "}
          <select aria-label="Mode to run the plan in" value={mode} onChange={(e) => setMode(e.target.value)} disabled={busy}>
            {MODES.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="primary" onClick={approve} disabled={busy} data-testid="approve-plan">
          Approve and run
        </button>
      </div>
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
    </section>
  );
}
