import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Automate } from "./act/Automate.js"
import { BrowserApi } from "./api.js"
import { StorageStates } from "./inspect/StorageStates.js"
import { Routes } from "./routes/Routes.js"
import { Inspector } from "./inspect/Inspector.js"
import { BrowserManager } from "./launch/BrowserManager.js"
import { profileInfo, Profiles } from "./launch/Profiles.js"
import { Tabs } from "./pages/Tabs.js"

// Thin handlers of the browser's routes: decode (done by the API schema), call one service, encode.

const BrowserHandlers = HttpApiBuilder.group(BrowserApi, "browser", (handlers) =>
  Effect.gen(function*() {
    const browsers = yield* BrowserManager
    const profiles = yield* Profiles
    return handlers
      .handle("status", ({ urlParams }) => browsers.status(urlParams.profile))
      .handle("start", ({ urlParams }) => browsers.start(urlParams.profile))
      .handle("stop", ({ urlParams }) => browsers.stop(urlParams.profile))
      .handle("profiles", () => browsers.listProfiles)
      .handle("createProfile", ({ payload }) => Effect.map(profiles.create(payload), (p) => profileInfo(p, false)))
      .handle("deleteProfile", ({ path }) => browsers.deleteProfile(path.name))
  })
)

const TabsHandlers = HttpApiBuilder.group(BrowserApi, "tabs", (handlers) =>
  Effect.gen(function*() {
    const tabs = yield* Tabs
    const automate = yield* Automate
    return handlers
      .handle("list", ({ urlParams }) => tabs.list(urlParams.profile))
      .handle("open", ({ payload, urlParams }) => automate.open(urlParams.profile, payload.url, { dialogs: payload.dialogs }))
      .handle("focus", ({ payload, urlParams }) => tabs.focus(urlParams.profile, payload.targetId))
      .handle("close", ({ path, urlParams }) => tabs.close(urlParams.profile, path.targetId))
  })
)

const InspectHandlers = HttpApiBuilder.group(BrowserApi, "inspect", (handlers) =>
  Effect.gen(function*() {
    const automate = yield* Automate
    return handlers
      .handle("snapshot", ({ urlParams }) => automate.snapshot(urlParams))
      .handle("screenshot", ({ payload, urlParams }) => automate.screenshot(urlParams.profile, payload))
      .handle("pdf", ({ payload, urlParams }) => automate.pdf(urlParams.profile, payload))
  })
)

const ActHandlers = HttpApiBuilder.group(BrowserApi, "act", (handlers) =>
  Effect.gen(function*() {
    const automate = yield* Automate
    return handlers
      .handle("navigate", ({ payload, urlParams }) => automate.navigate(urlParams.profile, payload))
      .handle("act", ({ payload, urlParams }) => automate.act(urlParams.profile, payload))
      .handle("highlight", ({ payload, urlParams }) => automate.highlight(urlParams.profile, payload))
      .handle("styles", ({ urlParams }) => automate.styles(urlParams.profile, urlParams))
  })
)
const ObserveHandlers = HttpApiBuilder.group(BrowserApi, "observe", (handlers) =>
  Effect.gen(function*() {
    const inspector = yield* Inspector
    return handlers
      .handle("console", ({ urlParams }) => inspector.console(urlParams))
      .handle("errors", ({ urlParams }) => inspector.errors(urlParams))
      .handle("requests", ({ urlParams }) => inspector.requests(urlParams))
      .handle("request", ({ urlParams }) => inspector.request(urlParams))
      .handle("responseBody", ({ payload, urlParams }) => inspector.responseBody(urlParams.profile, payload))
      .handle("traceStart", ({ payload, urlParams }) => inspector.traceStart(urlParams.profile, payload))
      .handle("traceStop", ({ payload, urlParams }) => inspector.traceStop(urlParams.profile, payload))
      .handle("dialog", ({ payload, urlParams }) => inspector.dialog(urlParams.profile, payload))
  })
)

const FilesHandlers = HttpApiBuilder.group(BrowserApi, "files", (handlers) =>
  Effect.gen(function*() {
    const inspector = yield* Inspector
    return handlers
      .handle("download", ({ payload, urlParams }) => inspector.download(urlParams.profile, payload))
      .handle("waitDownload", ({ payload, urlParams }) => inspector.waitDownload(urlParams.profile, payload))
      .handle("fileChooser", ({ payload, urlParams }) => inspector.fileChooser(urlParams.profile, payload))
  })
)

const StateHandlers = HttpApiBuilder.group(BrowserApi, "state", (handlers) =>
  Effect.gen(function*() {
    const inspector = yield* Inspector
    const states = yield* StorageStates
    const routes = yield* Routes
    return handlers
      .handle("cookies", ({ urlParams }) => inspector.cookies(urlParams))
      .handle("setCookie", ({ payload, urlParams }) => inspector.setCookie(urlParams.profile, payload))
      .handle("clearCookies", ({ payload, urlParams }) => inspector.clearCookies(urlParams.profile, payload))
      .handle("storage", ({ path, urlParams }) => inspector.storage(path.kind, urlParams))
      .handle("setStorage", ({ path, payload, urlParams }) => inspector.setStorage(path.kind, urlParams.profile, payload))
      .handle("clearStorage", ({ path, payload, urlParams }) => inspector.clearStorage(path.kind, urlParams.profile, payload))
      .handle("routes", ({ urlParams }) => routes.list(urlParams))
      .handle("addRoute", ({ payload, urlParams }) => routes.add({ ...payload, profile: urlParams.profile }))
      .handle("removeRoute", ({ payload, urlParams }) => routes.remove({ ...payload, profile: urlParams.profile }))
      .handle("saveStorageState", ({ payload, urlParams }) => states.save({ ...payload, profile: urlParams.profile }))
      .handle("loadStorageState", ({ payload, urlParams }) => states.load({ ...payload, profile: urlParams.profile }))
      .handle("offline", ({ payload, urlParams }) => inspector.offline(urlParams.profile, payload))
      .handle("headers", ({ payload, urlParams }) => inspector.headers(urlParams.profile, payload))
      .handle("credentials", ({ payload, urlParams }) => inspector.credentials(urlParams.profile, payload))
      .handle("geolocation", ({ payload, urlParams }) => inspector.geolocation(urlParams.profile, payload))
      .handle("media", ({ payload, urlParams }) => inspector.media(urlParams.profile, payload))
      .handle("throttle", ({ payload, urlParams }) => inspector.throttle(urlParams.profile, payload))
      .handle("timezone", ({ payload, urlParams }) => inspector.timezone(urlParams.profile, payload))
      .handle("locale", ({ payload, urlParams }) => inspector.locale(urlParams.profile, payload))
      .handle("device", ({ payload, urlParams }) => inspector.device(urlParams.profile, payload))
      .handle("viewport", ({ payload, urlParams }) => inspector.viewport(urlParams.profile, payload))
  })
)

/** Every browser route's handlers. */
export const BrowserHttpLive = Layer.mergeAll(
  BrowserHandlers,
  TabsHandlers,
  InspectHandlers,
  ActHandlers,
  ObserveHandlers,
  FilesHandlers,
  StateHandlers
)
