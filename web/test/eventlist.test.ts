import { describe, expect, it } from "vitest";
import { movesList } from "../src/ui/EventList";

// Which input events count as the person moving the conversation list (and
// so may stop it following the bottom): scrolling does, clicking a card or
// typing inside it does not.
describe("movesList", () => {
  const list = document.createElement("div");
  const card = document.createElement("div");
  const field = document.createElement("textarea");
  list.append(card, field);
  const at = (event: Event, target: EventTarget) => {
    target.dispatchEvent(event);
    return event;
  };

  it("counts wheel and touch scrolling", () => {
    expect(movesList(at(new WheelEvent("wheel", { bubbles: true }), card), list)).toBe(true);
    expect(movesList(at(new Event("touchmove", { bubbles: true }), card), list)).toBe(true);
  });

  it("counts a press on the list's scrollbar, not on a card inside it", () => {
    expect(movesList(at(new MouseEvent("mousedown", { bubbles: true }), list), list)).toBe(true);
    expect(movesList(at(new MouseEvent("mousedown", { bubbles: true }), card), list)).toBe(false);
  });

  it("counts navigation keys on the list, not typing in a field", () => {
    expect(movesList(at(new KeyboardEvent("keydown", { key: "PageUp", bubbles: true }), list), list)).toBe(true);
    expect(movesList(at(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true }), card), list)).toBe(true);
    expect(movesList(at(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true }), field), list)).toBe(false);
    expect(movesList(at(new KeyboardEvent("keydown", { key: "a", bubbles: true }), list), list)).toBe(false);
  });
});
