// Where the browser tests look for chromium: Debian's, Ubuntu's and Playwright's places, and a skip
// that names every path it tried.
import { describe, expect, it } from "vitest";
import { chromiumCandidates, chromiumTool } from "./helpers/requires-tool.js";

const none = () => [];

describe("chromium's places", () => {
  it("tries Debian's wrapper and binary, Ubuntu's snap and package, then Playwright's downloads, newest first", () => {
    const list = (dir: string) => (dir === "/home/a/.cache/ms-playwright" ? ["chromium-1100", "ffmpeg-1010", "chromium-1200", "chromium_headless_shell-1200"] : []);
    expect(chromiumCandidates({}, "/home/a", list)).toEqual([
      "/usr/bin/chromium",
      "/usr/lib/chromium/chromium",
      "/snap/bin/chromium",
      "/usr/bin/chromium-browser",
      "/home/a/.cache/ms-playwright/chromium-1200/chrome-linux/chrome",
      "/home/a/.cache/ms-playwright/chromium-1200/chrome-linux64/chrome",
      "/home/a/.cache/ms-playwright/chromium-1100/chrome-linux/chrome",
      "/home/a/.cache/ms-playwright/chromium-1100/chrome-linux64/chrome",
    ]);
  });

  it("PCC_CHROMIUM comes first; PLAYWRIGHT_BROWSERS_PATH replaces the cache folder", () => {
    const list = (dir: string) => (dir === "/pw" ? ["chromium-7"] : []);
    const tried = chromiumCandidates({ PCC_CHROMIUM: "/opt/c/chrome", PLAYWRIGHT_BROWSERS_PATH: "/pw" }, "/home/a", list);
    expect(tried[0]).toBe("/opt/c/chrome");
    expect(tried).toContain("/pw/chromium-7/chrome-linux/chrome");
    expect(tried.some((p) => p.includes(".cache"))).toBe(false);
  });

  it("a Debian machine without the wrapper finds the binary; where none is found, the skip names every path tried", () => {
    const tried = chromiumCandidates({}, "/root", none);
    const found = chromiumTool(tried, (p) => p === "/usr/lib/chromium/chromium");
    expect(found.present()).toBe(true);
    expect(found.path).toBe("/usr/lib/chromium/chromium");
    expect(found.name).toBe("chromium (/usr/lib/chromium/chromium)");
    const missing = chromiumTool(tried, () => false);
    expect(missing.present()).toBe(false);
    expect(missing.name).toBe("chromium (tried /usr/bin/chromium, /usr/lib/chromium/chromium, /snap/bin/chromium, /usr/bin/chromium-browser)");
  });
});
