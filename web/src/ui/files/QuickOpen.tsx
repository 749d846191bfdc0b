// Go to file (Ctrl+P): the project's files ranked by the server as the
// name is typed; arrows move, Enter opens, Escape closes.
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { api } from "../../api/client";
import type { FileMatch } from "../../api/protocol.gen";

/** The path with the matched characters marked (positions are UTF-8 byte offsets). */
export function MarkedPath({ match }: { match: FileMatch }) {
  const bytes = new TextEncoder().encode(match.path);
  const marked = new Set(match.positions);
  const parts: { text: string; hit: boolean }[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    const boundary = i === bytes.length || (bytes[i] & 0xc0) !== 0x80;
    if (!boundary || i === start) continue;
    const text = new TextDecoder().decode(bytes.slice(start, i));
    const hit = marked.has(start);
    const last = parts[parts.length - 1];
    if (last && last.hit === hit) last.text += text;
    else parts.push({ text, hit });
    start = i;
  }
  return (
    <>
      {parts.map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </>
  );
}

type Props = { projectId: string; projectName: string; onOpen: (path: string) => void; onClose: () => void };

export function QuickOpen({ projectId, projectName, onOpen, onClose }: Props) {
  const [query, setQuery] = useState("");
  const [matches, setMatches] = useState<FileMatch[]>([]);
  const [active, setActive] = useState(0);
  const [problem, setProblem] = useState("");
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    const abort = new AbortController();
    const timer = setTimeout(() => {
      api.searchFiles(projectId, query, 50, abort.signal).then(
        (found) => {
          setMatches(found.matches);
          setActive(0);
          setProblem("");
        },
        (error: Error) => {
          if (!abort.signal.aborted) setProblem(error.message);
        },
      );
    }, 60);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [projectId, query]);

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (matches.length) setActive((a) => (a + (e.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length);
    } else if (e.key === "Enter") {
      e.preventDefault();
      if (matches[active]) onOpen(matches[active].path);
    } else if (e.key === "Escape") {
      e.preventDefault();
      onClose();
    }
  };

  return (
    <div className="overlay" onMouseDown={onClose}>
      <div className="quick-open" role="dialog" aria-modal="true" aria-label="Go to file" onMouseDown={(e) => e.stopPropagation()}>
        <input
          ref={input}
          type="text"
          role="combobox"
          aria-expanded={matches.length > 0}
          aria-controls="quick-open-list"
          aria-activedescendant={matches[active] ? `quick-open-${active}` : undefined}
          aria-label="File name"
          placeholder={`Go to a file in ${projectName}…`}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onKeyDown}
        />
        {problem && <p className="form-error">{problem}</p>}
        <ul id="quick-open-list" role="listbox" aria-label="Files">
          {matches.map((m, i) => (
            <li
              key={m.path}
              id={`quick-open-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? "active" : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                onOpen(m.path);
              }}
            >
              <MarkedPath match={m} />
            </li>
          ))}
          {!problem && matches.length === 0 && <li className="muted empty">{query ? "No file matches." : "No files."}</li>}
        </ul>
      </div>
    </div>
  );
}
