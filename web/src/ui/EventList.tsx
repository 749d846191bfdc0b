import { useEffect, useLayoutEffect, useRef } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { ViewItem } from "../model/conversation";
import { ItemView } from "./ItemView";

/**
 * Whether an input event is the person moving the list: a wheel or touch
 * scroll, a navigation key, or a press on the list's own scrollbar. A click on
 * a card inside it (opening a subagent's log, expanding a call) or typing in a
 * field is not, so it never stops the list from following a streaming turn.
 */
export function movesList(event: Event, list: HTMLElement): boolean {
  if (event.type === "wheel" || event.type === "touchmove") return true;
  // The scrollbar belongs to the list itself; presses on its content do not.
  if (event.type === "mousedown") return event.target === list;
  if (event.type !== "keydown") return false;
  const target = event.target as HTMLElement | null;
  if (target && target !== list && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT", "BUTTON"].includes(target.tagName))) return false;
  return ["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "].includes((event as KeyboardEvent).key);
}

/** The conversation's items, virtualized; sticks to the bottom while the user is there. */
export function EventList({ items, initialRect, label = "Conversation" }: { items: ViewItem[]; initialRect?: { width: number; height: number }; label?: string }) {
  const parentRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => 90,
    overscan: 6,
    getItemKey: (index) => items[index].key,
    initialRect,
  });

  useEffect(() => {
    const el = parentRef.current;
    if (!el) return;
    // Only the user moves away from the bottom: scrolls caused by rows being
    // measured or by sticking to the bottom are not theirs.
    let userUntil = 0;
    const user = (event: Event) => {
      if (movesList(event, el)) userUntil = performance.now() + 600;
    };
    const onScroll = () => {
      const near = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
      if (near) atBottom.current = true;
      else if (performance.now() < userUntil) atBottom.current = false;
    };
    const events = ["wheel", "touchmove", "keydown", "mousedown"] as const;
    events.forEach((name) => el.addEventListener(name, user, { passive: true }));
    el.addEventListener("scroll", onScroll, { passive: true });
    // The list getting shorter (a banner, a taller composer) keeps the bottom in view.
    const resize = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => {
      if (atBottom.current) el.scrollTop = el.scrollHeight - el.clientHeight;
    });
    resize?.observe(el);
    return () => {
      resize?.disconnect();
      events.forEach((name) => el.removeEventListener(name, user));
      el.removeEventListener("scroll", onScroll);
    };
  }, []);

  // Stick to the bottom while the user is there: new items, streamed text and
  // rows measured taller than estimated all grow the total size.
  const totalSize = virtualizer.getTotalSize();
  const last = items.length ? items[items.length - 1] : null;
  const lastSignature = last ? `${last.key}:${last.kind === "assistant" || last.kind === "thinking" ? last.text.length : ""}:${last.kind === "tool" ? last.status : ""}` : "";
  useLayoutEffect(() => {
    const el = parentRef.current;
    if (!el || !atBottom.current || items.length === 0) return;
    const target = el.scrollHeight - el.clientHeight;
    if (Math.abs(el.scrollTop - target) > 1) el.scrollTop = target;
  }, [items.length, lastSignature, totalSize]);

  const virtualItems = virtualizer.getVirtualItems();
  return (
    <div ref={parentRef} className="event-list" role="log" aria-label={label} aria-live="polite" tabIndex={0} data-count={items.length}>
      <div style={{ height: totalSize, position: "relative", width: "100%" }}>
        {virtualItems.map((row) => (
          <div
            key={row.key}
            data-index={row.index}
            ref={virtualizer.measureElement}
            className="row"
            style={{ position: "absolute", top: 0, left: 0, width: "100%", transform: `translateY(${row.start}px)` }}
          >
            <ItemView item={items[row.index]} />
          </div>
        ))}
      </div>
    </div>
  );
}
