// The words of the OpenAPI document that the route definitions do not carry: one line per group and per
// route, keyed by the group's name and by operationId (`<group>.<endpoint>`). Kept here rather than in
// each capability's api.ts so the route files stay a plain list of routes; a unit test says which route
// has no line (test/unit/api/openApi.test.ts).

export const API_DESCRIPTION = "The loopback HTTP control API of the svc gateway: drive a Chromium browser (tabs, snapshots " +
  "with refs, actions, files, state) and send through the messaging bridge. Every route needs the gateway " +
  "token or password; every route of the browser takes `?profile=<name>`, and `?node=<id>` to run it on a " +
  "connected node host's browser instead (the request is forwarded whole; files it produced come back to this " +
  "gateway's media folder). Errors are JSON `{_tag, message}` " +
  "with their HTTP status."

export const GROUP_DESCRIPTIONS: Readonly<Record<string, string>> = {
  browser: "The profile's browser: status, start, stop, and profiles.",
  tabs: "Tabs of the profile's browser, in opening order.",
  inspect: "Snapshots (AI, ARIA, role) with refs, screenshots and PDFs of a tab.",
  act: "Navigate and act on elements by their snapshot refs (needs the automation library).",
  observe: "What a tab logged, threw and requested; response bodies, traces, and dialog answers.",
  files: "Downloads and file uploads, confined to their roots.",
  state: "Cookies, web storage and emulation settings.",
  messaging: "Send and run message actions through the messaging bridge.",
  gateway: "The gateway itself.",
  nodes: "Node hosts: other machines' browsers that dial this gateway (`svc node run`), pending until approved.",
  api: "This document."
}

export const OPERATION_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "browser.status": "Status of the profile's browser: running, pid, CDP endpoint, executable, automation library.",
  "browser.start": "Start the profile's browser (launch it, or attach to a running one).",
  "browser.stop": "Stop the profile's browser and drop the gateway's connection to it.",
  "browser.profiles": "List the browser profiles.",
  "browser.createProfile": "Create a browser profile (managed, or remote with a cdpUrl).",
  "browser.deleteProfile": "Delete a profile; its data dir goes to the trash.",
  "tabs.list": "List the tabs with their index; `current` marks the tab last opened or focused.",
  "tabs.open": "Open a tab on a URL; it becomes the current tab.",
  "tabs.focus": "Focus a tab by targetId; it becomes the current tab.",
  "tabs.close": "Close a tab by targetId.",
  "inspect.snapshot": "A snapshot of the tab: ai or role (with refs to act on) or aria; `diff` gives only what changed.",
  "inspect.screenshot": "Save a PNG of the tab, the full page, or one element by ref.",
  "inspect.pdf": "Save the tab as a PDF.",
  "act.navigate": "Load a URL in the tab.",
  "act.act": "One action by `kind` (click, type, press, fill, wait, evaluate, ...), with what it caused.",
  "act.highlight": "Outline an element for a few seconds.",
  "act.styles": "An element's CSS: computed values and the rules that set them, highest precedence first, overridden ones marked.",
  "observe.console": "Console messages the tab logged since the gateway attached.",
  "observe.errors": "Errors the tab threw, and dialogs nobody answered.",
  "observe.requests": "Requests the tab made.",
  "observe.request": "One request of the tab in full, by its seq: its headers both ways and the data it posted.",
  "observe.responseBody": "The body of the latest response whose URL matches a glob.",
  "observe.traceStart": "Start recording a trace.",
  "observe.traceStop": "Stop the trace and save it.",
  "observe.dialog": "Answer the dialog held open on the tab (an action with dialogs: hold), else arm the answer to the next one.",
  "files.download": "Click an element and save the download it starts in the downloads root.",
  "files.waitDownload": "Wait for the next download and save it in the downloads root.",
  "files.fileChooser": "Give files from the uploads root to the file chooser the last action opened, else arm the next one (or set a file input).",
  "state.cookies": "The profile's cookies.",
  "state.setCookie": "Set a cookie.",
  "state.clearCookies": "Clear the profile's cookies.",
  "state.storage": "Local or session storage of the tab's origin.",
  "state.setStorage": "Set a key of local or session storage.",
  "state.clearStorage": "Clear local or session storage.",
  "state.saveStorageState": "Save the profile's cookies and each origin's local storage to a file in the states root (never over a file).",
  "state.routes": "The profile's network routes: mocked, refused or changed requests, and how many each has met.",
  "state.addRoute": "Mock, refuse or change the requests whose URL matches a glob, in every tab of the profile.",
  "state.removeRoute": "Remove the route of a pattern, or every route.",
  "state.loadStorageState": "Replace the profile's cookies and local storage with a saved storage state.",
  "state.offline": "Take the profile offline, or back online.",
  "state.headers": "Extra HTTP headers for every request of the profile.",
  "state.credentials": "HTTP authentication credentials for the profile, or clear them.",
  "state.geolocation": "The geolocation the profile reports, or clear it.",
  "state.media": "Emulate CSS media features for the tab: colour scheme, reduced motion, forced colours, contrast, print.",
  "state.throttle": "Slow the tab's network (a preset, or latency and bandwidth) and CPU; none and 1 give the full speed back.",
  "state.timezone": "Emulate a time zone for the tab.",
  "state.locale": "Emulate a locale for the tab.",
  "state.device": "Emulate a named device for the tab.",
  "state.viewport": "Set the tab's viewport size.",
  "messaging.send": "Send a message (chunked like a reply) through the bridge.",
  "messaging.action": "Run a message action (react, edit, unsend, reply, ...) through the bridge.",
  "gateway.status": "The gateway, its browser and each messaging account; `deep=true` asks each bridge server.",
  "nodes.list": "The node hosts that have connected: id, pending or approved, connected, name, capabilities, profiles.",
  "nodes.approve": "Approve a pending node host (once per identity): requests with `?node=<id>` then reach it.",
  "nodes.revoke": "Forget a node host's approval and disconnect it; it is pending again when it reconnects.",
  "api.spec": "This OpenAPI 3.1 document (`svc api spec` prints the same)."
}

/** What each error status means on any route. */
export const ERROR_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "400": "The request was refused: a field the schema does not take (HttpApiDecodeError, naming it) or a value the browser refuses (InvalidRequest).",
  "401": "No credentials, or wrong ones: send `Authorization: Bearer <gateway token>` or the gateway password.",
  "403": "Refused: a Host that is not a loopback name, a cross-site Origin, a path outside its root, or a feature turned off.",
  "404": "Not found: no such tab, profile, ref, message or route.",
  "409": "The browser or the bridge is not in a state to do this now (not running, no current tab, an action that is off).",
  "413": "The request body, or a file, is over its size limit.",
  "429": "Too many failed credentials from this address: wait, then send the right ones.",
  "500": "An internal error.",
  "501": "Needs the automation library, which this gateway could not load.",
  "502": "The upstream server (the bridge server) failed or could not be reached.",
  "503": "The browser could not be found, launched or reached."
}
