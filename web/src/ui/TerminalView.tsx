// One interactive shell: xterm.js drawing what GET /api/projects/{id}/terminal
// (a WebSocket) sends. Binary messages are the terminal's bytes both ways;
// text messages are control ({"type": "resize" | "pause" | "resume"} from
// here, {"type": "exit"} last from the server).
import { useEffect, useRef } from "react";
import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { WebLinksAddon } from "@xterm/addon-web-links";
import "@xterm/xterm/css/xterm.css";
import { api } from "../api/client";
import type { TerminalControl, TerminalExit } from "../api/protocol.gen";

// Output handed to xterm but not yet drawn. Above HIGH the server is asked to
// pause (the shell then waits on its pty); below LOW to resume. Nothing grows
// without bound however fast a command prints.
const HIGH_WATER = 1 << 20;
const LOW_WATER = 128 << 10;
const SCROLLBACK_LINES = 5000;

/** Opens http(s) links only, in a new tab that cannot reach this one. */
function openLink(_event: MouseEvent, uri: string) {
  if (/^https?:\/\//i.test(uri)) window.open(uri, "_blank", "noopener,noreferrer");
}

type Props = {
  projectId: string;
  active: boolean;
  onEnd: (message: string) => void;
  onTitle: (title: string) => void;
};

export function TerminalView({ projectId, active, onEnd, onTitle }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<{ term: Terminal; fit: FitAddon } | null>(null);
  const callbacks = useRef({ onEnd, onTitle });
  callbacks.current = { onEnd, onTitle };

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const style = getComputedStyle(element);
    const term = new Terminal({
      scrollback: SCROLLBACK_LINES,
      cursorBlink: true,
      fontFamily: style.getPropertyValue("--font-mono").trim() || "monospace",
      fontSize: 13,
      theme: {
        background: style.getPropertyValue("--terminal-bg").trim() || "#1e1e1e",
        foreground: style.getPropertyValue("--terminal-fg").trim() || "#e6e6e6",
      },
      linkHandler: { activate: openLink, allowNonHttpProtocols: false },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.loadAddon(new WebLinksAddon(openLink));
    term.open(element);
    fit.fit();
    view.current = { term, fit };

    const socket = new WebSocket(api.terminalUrl(projectId, term.cols, term.rows));
    socket.binaryType = "arraybuffer";
    // What is typed before the socket opens waits for it (a fast typist, a
    // script), up to a bound.
    let early: (string | Uint8Array<ArrayBuffer>)[] = [];
    let earlyBytes = 0;
    const send = (data: string | Uint8Array<ArrayBuffer>) => {
      if (socket.readyState === WebSocket.OPEN) {
        socket.send(data);
      } else if (socket.readyState === WebSocket.CONNECTING && earlyBytes + data.length <= HIGH_WATER) {
        early.push(data);
        earlyBytes += data.length;
      }
    };
    socket.onopen = () => {
      for (const data of early) socket.send(data);
      early = [];
      earlyBytes = 0;
    };
    const control = (message: TerminalControl) => send(JSON.stringify(message));
    let pending = 0;
    let paused = false;
    let ended = false;

    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data === "string") {
        const message = JSON.parse(event.data) as TerminalExit;
        if (message.type === "exit") {
          ended = true;
          term.write(`\r\n\x1b[2m[${message.message}]\x1b[0m\r\n`);
          callbacks.current.onEnd(message.message);
        }
        return;
      }
      const bytes = new Uint8Array(event.data);
      pending += bytes.length;
      if (!paused && pending > HIGH_WATER) {
        paused = true;
        control({ type: "pause" });
      }
      term.write(bytes, () => {
        pending -= bytes.length;
        if (paused && pending < LOW_WATER) {
          paused = false;
          control({ type: "resume" });
        }
      });
    };
    socket.onclose = (event) => {
      if (ended) return;
      const why = event.reason ? `: ${event.reason}` : "";
      term.write(`\r\n\x1b[2m[disconnected${why}]\x1b[0m\r\n`);
      callbacks.current.onEnd(`disconnected${why}`);
    };
    const encoder = new TextEncoder();
    const typed = term.onData((data) => send(encoder.encode(data)));
    const binary = term.onBinary((data) => send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)));
    const resized = term.onResize(({ cols, rows }) => control({ type: "resize", cols, rows }));
    const titled = term.onTitleChange((title) => callbacks.current.onTitle(title));
    // Ctrl+Shift+C copies the selection (Ctrl+C stays the interrupt);
    // Ctrl+Shift+V is left to the browser, whose paste xterm.js takes.
    term.attachCustomKeyEventHandler((event) => {
      if (event.type !== "keydown" || !event.ctrlKey || !event.shiftKey) return true;
      if (event.code === "KeyC") {
        const selected = term.getSelection();
        if (selected) void navigator.clipboard?.writeText(selected).catch(() => undefined);
        return false;
      }
      return event.code !== "KeyV";
    });
    const observer = new ResizeObserver(() => {
      if (element.offsetParent !== null) fit.fit();
    });
    observer.observe(element);

    return () => {
      observer.disconnect();
      typed.dispose();
      binary.dispose();
      resized.dispose();
      titled.dispose();
      socket.onclose = null;
      socket.close();
      term.dispose();
      view.current = null;
    };
  }, [projectId]);

  useEffect(() => {
    if (!active || !view.current) return;
    view.current.fit.fit();
    view.current.term.focus();
  }, [active]);

  return <div className="terminal-view" ref={host} hidden={!active} data-testid="terminal-view" />;
}
