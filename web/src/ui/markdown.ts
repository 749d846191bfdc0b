// Assistant markdown: marked with raw HTML escaped, safe links only, images
// as links (never loaded), and code highlighted by highlight.js core with a
// handful of languages.
import { Marked, type Tokens } from "marked";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import cpp from "highlight.js/lib/languages/cpp";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import rust from "highlight.js/lib/languages/rust";
import yaml from "highlight.js/lib/languages/yaml";

hljs.registerLanguage("bash", bash);
hljs.registerLanguage("cpp", cpp);
hljs.registerLanguage("diff", diff);
hljs.registerLanguage("javascript", javascript);
hljs.registerLanguage("json", json);
hljs.registerLanguage("python", python);
hljs.registerLanguage("typescript", typescript);
hljs.registerLanguage("xml", xml);
hljs.registerLanguage("rust", rust);
hljs.registerLanguage("yaml", yaml);
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["c", "cc", "cxx", "hpp", "h", "c++"], { languageName: "cpp" });
hljs.registerAliases(["js", "jsx", "mjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** Highlighted HTML for code in a language (escaped plain text when unknown). */
export function highlight(code: string, language: string | undefined): string {
  const lang = (language ?? "").trim().split(/\s+/)[0].toLowerCase();
  if (lang && hljs.getLanguage(lang)) {
    try {
      return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
    } catch {
      /* fall through */
    }
  }
  return escapeHtml(code);
}

// What a browser's URL parser ignores: C0 controls and spaces at either end,
// tabs and newlines anywhere ("java\tscript:" is "javascript:" to it).
const browserTrim = (url: string) => url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "").replace(/[\t\n\r]/g, "");

// The named character references that spell what matters to a scheme check
// (no named reference is an ASCII letter or digit); numeric ones are decoded.
const NAMED: Record<string, string> = { colon: ":", Tab: "\t", NewLine: "\n", sol: "/", quest: "?", num: "#", amp: "&", percnt: "%", period: ".", plus: "+", hyphen: "-", dash: "-" };

function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));?/g, (whole, dec, hex, name) => {
    if (name !== undefined) return NAMED[name] ?? whole;
    const code = dec !== undefined ? Number(dec) : parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : "\ufffd";
  });
}

function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const ALLOWED_SCHEMES = new Set(["http", "https", "mailto"]);

/**
 * The address a link in model output may point at, or null to show it as
 * text: http:, https: and mailto: links, and relative ones (/x, #x, ./x,
 * ../x, or a path whose first segment has no colon). The check looks through
 * what a browser would undo (control characters and whitespace, entities) and
 * percent-encoding too, so "java\tscript:", "&#106;avascript:" and
 * "javascript%3A" are all refused rather than taken for relative paths.
 */
export function safeUrl(href: string): string | null {
  const url = browserTrim(decodeEntities(href));
  if (/[\u0000-\u001f\u007f]/.test(url)) return null;
  let decoded = url;
  for (let round = 0; round < 3; round++) {
    const next = browserTrim(decodeEntities(percentDecode(decoded)));
    if (next === decoded) break;
    decoded = next;
  }
  const literal = SCHEME.exec(url)?.[1].toLowerCase();
  if (literal !== undefined) return ALLOWED_SCHEMES.has(literal) && SCHEME.exec(decoded)?.[1].toLowerCase() === literal ? url : null;
  // No scheme as written: a relative reference, unless decoding shows one
  // (a colon before the first /, ? or #) or it is not one at all.
  if (/^[^/?#]*:/.test(decoded) || /[\u0000-\u001f\u007f\\]/.test(decoded)) return null;
  return url;
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    code(token: Tokens.Code) {
      const lang = token.lang ? escapeHtml(token.lang.split(/\s+/)[0]) : "";
      return `<pre class="code"><code class="hljs${lang ? " language-" + lang : ""}">${highlight(token.text, token.lang)}</code></pre>\n`;
    },
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      const href = safeUrl(token.href);
      if (href === null) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<a href="${escapeHtml(href)}"${title} target="_blank" rel="noopener noreferrer">${text}</a>`;
    },
    image(token: Tokens.Image) {
      // No fetches from model output: the alt text, and the address as a link (if a safe one).
      const href = safeUrl(token.href);
      const address = href === null ? escapeHtml(token.href) : `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${escapeHtml(href)}</a>`;
      return `<span class="md-image">[image: ${escapeHtml(token.text)}] ${address}</span>`;
    },
  },
});

const cache = new Map<string, string>();

export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const html = marked.parse(text, { async: false }) as string;
  if (cache.size > 2000) cache.clear();
  cache.set(text, html);
  return html;
}
