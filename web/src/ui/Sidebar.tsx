import { useState } from "react";
import type { ConversationPatch, ConversationView, Project } from "../api/protocol.gen";
import type { LiveStatus } from "../model/stores";

interface Props {
  projects: Project[];
  conversations: ConversationView[];
  live: Record<string, LiveStatus>;
  selected: string | null;
  onOpen: (id: string) => void;
  onNewConversation: (projectId: string) => void;
  onNewProject: (path: string) => Promise<string | null>;
  onPatch: (id: string, patch: ConversationPatch) => void;
  onDelete: (id: string) => void;
  onSettings: () => void;
  onAutomations: () => void;
  onAnalytics: () => void;
}

/** Pinned first, then newest first (the API's order, kept after local updates). */
export function sortConversations(list: ConversationView[]): ConversationView[] {
  return list.slice().sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.updatedMs - a.updatedMs);
}

export function Sidebar(props: Props) {
  const [showArchived, setShowArchived] = useState(false);
  const [adding, setAdding] = useState(false);
  const [path, setPath] = useState("");
  const [error, setError] = useState("");

  const submitProject = async () => {
    if (!path.trim()) return;
    const problem = await props.onNewProject(path.trim());
    if (problem) setError(problem);
    else {
      setPath("");
      setAdding(false);
      setError("");
    }
  };

  return (
    <nav className="sidebar" aria-label="Projects and conversations">
      <div className="sidebar-head">
        <span className="logo">Ava</span>
        <button type="button" onClick={() => setAdding(!adding)} aria-expanded={adding} aria-controls="new-project">
          New project
        </button>
      </div>
      {adding && (
        <form
          id="new-project"
          className="new-project"
          onSubmit={(e) => {
            e.preventDefault();
            void submitProject();
          }}
        >
          <label htmlFor="new-project-path">Folder path on the server</label>
          <input id="new-project-path" value={path} onChange={(e) => setPath(e.target.value)} placeholder="/home/me/src/app" autoFocus />
          <button type="submit">Add project</button>
          {error && (
            <div role="alert" className="form-error">
              {error}
            </div>
          )}
        </form>
      )}
      <ul className="projects">
        {props.projects.map((project) => {
          const convs = sortConversations(props.conversations.filter((c) => c.projectId === project.id && (showArchived || !c.archived)));
          return (
            <li key={project.id} className="project">
              <div className="project-head">
                <span className="project-name" title={project.path}>
                  {project.name}
                </span>
                <button type="button" className="small" onClick={() => props.onNewConversation(project.id)} aria-label={`New conversation in ${project.name}`}>
                  +
                </button>
              </div>
              <ul className="conversations">
                {convs.map((c) => {
                  const live = props.live[c.id];
                  const state = live?.state ?? (c.loaded ? c.state : "idle");
                  const unread = c.lastSeq > c.reviewedSeq && c.id !== props.selected;
                  return (
                    <li key={c.id} className={"conv" + (c.id === props.selected ? " selected" : "") + (c.archived ? " archived" : "")}>
                      <button
                        type="button"
                        className="conv-open"
                        onClick={() => props.onOpen(c.id)}
                        aria-current={c.id === props.selected ? "page" : undefined}
                        aria-label={`${c.title || "Untitled"}${unread ? ", new activity" : ""}${state === "waiting" ? ", waiting for your approval" : state !== "idle" && state !== "closed" ? `, ${state}` : ""}`}
                      >
                        {c.pinned && <span aria-hidden="true">📌 </span>}
                        {c.automationId && (
                          <span className="badge automation-run" title="A run of an automation">
                            auto
                          </span>
                        )}
                        <span className="conv-title-text">{c.title || "Untitled"}</span>
                        {unread && <span className="unread" data-testid="unread" aria-hidden="true" />}
                        {state === "waiting" ? (
                          <span className="needs-you" data-testid="needs-approval" aria-hidden="true">
                            needs you
                          </span>
                        ) : (
                          state !== "idle" && state !== "closed" && <span className={`dot state-${state}`} aria-hidden="true" />
                        )}
                      </button>
                      <button type="button" className="small" onClick={() => props.onPatch(c.id, { pinned: !c.pinned })} aria-label={c.pinned ? `Unpin ${c.title || "Untitled"}` : `Pin ${c.title || "Untitled"}`} aria-pressed={c.pinned}>
                        {c.pinned ? "Unpin" : "Pin"}
                      </button>
                      <button type="button" className="small" onClick={() => props.onPatch(c.id, { archived: !c.archived })} aria-label={c.archived ? `Unarchive ${c.title || "Untitled"}` : `Archive ${c.title || "Untitled"}`}>
                        {c.archived ? "Unarchive" : "Archive"}
                      </button>
                      {c.archived && (
                        <button
                          type="button"
                          className="small danger"
                          onClick={() => window.confirm(`Delete “${c.title || "Untitled"}” for good? Its history and its subagents' logs are removed; this cannot be undone.`) && props.onDelete(c.id)}
                          aria-label={`Delete ${c.title || "Untitled"}`}
                        >
                          Delete
                        </button>
                      )}
                    </li>
                  );
                })}
              </ul>
            </li>
          );
        })}
      </ul>
      <div className="sidebar-foot">
        <label className="switch">
          <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} />
          Show archived
        </label>
        <button type="button" onClick={props.onAutomations}>
          Automations
        </button>
        <button type="button" onClick={props.onAnalytics}>
          Analytics
        </button>
        <button type="button" onClick={props.onSettings}>
          Settings
        </button>
      </div>
    </nav>
  );
}
