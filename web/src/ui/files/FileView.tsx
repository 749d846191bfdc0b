// One file's preview: code highlighted with line numbers, Markdown rendered
// (the same safe renderer as answers), images and PDFs from the version the
// preview checked, other files described.
import { useState } from "react";
import { api } from "../../api/client";
import type { FilePreview } from "../../api/protocol.gen";
import { highlight, renderMarkdown } from "../markdown";

// Past this, highlighting a file costs more than it helps.
const HIGHLIGHT_LIMIT = 256 * 1024;

const extensionOf = (path: string) => {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
};

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function Code({ text, language }: { text: string; language: string }) {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const html = text.length <= HIGHLIGHT_LIMIT ? highlight(text, language) : highlight(text, "");
  return (
    <div className="file-code">
      <pre className="file-gutter" aria-hidden="true">
        {lines.map((_, i) => `${i + 1}\n`).join("")}
      </pre>
      <pre className="file-text">
        <code className={`hljs language-${language || "plaintext"}`} dangerouslySetInnerHTML={{ __html: html }} />
      </pre>
    </div>
  );
}

type Props = { projectId: string; preview: FilePreview };

export function FileView({ projectId, preview }: Props) {
  const ext = extensionOf(preview.path);
  const markdown = ext === "md" || ext === "markdown";
  const [source, setSource] = useState(false);
  const raw = api.fileRawUrl(projectId, preview.path, preview.version);
  return (
    <div className="file-view" data-kind={preview.kind}>
      <div className="file-view-head">
        <span className="file-view-path" title={preview.path}>
          {preview.path}
        </span>
        <span className="muted">{formatSize(preview.size)}</span>
        {markdown && preview.kind === "text" && (
          <button type="button" className="small" onClick={() => setSource((s) => !s)} aria-pressed={source}>
            {source ? "Rendered" : "Source"}
          </button>
        )}
      </div>
      {preview.truncated && <p className="file-note">Only the start of this {formatSize(preview.size)} file is shown.</p>}
      <div className="file-view-body">
        {preview.kind === "text" && markdown && !source && <div className="markdown file-markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(preview.text ?? "") }} />}
        {preview.kind === "text" && (!markdown || source) && <Code text={preview.text ?? ""} language={ext} />}
        {preview.kind === "image" && <img className="file-image" src={raw} alt={preview.path} />}
        {preview.kind === "pdf" && <iframe className="file-pdf" src={raw} title={`PDF: ${preview.path}`} />}
        {preview.kind === "binary" && (
          <p className="file-note">
            A binary file ({preview.mediaType}).{" "}
            <a href={raw} download>
              Download it
            </a>
          </p>
        )}
      </div>
    </div>
  );
}
