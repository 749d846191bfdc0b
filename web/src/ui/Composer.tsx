import { useEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from "react";
import { api } from "../api/client";
import type { FileMatch, SlashCommandInfo } from "../api/protocol.gen";
import { MarkedPath } from "./files/QuickOpen";

/** An image to send with the message: base64 without the data: prefix. */
export interface Attachment {
  mediaType: string;
  data: string;
  name: string;
  size: number;
}

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** The server's limit per image (decoded) and, with base64's growth, what fits in one 8 MiB request. */
const IMAGE_LIMIT = 5 * 1024 * 1024;
const TOTAL_LIMIT = 5.5 * 1024 * 1024;

function readImage(file: File): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    if (!IMAGE_TYPES.includes(file.type)) {
      reject(new Error(`${file.name || "The file"} is not a png, jpeg, gif or webp image.`));
      return;
    }
    if (file.size > IMAGE_LIMIT) {
      reject(new Error(`${file.name || "The image"} is over the 5 MiB limit.`));
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve({ mediaType: file.type, data: url.slice(url.indexOf(",") + 1), name: file.name || "pasted image", size: file.size });
    };
    reader.onerror = () => reject(new Error(`Could not read ${file.name || "the image"}.`));
    reader.readAsDataURL(file);
  });
}

/**
 * Enter sends (a follow-up when idle, a steer while running unless switched),
 * Shift+Enter is a new line. Images come in by pasting, dropping or the
 * attach button.
 */
/** The commands whose name starts with what is typed after "/", while only the name is typed. */
export function matchingCommands(text: string, commands: SlashCommandInfo[]): SlashCommandInfo[] {
  const typed = /^\/([A-Za-z0-9_:-]*)$/.exec(text);
  if (!typed) return [];
  const prefix = typed[1].toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(prefix)).slice(0, 50);
}

/**
 * The "@name" being typed at the caret (after a space or at the start), as
 * where its "@" is and what follows it; null when the caret is elsewhere.
 */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const typed = /(?:^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (!typed) return null;
  return { start: caret - typed[1].length - 1, query: typed[1] };
}

/** The text with the mention at `start` (up to the caret) replaced by "@path ". */
export function insertMention(text: string, start: number, caret: number, path: string): { text: string; caret: number } {
  const inserted = `@${path} `;
  return { text: text.slice(0, start) + inserted + text.slice(caret), caret: start + inserted.length };
}

