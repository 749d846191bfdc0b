// The file panel: a project's tree on the server's machine, a preview of the
// chosen file, and a watch that keeps both current (folders reloaded as
// they change, a preview reloaded when its file may have).
import { useCallback, useEffect, useRef, useState } from "react";
import { api, ApiRequestError, follow } from "../../api/client";
import type { FileChanges, FileListing, FilePreview, Project } from "../../api/protocol.gen";
import { FileTree } from "./FileTree";
import { FileView } from "./FileView";
import { QuickOpen } from "./QuickOpen";

const parentOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
/** "a/b/c.txt" -> ["a", "a/b"]: the folders to open to show it. */
const foldersOf = (path: string) => {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
};

type Props = {
  project: Project;
  quickOpen: boolean;
  onQuickOpen: (open: boolean) => void;
  onClose: () => void;
};

export function FilesPanel({ project, quickOpen, onQuickOpen, onClose }: Props) {
  const [listings, setListings] = useState<Map<string, FileListing>>(new Map());
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [selected, setSelected] = useState<string | null>(null);
  const [preview, setPreview] = useState<FilePreview | null>(null);
  const [problem, setProblem] = useState("");
  const [previewProblem, setPreviewProblem] = useState("");
  // For the watch's handler, which outlives renders.
  const shown = useRef({ listings, selected });
  shown.current = { listings, selected };

  const load = useCallback(
    (folder: string) =>
      api.files(project.id, folder).then(
        (listing) => {
          setListings((map) => new Map(map).set(folder, listing));
          if (folder === "") setProblem("");
        },
        (error: Error) => {
          // A folder that went away closes; the top one says why.
          setListings((map) => {
            const next = new Map(map);
            next.delete(folder);
            return next;
          });
          setExpanded((set) => {
            const next = new Set(set);
            next.delete(folder);
            return next;
          });
          if (folder === "") setProblem(error.message);
        },
      ),
    [project.id],
  );

  const show = useCallback(
    (path: string) =>
      api.filePreview(project.id, path).then(
        (answer) => {
          setPreview(answer);
          setPreviewProblem("");
        },
        (error: Error) => {
          setPreview(null);
          setPreviewProblem(error instanceof ApiRequestError && error.status === 404 ? `${path} is gone.` : error.message);
        },
      ),
    [project.id],
  );

  // A new project starts from its top folder.
  useEffect(() => {
    setListings(new Map());
    setExpanded(new Set());
    setSelected(null);
    setPreview(null);
    void load("");
  }, [load]);

  // The watch: what changed is reloaded; after a reconnect, everything shown.
  useEffect(() => {
    let reconnected = false;
    const follower = follow({
      path: api.fileEventsPath(project.id),
      resumable: false,
      idleTimeoutMs: 20000,
      onMessage: (event, data) => {
        const { listings: now, selected: file } = shown.current;
        if (event === "ready" && reconnected) {
          now.forEach((_, folder) => void load(folder));
          if (file) void show(file);
        }
        if (event !== "changes") return;
        const changes = data as FileChanges;
        const folders = changes.overflow ? [...now.keys()] : changes.dirs.filter((d) => now.has(d));
        folders.forEach((folder) => void load(folder));
        if (file && (changes.overflow || changes.dirs.includes(parentOf(file)))) void show(file);
      },
      onState: (state) => {
        if (state === "reconnecting") reconnected = true;
      },
    });
    return () => follower.close();
  }, [project.id, load, show]);

  const toggle = (folder: string) => {
    setExpanded((set) => {
      const next = new Set(set);
      if (next.has(folder)) next.delete(folder);
      else next.add(folder);
      return next;
    });
    if (!listings.has(folder)) void load(folder);
  };

  const select = useCallback(
    (path: string) => {
      setSelected(path);
      void show(path);
    },
    [show],
  );

  // Showing a file opens the folders above it.
  const open = useCallback(
    (path: string) => {
      const folders = foldersOf(path);
      setExpanded((set) => new Set([...set, ...folders]));
      folders.forEach((folder) => {
        if (!shown.current.listings.has(folder)) void load(folder);
      });
      select(path);
    },
    [load, select],
  );

  return (
    <aside className="files-panel" aria-label="Files">
      <div className="files-head">
        <strong className="files-project" title={project.path}>
          {project.name}
        </strong>
        <button type="button" className="small" onClick={() => onQuickOpen(true)} title="Go to file (Ctrl+P)">
          Go to file
        </button>
        <button type="button" className="icon" aria-label="Hide files" onClick={onClose}>
          ×
        </button>
      </div>
      {problem ? (
        <p className="form-error files-problem">{problem}</p>
      ) : (
        <div className="files-tree-scroll">
          <FileTree listings={listings} expanded={expanded} selected={selected} onToggle={toggle} onSelect={select} />
          {listings.get("")?.ignoresApplied === false && <p className="muted files-hint">Not a Git work tree: nothing is hidden as ignored.</p>}
        </div>
      )}
      <div className="files-preview" aria-label="Preview" role="region">
        {preview && preview.path === selected ? (
          <FileView key={preview.path} projectId={project.id} preview={preview} />
        ) : previewProblem ? (
          <p className="form-error file-note">{previewProblem}</p>
        ) : (
          <p className="muted file-note">{selected ? "Loading…" : "Choose a file to preview it, or press Ctrl+P to go to one by name."}</p>
        )}
      </div>
      {quickOpen && (
        <QuickOpen
          projectId={project.id}
          projectName={project.name}
          onOpen={(path) => {
            onQuickOpen(false);
            open(path);
          }}
          onClose={() => onQuickOpen(false)}
        />
      )}
    </aside>
  );
}
