import type { BrowserStatus, ProfileInfo, ScreenshotResult, Tab } from "../domain/browser.js"

// Short human renderings. `--json` bypasses all of these and prints the API's JSON exactly.

export const renderStatus = (s: BrowserStatus): string => {
  const lines = [
    `profile ${s.profile} (${s.driver}): ${s.running ? "running" : "stopped"}` +
    (s.pid !== null ? `, pid ${s.pid}` : "") +
    (s.cdpUrl !== null ? `, cdp ${s.cdpUrl}` : "")
  ]
  if (s.executable !== null) lines.push(`browser ${s.executable}${s.headless ? " (headless)" : ""}`)
  lines.push(`color ${s.color}${s.attachOnly ? ", attach-only" : ""}`)
  lines.push(
    `automation: ${s.automation.available ? `available (${s.automation.library})` : `unavailable (${s.automation.reason ?? "not installed"})`}`
  )
  if (s.currentTargetId !== null) lines.push(`current tab ${s.currentTargetId}`)
  if (s.lastExit !== null && !s.running) {
    lines.push(
      `last exit at ${s.lastExit.at}: ${s.lastExit.signal !== null ? `signal ${s.lastExit.signal}` : `code ${s.lastExit.code}`}`
    )
  }
  return lines.join("\n")
}

export const renderTabs = (tabs: ReadonlyArray<Tab>): string =>
  tabs.length === 0
    ? "no tabs"
    : tabs
      .map((t) => `${t.current ? "*" : " "} ${t.index}  ${t.targetId}  ${t.title === "" ? "(untitled)" : t.title}  ${t.url}`)
      .join("\n")

export const renderTab = (verb: string, t: Tab): string => `${verb} tab ${t.index}  ${t.targetId}  ${t.url}`

export const renderScreenshot = (r: ScreenshotResult): string => `MEDIA:${r.path}`

export const renderProfiles = (profiles: ReadonlyArray<ProfileInfo>): string =>
  profiles
    .map((p) =>
      `${p.isDefault ? "*" : " "} ${p.name}  ${p.driver}${p.builtIn ? " (built-in)" : ""}  ` +
      `${p.running ? "running" : "stopped"}  ${p.cdpUrl ?? (p.cdpPort !== null ? `port ${p.cdpPort}` : "")}  ${p.color}`
    )
    .join("\n")
