// The terminal drawer: tabs of shells, each in a project's folder on the
// server's machine. Hiding the drawer keeps the shells; closing a tab (or the
// page) ends its shell.
import { useEffect, useState } from "react";
import type { Project } from "../api/protocol.gen";
import { TerminalView } from "./TerminalView";

type Tab = { key: number; projectId: string; title: string; ended: string | null };

type Props = {
  open: boolean;
  projects: Project[];
  /** Where a new terminal starts: the open conversation's project, else the first. */
  projectId: string | null;
  onClose: () => void;
};

let nextKey = 1;

export function TerminalPanel({ open, projects, projectId, onClose }: Props) {
  const [tabs, setTabs] = useState<Tab[]>([]);
  const [active, setActive] = useState<number | null>(null);

  const add = () => {
    if (!projectId) return;
    const tab: Tab = { key: nextKey++, projectId, title: "", ended: null };
    setTabs((list) => [...list, tab]);
    setActive(tab.key);
  };

  // Opening the drawer with no terminal starts one.
  useEffect(() => {
    if (open && tabs.length === 0 && projectId) add();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const close = (key: number) => {
    const rest = tabs.filter((t) => t.key !== key);
    setTabs(rest);
    if (active === key) setActive(rest.length ? rest[rest.length - 1].key : null);
    if (rest.length === 0) onClose();
  };
  const update = (key: number, change: Partial<Tab>) => setTabs((list) => list.map((t) => (t.key === key ? { ...t, ...change } : t)));
  const name = (id: string) => projects.find((p) => p.id === id)?.name ?? "terminal";

  return (
    <section className="terminal-panel" hidden={!open} aria-label="Terminals">
      <div className="terminal-tabs" role="tablist">
        {tabs.map((tab, i) => (
          <div key={tab.key} className={`terminal-tab${tab.key === active ? " active" : ""}${tab.ended ? " ended" : ""}`}>
            <button type="button" role="tab" aria-selected={tab.key === active} onClick={() => setActive(tab.key)} title={tab.ended ?? tab.title}>
              {i + 1}. {tab.title || name(tab.projectId)}
            </button>
            <button type="button" className="icon" aria-label={`Close terminal ${i + 1}`} onClick={() => close(tab.key)}>
              ×
            </button>
          </div>
        ))}
        <button type="button" className="icon" aria-label="New terminal" onClick={add} disabled={!projectId}>
          +
        </button>
        <span className="spacer" />
        <button type="button" className="icon" aria-label="Hide terminals" onClick={onClose}>
          ▾
        </button>
      </div>
      {!projectId && tabs.length === 0 && <p className="muted empty">Add a project to open a terminal in its folder.</p>}
      <div className="terminal-views">
        {tabs.map((tab) => (
          <TerminalView
            key={tab.key}
            projectId={tab.projectId}
            active={open && tab.key === active}
            onEnd={(message) => update(tab.key, { ended: message })}
            onTitle={(title) => update(tab.key, { title })}
          />
        ))}
      </div>
    </section>
  );
}
