import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { ControlApi } from "../api/ControlApi.js"
import { BrowserManager } from "../browser/launch/BrowserManager.js"
import { Automate } from "../browser/act/Automate.js"
import { Capture } from "../browser/snapshot/Capture.js"
import { Inspector } from "../browser/inspect/Inspector.js"
import { Profiles, type ResolvedProfile } from "../browser/launch/Profiles.js"
import { Tabs } from "../browser/pages/Tabs.js"
import type { ProfileInfo } from "../domain/browser.js"
import { Trash } from "../browser/launch/Trash.js"
import { ConfigStore } from "../config/ConfigStore.js"
import { InternalError } from "../domain/errors.js"
import * as fs from "node:fs"
import { MessagingHandlers } from "./MessagingHandlers.js"

// Thin handlers: decode (done by the API schema), call one service, encode.

const info = (p: ResolvedProfile, running: boolean): ProfileInfo => ({
  name: p.name,
  driver: p.driver,
  builtIn: p.builtIn,
  isDefault: p.isDefault,
  cdpPort: p.cdpPort,
  cdpUrl: p.cdpUrl,
  attachOnly: p.attachOnly,
  color: p.color,
  running
})

const BrowserHandlers = HttpApiBuilder.group(ControlApi, "browser", (handlers) =>
  Effect.gen(function*() {
    const browsers = yield* BrowserManager
    const profiles = yield* Profiles
    const trash = yield* Trash
    const store = yield* ConfigStore
    return handlers
      .handle("status", ({ urlParams }) => browsers.status(urlParams.profile))
      .handle("start", ({ urlParams }) => browsers.start(urlParams.profile))
      .handle("stop", ({ urlParams }) => browsers.stop(urlParams.profile))
      .handle("profiles", () =>
        Effect.gen(function*() {
          const running = yield* browsers.runningProfiles
          const all = yield* profiles.list
          return { profiles: all.map((p) => info(p, running.has(p.name))) }
        }))
      .handle("createProfile", ({ payload }) => Effect.map(profiles.create(payload), (p) => info(p, false)))
      .handle("deleteProfile", ({ path }) =>
        Effect.gen(function*() {
          const profile = yield* browsers.deleteProfile(path.name)
          const dir = profile.driver === "managed" ? store.paths.profileDir(profile.name) : undefined
          const trashedTo = dir !== undefined && fs.existsSync(dir)
            ? yield* trash.moveToTrash(dir, { stateDir: store.paths.stateDir }).pipe(
              Effect.mapError((e) => new InternalError({ message: e.message }))
            )
            : null
          return { name: profile.name, deleted: true, trashedTo }
        }))
  })
)

const TabsHandlers = HttpApiBuilder.group(ControlApi, "tabs", (handlers) =>
  Effect.gen(function*() {
    const tabs = yield* Tabs
    return handlers
      .handle("list", ({ urlParams }) => tabs.list(urlParams.profile))
      .handle("open", ({ payload, urlParams }) => tabs.open(urlParams.profile, payload.url))
      .handle("focus", ({ payload, urlParams }) => tabs.focus(urlParams.profile, payload.targetId))
      .handle("close", ({ path, urlParams }) => tabs.close(urlParams.profile, path.targetId))
  })
)

const InspectHandlers = HttpApiBuilder.group(ControlApi, "inspect", (handlers) =>
  Effect.gen(function*() {
    const capture = yield* Capture
    const automate = yield* Automate
    return handlers
      .handle("snapshot", ({ urlParams }) => automate.snapshot(urlParams))
      .handle("screenshot", ({ payload, urlParams }) =>
        payload.ref !== undefined
          ? automate.elementScreenshot(urlParams.profile, { ref: payload.ref, targetId: payload.targetId })
          : capture.screenshot({ profile: urlParams.profile, targetId: payload.targetId, fullPage: payload.fullPage }))
      .handle("pdf", ({ payload, urlParams }) => automate.pdf(urlParams.profile, payload))
  })
)

