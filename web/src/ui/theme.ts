// Light, dark or the system's choice: <html data-theme> picks the design
// tokens of styles.css. The choice is kept in this browser (localStorage);
// "system" follows the system's setting as it changes.
export type ThemeChoice = "system" | "light" | "dark";

const KEY = "ava.theme";
const darkQuery = () => (typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null);

export function savedTheme(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

/** The theme in effect for a choice: "light" or "dark". */
export function resolveTheme(choice: ThemeChoice): "light" | "dark" {
  if (choice !== "system") return choice;
  return darkQuery()?.matches ? "dark" : "light";
}

export function applyTheme(choice: ThemeChoice): void {
  document.documentElement.dataset.theme = resolveTheme(choice);
}

export function chooseTheme(choice: ThemeChoice): void {
  try {
    if (choice === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // private mode: the choice lasts for this page only
  }
  applyTheme(choice);
}

/** Applies the saved choice now and again whenever the system's setting changes. */
export function followTheme(): void {
  applyTheme(savedTheme());
  darkQuery()?.addEventListener("change", () => applyTheme(savedTheme()));
}

/** A design token's value (for canvases and charts, which CSS cannot reach). */
export function cssVar(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}
