import { useState } from "react";
import type { FormEvent } from "react";
import { api } from "../api/client";
import type { DetectedServer, ModelsResponse } from "../api/protocol.gen";

const KEYED = [
  { name: "anthropic", label: "Anthropic", hint: "sk-ant-…" },
  { name: "openai", label: "OpenAI", hint: "sk-…" },
];
const LOCAL_NAMES: Record<string, string> = { ollama: "Ollama", lmstudio: "LM Studio", llamacpp: "llama.cpp" };

/** What the server refused, said where the choice was made. */
function Problem({ text }: { text: string }) {
  return text ? (
    <p role="alert" className="form-error">
      {text}
    </p>
  ) : null;
}

/** A detected server offered as the default, with a choice of its models. */
function UseDetected({ server, onDone }: { server: DetectedServer; onDone: (text: string) => void }) {
  const [model, setModel] = useState(server.models[0] ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const label = LOCAL_NAMES[server.kind] ?? server.name;
  if (server.models.length === 0)
    return (
      <div className="first-run-option" data-testid={`detected-${server.name}`}>
        <h3>{label} is running without a model</h3>
        <p className="muted">
          At <span className="mono">{server.baseUrl}</span>.{" "}
          {server.kind === "ollama" ? (
            <>
              Download one in a terminal: <span className="mono">ava models pull llama3.2</span> (or any name from ollama.com/library); it shows up here within a few seconds.
            </>
          ) : (
            <>Load a model in {label}; it shows up here within a few seconds.</>
          )}
        </p>
      </div>
    );
  const use = async () => {
    setBusy(true);
    setError("");
    try {
      await api.saveProvider(server.name, { baseUrl: server.baseUrl, model, makeDefault: true });
      onDone(`${label} with ${model} is now the default.`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="first-run-option" data-testid={`detected-${server.name}`}>
      <h3>{label} is running</h3>
      <p className="muted">
        At <span className="mono">{server.baseUrl}</span> with {server.models.length} model{server.models.length === 1 ? "" : "s"}.
        {server.inUse && " New conversations already use it until you choose."}
      </p>
      <div className="first-run-row">
        <label>
          <span className="sr-only">Model of {label}</span>
          <select value={model} onChange={(e) => setModel(e.target.value)} aria-label={`Model of ${label}`}>
            {server.models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={use} disabled={busy || !model}>
          {busy ? "Saving…" : `Use ${label}`}
        </button>
      </div>
      <Problem text={error} />
    </div>
  );
}

/** A cloud provider's key, saved on the server (auth.json) and never shown again. */
function AddKey({ onDone }: { onDone: (text: string) => void }) {
  const [provider, setProvider] = useState(KEYED[0].name);
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!key.trim()) {
      setError("Paste the key first.");
      return;
    }
    setBusy(true);
    setError("");
    try {
      const saved = await api.saveProvider(provider, { apiKey: key.trim(), makeDefault: true });
      setKey("");
      onDone(`Saved. ${saved.name} is the default provider.`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const hint = KEYED.find((p) => p.name === provider)?.hint ?? "";
  return (
    <form className="first-run-option" onSubmit={submit} aria-label="Add an API key">
      <h3>Add an API key</h3>
      <div className="first-run-row">
        <label>
          <span className="sr-only">Provider</span>
          <select value={provider} onChange={(e) => setProvider(e.target.value)} aria-label="Provider">
            {KEYED.map((p) => (
              <option key={p.name} value={p.name}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        <input type="password" value={key} onChange={(e) => setKey(e.target.value)} placeholder={hint} aria-label="API key" autoComplete="off" spellCheck={false} />
        <button type="submit" disabled={busy}>
          {busy ? "Saving…" : "Save key"}
        </button>
      </div>
      <Problem text={error} />
    </form>
  );
}

/**
 * Shown while no provider is configured: a detected local model server to
 * use, or a key to add. Either choice becomes the server's default; the
 * status stream's catalog message then refreshes the models and this panel
 * goes away.
 */
export function FirstRun({ models }: { models: ModelsResponse }) {
  const [done, setDone] = useState("");
  if (done)
    return (
      <section className="first-run" aria-label="Set up a model provider">
        <p role="status" className="status-ok">
          {done}
        </p>
      </section>
    );
  return (
    <section className="first-run" aria-labelledby="first-run-title" data-testid="first-run">
      <h2 id="first-run-title">Set up a model provider</h2>
      <p className="muted">Ava needs a model to talk to. Pick one; you can change it later in Settings.</p>
      {models.detected.map((server) => (
        <UseDetected key={server.name} server={server} onDone={setDone} />
      ))}
      {models.detected.length === 0 && (
        <p className="muted" data-testid="no-local-server">
          No local model server found. Running Ollama (<span className="mono">ollama serve</span>, then <span className="mono">ava models pull llama3.2</span>), LM Studio or llama.cpp? It shows up here within a few seconds.
        </p>
      )}
      <AddKey onDone={setDone} />
      <p className="muted">
        In a terminal: <span className="mono">ava auth login anthropic</span>, or <span className="mono">ava doctor</span> to see what is missing.
      </p>
    </section>
  );
}
