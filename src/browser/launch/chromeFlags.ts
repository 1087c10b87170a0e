import type { LaunchOptions } from "./ChromeLauncher.js"

// How a managed Chromium is started: its switches, and the defaults that depend on the machine.

const WINDOW_SIZE = "1280,800"

/** Headless unless a display is there to show the window (Linux and other X11/Wayland systems). */
export const defaultHeadless = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform
): boolean => {
  if (platform === "darwin" || platform === "win32") return false
  const has = (v: string | undefined) => v !== undefined && v.trim() !== ""
  return !has(env.DISPLAY) && !has(env.WAYLAND_DISPLAY)
}

/** Chromium's sandbox refuses to run as root. */
export const defaultNoSandbox = (uid: number | undefined = process.getuid?.()): boolean => uid === 0

/**
 * Chromium features a managed browser runs without. The back/forward cache keeps each page left behind alive
 * (frozen, with its listeners and observers): an agent's back reloads the page instead, as under the
 * automation library's own launch, and every navigation that leaves a page is 10-15 ms quicker here.
 */
const DISABLED_FEATURES = ["Translate", "MediaRouter", "BackForwardCache"]
/**
 * And headless, where nobody sees the browser's own window: the omnibox's popups as web pages, which Chromium
 * 156 loads (preloads) at start in a renderer of their own. That renderer spent 400-500 ms of CPU right
 * after the first page had loaded (on two cores: in the way of the agent's next steps).
 */
const HEADLESS_DISABLED_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "PreloadTopChromeWebUI"]
/**
 * Screenshots over CDP copy a fresh compositor surface of the page instead of going through the window's
 * (what the automation library turns on for the browsers it launches): a text page at 1280x657 is captured in
 * about 33 ms instead of 50.
 */
const ENABLED_FEATURES = ["CDPScreenshotNewSurface"]

export const chromeArgs = (opts: LaunchOptions): Array<string> => [
  `--remote-debugging-port=${opts.cdpPort}`,
  "--remote-debugging-address=127.0.0.1",
  `--user-data-dir=${opts.userDataDir}`,
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  `--disable-features=${[...DISABLED_FEATURES, ...(opts.headless ? HEADLESS_DISABLED_FEATURES : [])].join(",")}`,
  `--enable-features=${ENABLED_FEATURES.join(",")}`,
  "--password-store=basic",
  "--use-mock-keychain",
  `--window-size=${WINDOW_SIZE}`,
  ...(opts.headless ? ["--headless=new"] : []),
  ...(opts.noSandbox ? ["--no-sandbox"] : []),
  ...(opts.extraArgs ?? []),
  "about:blank"
]
