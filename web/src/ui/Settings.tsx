import { useEffect, useState } from "react";
import { api } from "../api/client";
import type { ModelsResponse, SettingsResponse } from "../api/protocol.extra";
import { FirstRun } from "./FirstRun";
import { ProviderForm } from "./ProviderForm";
import { McpSection } from "./McpSection";
import { SkillsSection } from "./SkillsSection";
import { chooseTheme, savedTheme, type ThemeChoice } from "./theme";

/** Light, dark or as the system is set: kept in this browser. */
function Appearance() {
  const [choice, setChoice] = useState<ThemeChoice>(savedTheme);
  const choose = (next: ThemeChoice) => {
    setChoice(next);
    chooseTheme(next);
  };
  return (
    <fieldset className="appearance">
      <legend>Appearance</legend>
      {(["system", "light", "dark"] as const).map((option) => (
        <label key={option}>
          <input type="radio" name="theme" value={option} checked={choice === option} onChange={() => choose(option)} />{" "}
          {option === "system" ? "As the system" : option === "light" ? "Light" : "Dark"}
        </label>
      ))}
    </fieldset>
  );
}

/** Providers as the server sees them: configured or not; keys never leave the server. */
export function Settings({ models }: { models: ModelsResponse | null }) {
  const [settings, setSettings] = useState<SettingsResponse | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    api.settings().then(setSettings, (e: Error) => setError(e.message));
  }, [models]);
  // The provider list refreshes from the status stream's catalog message.
  const forget = (name: string) => {
    if (!window.confirm(`Forget the saved key of ${name}?`)) return;
    api.forgetKey(name).catch((e: Error) => setError(e.message));
  };
  return (
    <main className="settings" aria-label="Settings">
      <h1>Settings</h1>
      {error && <div role="alert" className="error-banner">{error}</div>}
      {models?.needsSetup && <FirstRun models={models} />}
      <Appearance />
      <h2>Providers</h2>
      {!models ? (
        <p>Loading…</p>
      ) : (
        <table className="providers">
          <caption className="sr-only">Providers</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Base URL</th>
              <th scope="col">Default model</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {models.providers.map((p) => (
              <tr key={p.name} data-provider={p.name}>
                <th scope="row">
                  {p.name}
                  {p.name === models.defaultProvider && <span className="badge">default</span>}
                </th>
                <td>{p.kind}</td>
                <td className="mono">{p.baseUrl || "—"}</td>
                <td className="mono">{p.model || "—"}</td>
                <td>
                  <span className={p.configured ? "badge ok" : "badge"}>{p.configured ? "configured" : "not configured"}</span>
                  {p.keySaved && (
                    <>
                      <span className="badge">key saved</span>
                      <button type="button" className="link" onClick={() => forget(p.name)} aria-label={`Forget the saved key of ${p.name}`}>
                        Forget key
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Add a provider</h2>
      <p className="muted">
        Keys are kept by the server in <code>auth.json</code> (owner-only) and never sent back. An environment variable such as{" "}
        <code>ANTHROPIC_API_KEY</code> on the server takes precedence over a saved key.
      </p>
      {models && <ProviderForm providers={models.providers} />}
      {settings && (
        <>
          <h2>Defaults</h2>
          <dl className="defaults">
            <dt>Provider</dt>
            <dd>{settings.provider || models?.defaultProvider || "—"}</dd>
            <dt>Model</dt>
            <dd>{settings.model || "(the provider's default)"}</dd>
            <dt>Settings file</dt>
            <dd className="mono">{settings.settingsFile}</dd>
          </dl>
        </>
      )}
      <SkillsSection />
      <McpSection />
      {models && (
        <>
          <h2>Model catalog</h2>
          <table className="catalog">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Provider kind</th>
                <th scope="col">Context</th>
                <th scope="col">$ / MTok in · out</th>
              </tr>
            </thead>
            <tbody>
              {models.models.map((m) => (
                <tr key={`${m.providerKind}/${m.id}`}>
                  <th scope="row" className="mono">{m.id}</th>
                  <td>{m.providerKind}</td>
                  <td>{m.contextWindow.toLocaleString("en-US")}</td>
                  <td>{m.inputPerMTok !== undefined ? `${m.inputPerMTok} · ${m.outputPerMTok}` : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </main>
  );
}