const ActHandlers = HttpApiBuilder.group(ControlApi, "act", (handlers) =>
  Effect.gen(function*() {
    const automate = yield* Automate
    return handlers
      .handle("navigate", ({ payload, urlParams }) => automate.navigate(urlParams.profile, payload))
      .handle("act", ({ payload, urlParams }) => automate.act(urlParams.profile, payload))
      .handle("highlight", ({ payload, urlParams }) => automate.highlight(urlParams.profile, payload))
  })
)

const ObserveHandlers = HttpApiBuilder.group(ControlApi, "observe", (handlers) =>
  Effect.gen(function*() {
    const inspector = yield* Inspector
    return handlers
      .handle("console", ({ urlParams }) => inspector.console(urlParams))
      .handle("errors", ({ urlParams }) => inspector.errors(urlParams))
      .handle("requests", ({ urlParams }) => inspector.requests(urlParams))
      .handle("responseBody", ({ payload, urlParams }) => inspector.responseBody(urlParams.profile, payload))
      .handle("traceStart", ({ payload, urlParams }) => inspector.traceStart(urlParams.profile, payload))
      .handle("traceStop", ({ payload, urlParams }) => inspector.traceStop(urlParams.profile, payload))
      .handle("dialog", ({ payload, urlParams }) => inspector.dialog(urlParams.profile, payload))
  })
)

const FilesHandlers = HttpApiBuilder.group(ControlApi, "files", (handlers) =>
  Effect.gen(function*() {
    const inspector = yield* Inspector
    return handlers
      .handle("download", ({ payload, urlParams }) => inspector.download(urlParams.profile, payload))
      .handle("waitDownload", ({ payload, urlParams }) => inspector.waitDownload(urlParams.profile, payload))
      .handle("fileChooser", ({ payload, urlParams }) => inspector.fileChooser(urlParams.profile, payload))
  })
)

const StateHandlers = HttpApiBuilder.group(ControlApi, "state", (handlers) =>
  Effect.gen(function*() {
    const inspector = yield* Inspector
    return handlers
      .handle("cookies", ({ urlParams }) => inspector.cookies(urlParams))
      .handle("setCookie", ({ payload, urlParams }) => inspector.setCookie(urlParams.profile, payload))
      .handle("clearCookies", ({ payload, urlParams }) => inspector.clearCookies(urlParams.profile, payload))
      .handle("storage", ({ path, urlParams }) => inspector.storage(path.kind, urlParams))
      .handle("setStorage", ({ path, payload, urlParams }) => inspector.setStorage(path.kind, urlParams.profile, payload))
      .handle("clearStorage", ({ path, payload, urlParams }) => inspector.clearStorage(path.kind, urlParams.profile, payload))
      .handle("offline", ({ payload, urlParams }) => inspector.offline(urlParams.profile, payload))
      .handle("headers", ({ payload, urlParams }) => inspector.headers(urlParams.profile, payload))
      .handle("credentials", ({ payload, urlParams }) => inspector.credentials(urlParams.profile, payload))
      .handle("geolocation", ({ payload, urlParams }) => inspector.geolocation(urlParams.profile, payload))
      .handle("media", ({ payload, urlParams }) => inspector.media(urlParams.profile, payload))
      .handle("timezone", ({ payload, urlParams }) => inspector.timezone(urlParams.profile, payload))
      .handle("locale", ({ payload, urlParams }) => inspector.locale(urlParams.profile, payload))
      .handle("device", ({ payload, urlParams }) => inspector.device(urlParams.profile, payload))
      .handle("viewport", ({ payload, urlParams }) => inspector.viewport(urlParams.profile, payload))
  })
)

export const ControlHandlersLive = Layer.mergeAll(
  BrowserHandlers,
  TabsHandlers,
  InspectHandlers,
  ActHandlers,
  ObserveHandlers,
  FilesHandlers,
  StateHandlers,
  MessagingHandlers
)
