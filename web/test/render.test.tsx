// Renders a 5,000-event conversation into the virtualized list in jsdom and
// reports the time (reducer + first render). Chromium numbers: e2e/run.mjs.
import { act } from "react";
import { createRoot } from "react-dom/client";
import { describe, expect, it } from "vitest";
import { initialState, reduce, viewItems } from "../src/model/conversation";
import { syntheticEvents } from "../src/model/synthetic";
import { EventList } from "../src/ui/EventList";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
// jsdom has no layout: give every element an 800 x 1000 box.
Object.defineProperty(HTMLElement.prototype, "offsetHeight", { configurable: true, get: () => 800 });
Object.defineProperty(HTMLElement.prototype, "offsetWidth", { configurable: true, get: () => 1000 });
Object.defineProperty(HTMLElement.prototype, "clientHeight", { configurable: true, get: () => 800 });
Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => 1000 });

describe("render", () => {
  it("renders a 5,000-event conversation (virtualized) in under a second", async () => {
    const container = document.createElement("div");
    document.body.appendChild(container);
    const started = performance.now();
    const state = reduce(initialState("bench"), { type: "events", events: syntheticEvents(5000) });
    const items = viewItems(state);
    const root = createRoot(container);
    await act(async () => {
      root.render(<EventList items={items} initialRect={{ width: 1000, height: 800 }} />);
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    const ms = performance.now() - started;
    const rows = container.querySelectorAll(".row").length;
    console.log(`render: 5000 events -> ${items.length} items, ${rows} rows in the DOM, ${ms.toFixed(1)} ms (jsdom)`);
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(100); // virtualized: only the window is in the DOM
    expect(ms).toBeLessThan(1000);
    await act(async () => root.unmount());
  });
});
