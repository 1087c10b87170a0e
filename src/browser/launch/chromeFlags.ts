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
  // The back/forward cache keeps each page left behind alive (frozen, with its listeners and observers): an
  // agent's back reloads the page instead, as under the automation library's own launch, and every
  // navigation that leaves a page is 10-15 ms quicker here.
  "--disable-features=Translate,MediaRouter,BackForwardCache",
  "--password-store=basic",
  "--use-mock-keychain",
  `--window-size=${WINDOW_SIZE}`,
  ...(opts.headless ? ["--headless=new"] : []),
  ...(opts.noSandbox ? ["--no-sandbox"] : []),
  ...(opts.extraArgs ?? []),
  "about:blank"
]
