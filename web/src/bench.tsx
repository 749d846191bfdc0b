// /bench?n=5000: feeds n synthetic events through the reducer and renders the
// virtualized list; the time to the first painted frame is left in window.__bench.
import { createRoot } from "react-dom/client";
import { initialState, reduce, viewItems } from "./model/conversation";
import { syntheticEvents } from "./model/synthetic";
import { EventList } from "./ui/EventList";

export function runBench(root: HTMLElement) {
  const n = Number(new URLSearchParams(location.search).get("n") ?? 5000);
  const events = syntheticEvents(n);
  const started = performance.now();
  const state = reduce(initialState("bench"), { type: "events", events });
  const reduced = performance.now();
  const items = viewItems(state);
  root.style.height = "100vh";
  root.style.display = "flex";
  root.style.flexDirection = "column";
  createRoot(root).render(<EventList items={items} />);
  requestAnimationFrame(() =>
    setTimeout(() => {
      const done = performance.now();
      const result = { events: n, items: items.length, reduceMs: reduced - started, totalMs: done - started };
      (window as unknown as { __bench: unknown }).__bench = result;
      document.title = `bench ${JSON.stringify(result)}`;
    }, 0),
  );
}
