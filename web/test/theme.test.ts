// One design language: the web UI's tokens are the desktop's palette
// (qml/Theme.qml), light and dark, value for value.
/// <reference types="node" />
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Read as files: Vitest leaves CSS imports empty.
const read = (relative: string) => readFileSync(fileURLToPath(new URL(relative, import.meta.url)), "utf8");
const themeQml = read("../../qml/Theme.qml");
const styles = read("../src/styles.css");

/** Theme.qml's `readonly property color NAME: dark ? "#dark" : "#light"`. */
function desktopPalette(): Record<string, { light: string; dark: string }> {
  const out: Record<string, { light: string; dark: string }> = {};
  for (const m of themeQml.matchAll(/readonly property color (\w+): dark \? "(#[0-9a-fA-F]{6})" : "(#[0-9a-fA-F]{6})"/g)) {
    out[m[1]] = { dark: m[2].toLowerCase(), light: m[3].toLowerCase() };
  }
  return out;
}

/** The custom properties of the first CSS block whose selector is `selector`. */
function tokens(css: string, selector: string): Record<string, string> {
  const start = css.indexOf(selector + " {");
  expect(start).toBeGreaterThanOrEqual(0);
  const body = css.slice(start, css.indexOf("}", start));
  const out: Record<string, string> = {};
  for (const m of body.matchAll(/--([\w-]+):\s*([^;]+);/g)) out[m[1]] = m[2].trim().toLowerCase();
  return out;
}

const SAME: Record<string, string> = {
  background: "bg",
  surface: "panel",
  raised: "raised",
  border: "border",
  text: "text",
  muted: "muted",
  accent: "accent",
  userBubble: "user-bubble",
  ok: "ok",
  error: "bad",
  warning: "warn",
  codeBackground: "code",
  diffAdd: "diff-add",
  diffDel: "diff-del",
};

describe("design tokens", () => {
  it("are the desktop's palette in both themes", () => {
    const css = styles;
    const light = tokens(css, ":root");
    const dark = tokens(css, ':root[data-theme="dark"]');
    const desktop = desktopPalette();
    expect(Object.keys(desktop).length).toBeGreaterThanOrEqual(Object.keys(SAME).length);
    for (const [qml, web] of Object.entries(SAME)) {
      expect({ token: web, value: light[web] }).toEqual({ token: web, value: desktop[qml].light });
      expect({ token: web, value: dark[web] }).toEqual({ token: web, value: desktop[qml].dark });
    }
    // Every token of the light theme has a dark value.
    expect(Object.keys(dark).sort()).toEqual(Object.keys(light).sort());
  });
});
