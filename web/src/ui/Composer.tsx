import { useState, type KeyboardEvent } from "react";

/** Enter sends (a follow-up when idle, a steer while running unless switched), Shift+Enter is a new line. */
export function Composer({ running, onSend }: { running: boolean; onSend: (text: string, kind: "followup" | "steer") => Promise<boolean> }) {
  const [text, setText] = useState("");
  const [steer, setSteer] = useState(true);
  const [sending, setSending] = useState(false);
  const kind: "followup" | "steer" = running && steer ? "steer" : "followup";

  const submit = async () => {
    const value = text;
    if (!value.trim() || sending) return;
    setSending(true);
    const ok = await onSend(value, kind);
    setSending(false);
    if (ok) setText((current) => (current === value ? "" : current));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <form
      className="composer"
      aria-label="Composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label htmlFor="composer-text" className="sr-only">
        Message
      </label>
      <textarea
        id="composer-text"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        rows={3}
        placeholder={kind === "steer" ? "Steer the running turn… (Enter to send, Shift+Enter for a new line)" : "Ask Ava… (Enter to send, Shift+Enter for a new line)"}
      />
      <div className="composer-bar">
        <label className={"switch" + (running ? "" : " disabled")} title="While a turn runs, Enter steers it; switch off to queue a follow-up instead">
          <input type="checkbox" role="switch" checked={running && steer} disabled={!running} onChange={(e) => setSteer(e.target.checked)} aria-checked={running && steer} />
          Steer the running turn
        </label>
        <span className="mode" data-testid="send-mode">
          {kind === "steer" ? "Sends as steer" : "Sends as follow-up"}
        </span>
        <button type="submit" disabled={sending || !text.trim()} aria-label={kind === "steer" ? "Send steer" : "Send follow-up"}>
          {kind === "steer" ? "Steer" : "Send"}
        </button>
      </div>
    </form>
  );
}