export function Composer({
  running,
  onSend,
  commands = [],
  projectId,
}: {
  running: boolean;
  onSend: (text: string, kind: "followup" | "steer", attachments: Attachment[]) => Promise<boolean>;
  commands?: SlashCommandInfo[];
  /** Where "@" finds files to mention; none: no file suggestions. */
  projectId?: string;
}) {
  const [text, setText] = useState("");
  const [steer, setSteer] = useState(true);
  const [sending, setSending] = useState(false);
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [problem, setProblem] = useState("");
  const fileInput = useRef<HTMLInputElement>(null);
  const [selected, setSelected] = useState(0);
  const [dismissed, setDismissed] = useState("");
  const suggestions = dismissed === text ? [] : matchingCommands(text, commands);
  // "@" mentions: files of the conversation's project, ranked by the server.
  const textarea = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const mention = projectId && suggestions.length === 0 && dismissed !== text ? mentionAt(text, caret) : null;
  const [files, setFiles] = useState<FileMatch[]>([]);
  const mentionQuery = mention?.query ?? null;
  useEffect(() => {
    if (mentionQuery === null || !projectId) {
      setFiles([]);
      return;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => {
      api.searchFiles(projectId, mentionQuery, 8, abort.signal).then(
        (found) => setFiles(found.matches),
        () => setFiles([]),
      );
    }, 80);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [projectId, mentionQuery]);
  const fileSuggestions = mention ? files : [];
  const listLength = suggestions.length || fileSuggestions.length;
  const active = listLength > 0 ? Math.min(selected, listLength - 1) : -1;
  const completeFile = (match: FileMatch) => {
    if (!mention) return;
    const next = insertMention(text, mention.start, caret, match.path);
    setText(next.text);
    setCaret(next.caret);
    setSelected(0);
    requestAnimationFrame(() => textarea.current?.setSelectionRange(next.caret, next.caret));
  };
  const complete = (command: SlashCommandInfo) => {
    setText(`/${command.name} `);
    setSelected(0);
  };
  const kind: "followup" | "steer" = running && steer ? "steer" : "followup";
  const empty = !text.trim() && attachments.length === 0;

  const addFiles = async (files: File[]) => {
    setProblem("");
    for (const file of files) {
      try {
        const image = await readImage(file);
        setAttachments((list) => {
          const total = list.reduce((sum, a) => sum + a.size, 0) + image.size;
          if (total > TOTAL_LIMIT) {
            setProblem("The images together are over what one message can carry (5.5 MiB).");
            return list;
          }
          return [...list, image];
        });
      } catch (error) {
        setProblem((error as Error).message);
      }
    }
  };

  const submit = async () => {
    const value = text;
    const images = attachments;
    if (empty || sending) return;
    setSending(true);
    const ok = await onSend(value, kind, images);
    setSending(false);
    if (ok) {
      setText((current) => (current === value ? "" : current));
      setAttachments((current) => (current === images ? [] : current));
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (listLength > 0) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const step = e.key === "ArrowDown" ? 1 : listLength - 1;
        setSelected((active + step) % listLength);
        return;
      }
      if ((e.key === "Tab" || e.key === "Enter") && !e.shiftKey && !e.nativeEvent.isComposing) {
        e.preventDefault();
        if (suggestions.length > 0) complete(suggestions[active]);
        else completeFile(fileSuggestions[active]);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setDismissed(text);
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(e.clipboardData.files).filter((f) => f.type.startsWith("image/"));
    if (files.length > 0) {
      e.preventDefault();
      void addFiles(files);
    }
  };
  const onDrop = (e: DragEvent<HTMLFormElement>) => {
    const files = Array.from(e.dataTransfer.files);
    if (files.length > 0) {
      e.preventDefault();
      void addFiles(files);
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
      onDragOver={(e) => e.preventDefault()}
      onDrop={onDrop}
    >
      <label htmlFor="composer-text" className="sr-only">
        Message
      </label>
      {attachments.length > 0 && (
        <ul className="attachments" aria-label="Images to send">
          {attachments.map((a, i) => (
            <li key={i}>
              <img src={`data:${a.mediaType};base64,${a.data}`} alt={a.name} />
              <button type="button" className="small" aria-label={`Remove ${a.name}`} onClick={() => setAttachments((list) => list.filter((x) => x !== a))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {suggestions.length > 0 && (
        <ul className="command-menu" role="listbox" id="composer-commands" aria-label="Commands">
          {suggestions.map((c, i) => (
            <li
              key={c.name}
              id={`composer-command-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? "active" : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                complete(c);
              }}
            >
              <span className="command-name">/{c.name}</span>
              {c.argumentHint && <span className="command-hint">{c.argumentHint}</span>}
              <span className="command-description">{c.description}</span>
              <span className="badge">{c.scope}</span>
            </li>
          ))}
        </ul>
      )}
      {fileSuggestions.length > 0 && (
        <ul className="command-menu mention-menu" role="listbox" id="composer-files" aria-label="Files to mention">
          {fileSuggestions.map((m, i) => (
            <li
              key={m.path}
              id={`composer-file-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? "active" : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                completeFile(m);
              }}
            >
              <span className="command-name">
                @<MarkedPath match={m} />
              </span>
            </li>
          ))}
        </ul>
      )}
      <textarea
        id="composer-text"
        ref={textarea}
        role="combobox"
        aria-expanded={listLength > 0}
        aria-controls={fileSuggestions.length > 0 ? "composer-files" : "composer-commands"}
        aria-autocomplete="list"
        aria-activedescendant={active < 0 ? undefined : suggestions.length > 0 ? `composer-command-${active}` : `composer-file-${active}`}
        value={text}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        onChange={(e) => {
          setText(e.target.value);
          setCaret(e.target.selectionStart);
        }}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        rows={3}
        placeholder={kind === "steer" ? "Steer the running turn… (Enter to send, Shift+Enter for a new line)" : "Ask Ava… (Enter to send, Shift+Enter for a new line)"}
      />
      {problem && (
        <p role="alert" className="form-error">
          {problem}
        </p>
      )}
      <div className="composer-bar">
        <label className={"switch" + (running ? "" : " disabled")} title="While a turn runs, Enter steers it; switch off to queue a follow-up instead">
          <input type="checkbox" role="switch" checked={running && steer} disabled={!running} onChange={(e) => setSteer(e.target.checked)} aria-checked={running && steer} />
          Steer the running turn
        </label>
        <span className="mode" data-testid="send-mode">
          {kind === "steer" ? "Sends as steer" : "Sends as follow-up"}
        </span>
        <input
          ref={fileInput}
          type="file"
          accept={IMAGE_TYPES.join(",")}
          multiple
          hidden
          aria-label="Image files"
          onChange={(e) => {
            void addFiles(Array.from(e.target.files ?? []));
            e.target.value = "";
          }}
        />
        <button type="button" onClick={() => fileInput.current?.click()} aria-label="Attach images">
          Attach
        </button>
        <button type="submit" disabled={sending || empty} aria-label={kind === "steer" ? "Send steer" : "Send follow-up"}>
          {kind === "steer" ? "Steer" : "Send"}
        </button>
      </div>
    </form>
  );
}
