import * as path from "node:path"

// The keep-alive of a bridge Mac (headless, or a virtual machine): a per-user launchd agent that runs a
// small script at login and every few minutes; the script asks the Messages app one harmless question
// over Apple events, which launches Messages when it is not running and keeps it awake for the bridge
// server. Pure: the paths and the text of both files, and the commands that load the agent. Writing them
// and running launchctl is the CLI's job (src/cli/commands/msgbridge.ts).

export const KEEPALIVE_LABEL = "dev.svc.msgbridge-keepalive"
export const DEFAULT_KEEPALIVE_INTERVAL_SECONDS = 300
export const MIN_KEEPALIVE_INTERVAL_SECONDS = 60
/** A day: longer is not a keep-alive. */
export const MAX_KEEPALIVE_INTERVAL_SECONDS = 86_400

export interface KeepaliveFile {
  readonly path: string
  readonly content: string
  readonly mode: number
}

export interface KeepalivePlan {
  readonly label: string
  readonly intervalSeconds: number
  readonly script: KeepaliveFile
  readonly plist: KeepaliveFile
  readonly logFile: string
}

export interface KeepaliveOptions {
  /** The home directory of the user whose session runs Messages and the bridge server. */
  readonly home: string
  readonly intervalSeconds?: number
}

// macOS paths, whatever machine generates them (--print works anywhere).
const join = path.posix.join

export const keepalivePaths = (home: string) => ({
  plist: join(home, "Library", "LaunchAgents", `${KEEPALIVE_LABEL}.plist`),
  script: join(home, "Library", "Application Support", "svc", "msgbridge-keepalive.sh"),
  logFile: join(home, "Library", "Logs", "svc-msgbridge-keepalive.log")
})

/** A word for a POSIX shell command line, quoted only when it needs to be. */
export const shellQuote = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`

const xmlEscape = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/**
 * The script launchd runs. `count of chats` is read-only, but it is a real Apple event to Messages (a
 * property such as `name` or `running` is answered without the app), so Messages is launched and woken,
 * and macOS asks once for the Automation permission. Quiet on success unless run from a terminal, so
 * the log only grows when something is wrong.
 */
export const keepaliveScript = (options: { readonly intervalSeconds: number }): string =>
  `#!/bin/sh
# svc msgbridge keep-alive, written by \`svc msgbridge keepalive install\` (run it again to change this file).
# launchd runs it at login and every ${options.intervalSeconds} seconds (agent ${KEEPALIVE_LABEL}). It asks
# the Messages app a harmless question over Apple events: Messages is launched when it is not running and
# stays awake for the bridge server. The first run needs the Automation permission: run this file once
# from Terminal in the same logged-in user session and allow the prompt
# ("... wants access to control Messages").

out=$(osascript \\
  -e 'with timeout of 30 seconds' \\
  -e 'tell application "Messages"' \\
  -e 'if it is not running then launch' \\
  -e 'count of chats' \\
  -e 'end tell' \\
  -e 'end timeout' 2>&1)
status=$?
if [ "$status" -ne 0 ]; then
  echo "$(date '+%Y-%m-%d %H:%M:%S') svc msgbridge keep-alive: Messages did not answer (osascript exit $status): $out" >&2
  case "$out" in
    *-1743*|*"Not authorized"*|*"not allowed"*)
      echo "  not allowed to control Messages: run this script once from Terminal in this user's session and allow it, or turn it on in System Settings > Privacy & Security > Automation" >&2 ;;
  esac
  exit "$status"
fi
if [ -t 1 ]; then
  echo "svc msgbridge keep-alive: Messages answered ($out chats)"
fi
exit 0
`

/** The launchd agent: runs the script at load (login) and every `intervalSeconds`, in the GUI session only. */
export const keepalivePlist = (options: {
  readonly scriptPath: string
  readonly logFile: string
  readonly intervalSeconds: number
}): string =>
  `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${xmlEscape(KEEPALIVE_LABEL)}</string>
  <key>ProgramArguments</key>
  <array>
    <string>/bin/sh</string>
    <string>${xmlEscape(options.scriptPath)}</string>
  </array>
  <key>RunAtLoad</key>
  <true/>
  <key>StartInterval</key>
  <integer>${options.intervalSeconds}</integer>
  <key>LimitLoadToSessionType</key>
  <string>Aqua</string>
  <key>ProcessType</key>
  <string>Background</string>
  <key>StandardOutPath</key>
  <string>${xmlEscape(options.logFile)}</string>
  <key>StandardErrorPath</key>
  <string>${xmlEscape(options.logFile)}</string>
</dict>
</plist>
`

/** Both files, with their target paths and modes. */
export const planKeepalive = (options: KeepaliveOptions): KeepalivePlan => {
  const intervalSeconds = options.intervalSeconds ?? DEFAULT_KEEPALIVE_INTERVAL_SECONDS
  const paths = keepalivePaths(options.home)
  return {
    label: KEEPALIVE_LABEL,
    intervalSeconds,
    logFile: paths.logFile,
    script: { path: paths.script, content: keepaliveScript({ intervalSeconds }), mode: 0o755 },
    plist: {
      path: paths.plist,
      content: keepalivePlist({ scriptPath: paths.script, logFile: paths.logFile, intervalSeconds }),
      mode: 0o644
    }
  }
}

/** An interval the agent accepts, or the one line saying why not. */
export const checkKeepaliveInterval = (seconds: number): string | undefined =>
  Number.isInteger(seconds) && seconds >= MIN_KEEPALIVE_INTERVAL_SECONDS && seconds <= MAX_KEEPALIVE_INTERVAL_SECONDS
    ? undefined
    : `--interval must be a whole number of seconds from ${MIN_KEEPALIVE_INTERVAL_SECONDS} to ${MAX_KEEPALIVE_INTERVAL_SECONDS}, got ${seconds}`

/**
 * launchctl argument lists that (re)load the agent in the GUI session of `uid`: unload a previous copy
 * (its failure when none is loaded is expected), then load the plist.
 */
export const launchctlCommands = (uid: number, plistPath: string) => ({
  unload: ["bootout", `gui/${uid}/${KEEPALIVE_LABEL}`],
  load: ["bootstrap", `gui/${uid}`, plistPath]
})

/** What a person types on the Mac to load the agent. */
export const loadCommandLine = (plistPath: string): string => `launchctl bootstrap gui/$(id -u) ${shellQuote(plistPath)}`
