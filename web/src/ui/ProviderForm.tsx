import { useState } from "react";
import type { FormEvent } from "react";
import { api } from "../api/client";
import type { ProviderInfo, ProviderUpdate } from "../api/protocol.gen";

const KINDS = ["anthropic", "openai", "openai-responses", "ollama", "lmstudio", "llamacpp"];
const NEW = "__new__";

/**
 * Adds a provider or changes one: a built-in (anthropic, openai, …) needs only
 * its key; a provider of the user's own (an OpenAI-compatible server, say)
 * needs a name, a kind and usually a base URL. The key is sent once and
 * never shown again: the server keeps it in its auth.json.
 */
export function ProviderForm({ providers }: { providers: ProviderInfo[] }) {
  const [choice, setChoice] = useState(providers.find((p) => !p.configured)?.name ?? providers[0]?.name ?? NEW);
  const [name, setName] = useState("");
  const [kind, setKind] = useState("openai");
  const [baseUrl, setBaseUrl] = useState("");
  const [model, setModel] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  const isNew = choice === NEW;
  const target = isNew ? name.trim() : choice;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const update: ProviderUpdate = {};
    if (isNew) update.kind = kind;
    if (baseUrl.trim()) update.baseUrl = baseUrl.trim();
    if (model.trim()) update.model = model.trim();
    if (apiKey.trim()) update.apiKey = apiKey.trim();
    if (!target) {
      setResult({ ok: false, text: "Give the new provider a name." });
      return;
    }
    if (Object.keys(update).length === 0) {
      setResult({ ok: false, text: "Nothing to save: enter a key, a base URL or a model." });
      return;
    }
    setBusy(true);
    setResult(null);
    try {
      const saved = await api.saveProvider(target, update);
      setApiKey("");
      setResult({
        ok: true,
        text: saved.configured ? `Saved. ${saved.name} is configured.` : `Saved, but ${saved.name} is not usable yet${saved.problem ? `: ${saved.problem}` : " (no key)."}`,
      });
      if (isNew) setChoice(saved.name);
    } catch (error) {
      setResult({ ok: false, text: (error as Error).message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="provider-form" onSubmit={submit} aria-label="Add or change a provider">
      <label>
        Provider
        <select value={choice} onChange={(e) => setChoice(e.target.value)}>
          {providers
            .filter((p) => p.kind !== "mock")
            .map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
                {p.configured ? " (configured)" : ""}
              </option>
            ))}
          <option value={NEW}>New provider…</option>
        </select>
      </label>
      {isNew && (
        <>
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="openrouter" pattern="[A-Za-z0-9._\-]{1,64}" required />
          </label>
          <label>
            Kind
            <select value={kind} onChange={(e) => setKind(e.target.value)}>
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
      <label>
        Base URL <span className="muted">(optional)</span>
        <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://…" inputMode="url" />
      </label>
      <label>
        Default model <span className="muted">(optional)</span>
        <input value={model} onChange={(e) => setModel(e.target.value)} />
      </label>
      <label>
        API key
        <input type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="off" spellCheck={false} />
      </label>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? "Saving…" : "Save"}
        </button>
      </div>
      {result && (
        <p role={result.ok ? "status" : "alert"} className={result.ok ? "status-ok" : "form-error"}>
          {result.text}
        </p>
      )}
    </form>
  );
}
