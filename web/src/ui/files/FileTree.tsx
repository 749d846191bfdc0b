// A project's folders as a tree: each folder's entries are loaded when it
// is first opened (the panel keeps the listings), so a large project costs
// only what is on screen.
import type { FileEntry, FileListing } from "../../api/protocol.gen";

type Props = {
  listings: ReadonlyMap<string, FileListing>;
  expanded: ReadonlySet<string>;
  selected: string | null;
  onToggle: (folder: string) => void;
  onSelect: (file: string) => void;
};

export const joinPath = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);

function Entries({ folder, level, ...props }: Props & { folder: string; level: number }) {
  const listing = props.listings.get(folder);
  if (!listing) return <li className="tree-note muted" style={{ paddingLeft: level * 14 }}>Loading…</li>;
  if (listing.entries.length === 0) {
    return <li className="tree-note muted" style={{ paddingLeft: level * 14 }}>{level === 0 ? "This folder is empty." : "Empty folder"}</li>;
  }
  return (
    <>
      {listing.entries.map((entry: FileEntry) => {
        const path = joinPath(folder, entry.name);
        const isDir = entry.kind === "dir";
        const open = isDir && props.expanded.has(path);
        return (
          <li key={path} role="treeitem" aria-label={entry.name} aria-level={level + 1} aria-expanded={isDir ? open : undefined} aria-selected={props.selected === path} data-path={path}>
            <button
              type="button"
              className={`tree-row${props.selected === path ? " selected" : ""}${entry.kind === "link" || entry.kind === "other" ? " inert" : ""}`}
              style={{ paddingLeft: 6 + level * 14 }}
              title={entry.kind === "link" ? `${path}: a link that leads outside the project` : path}
              disabled={entry.kind === "link" || entry.kind === "other"}
              onClick={() => (isDir ? props.onToggle(path) : props.onSelect(path))}
            >
              <span className="tree-twisty" aria-hidden="true">
                {isDir ? (open ? "▾" : "▸") : ""}
              </span>
              <span className={`tree-name${isDir ? " dir" : ""}`}>{entry.name}</span>
              {entry.link && <span className="tree-link" aria-label="symbolic link">↗</span>}
            </button>
            {open && (
              <ul role="group">
                <Entries {...props} folder={path} level={level + 1} />
              </ul>
            )}
          </li>
        );
      })}
      {listing.truncated && <li className="tree-note muted" style={{ paddingLeft: level * 14 }}>Only the first 5,000 entries are shown.</li>}
    </>
  );
}

export function FileTree(props: Props) {
  return (
    <ul className="file-tree" role="tree" aria-label="Project files">
      <Entries {...props} folder="" level={0} />
    </ul>
  );
}
