import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import {
  ActRequest,
  ActResult,
  BrowserStatus,
  CloseTabResult,
  CreateProfileRequest,
  DeleteProfileResult,
  FocusTabRequest,
  HighlightRequest,
  HighlightResult,
  NavigateRequest,
  NavigateResult,
  OpenedTab,
  OpenTabRequest,
  PdfRequest,
  PdfResult,
  ProfileInfo,
  ProfileList,
  ProfileName,
  ProfileQuery,
  ScreenshotRequest,
  ScreenshotResult,
  SnapshotQuery,
  SnapshotResult,
  StartResult,
  StopResult,
  Tab,
  TabList,
  TargetId
} from "../domain/browser.js"
import * as B from "../domain/browser.js"
import { ControlApiBase } from "../domain/controlApi.js"

// The browser's routes of the control API. One definition serves the server (browser/http.ts), the typed
// client (CLI, node host, agent tool) and OpenAPI. Every route takes `?profile=<name>`.

export class BrowserGroup extends HttpApiGroup.make("browser")
  .add(HttpApiEndpoint.get("status", "/").setUrlParams(ProfileQuery).addSuccess(BrowserStatus))
  .add(HttpApiEndpoint.post("start", "/start").setUrlParams(ProfileQuery).addSuccess(StartResult))
  .add(HttpApiEndpoint.post("stop", "/stop").setUrlParams(ProfileQuery).addSuccess(StopResult))
  .add(HttpApiEndpoint.get("profiles", "/profiles").setUrlParams(ProfileQuery).addSuccess(ProfileList))
  .add(
    HttpApiEndpoint.post("createProfile", "/profiles/create")
      .setUrlParams(ProfileQuery)
      .setPayload(CreateProfileRequest)
      .addSuccess(ProfileInfo)
  )
  .add(
    HttpApiEndpoint.del("deleteProfile", "/profiles/:name")
      .setPath(Schema.Struct({ name: ProfileName }))
      .setUrlParams(ProfileQuery)
      .addSuccess(DeleteProfileResult)
  )
{}

export class TabsGroup extends HttpApiGroup.make("tabs")
  .add(HttpApiEndpoint.get("list", "/tabs").setUrlParams(ProfileQuery).addSuccess(TabList))
  .add(HttpApiEndpoint.post("open", "/tabs/open").setUrlParams(ProfileQuery).setPayload(OpenTabRequest).addSuccess(OpenedTab))
  .add(
    HttpApiEndpoint.post("focus", "/tabs/focus").setUrlParams(ProfileQuery).setPayload(FocusTabRequest).addSuccess(Tab)
  )
  .add(
    HttpApiEndpoint.del("close", "/tabs/:targetId")
      .setPath(Schema.Struct({ targetId: TargetId }))
      .setUrlParams(ProfileQuery)
      .addSuccess(CloseTabResult)
  )
{}

export class InspectGroup extends HttpApiGroup.make("inspect")
  .add(HttpApiEndpoint.get("snapshot", "/snapshot").setUrlParams(SnapshotQuery).addSuccess(SnapshotResult))
  .add(
    HttpApiEndpoint.post("screenshot", "/screenshot")
      .setUrlParams(ProfileQuery)
      .setPayload(ScreenshotRequest)
      .addSuccess(ScreenshotResult)
  )
  .add(HttpApiEndpoint.post("pdf", "/pdf").setUrlParams(ProfileQuery).setPayload(PdfRequest).addSuccess(PdfResult))
{}

/** Navigate and act: these need the automation library (501 without it). */
export class ActGroup extends HttpApiGroup.make("act")
  .add(
    HttpApiEndpoint.post("navigate", "/navigate")
      .setUrlParams(ProfileQuery)
      .setPayload(NavigateRequest)
      .addSuccess(NavigateResult)
  )
  .add(HttpApiEndpoint.post("act", "/act").setUrlParams(ProfileQuery).setPayload(ActRequest).addSuccess(ActResult))
  .add(
    HttpApiEndpoint.post("highlight", "/highlight")
      .setUrlParams(ProfileQuery)
      .setPayload(HighlightRequest)
      .addSuccess(HighlightResult)
  )
{}

/** Console, errors, requests, response bodies, traces and dialogs (the automation library). */
export class ObserveGroup extends HttpApiGroup.make("observe")
  .add(HttpApiEndpoint.get("console", "/console").setUrlParams(B.ConsoleQuery).addSuccess(B.ConsoleResult))
  .add(HttpApiEndpoint.get("errors", "/errors").setUrlParams(B.ErrorsQuery).addSuccess(B.ErrorsResult))
  .add(HttpApiEndpoint.get("requests", "/requests").setUrlParams(B.RequestsQuery).addSuccess(B.RequestsResult))
  .add(
    HttpApiEndpoint.post("responseBody", "/response/body")
      .setUrlParams(ProfileQuery)
      .setPayload(B.ResponseBodyRequest)
      .addSuccess(B.ResponseBodyResult)
  )
  .add(
    HttpApiEndpoint.post("traceStart", "/trace/start")
      .setUrlParams(ProfileQuery)
      .setPayload(B.TraceStartRequest)
      .addSuccess(B.TraceStartResult)
  )
  .add(
    HttpApiEndpoint.post("traceStop", "/trace/stop")
      .setUrlParams(ProfileQuery)
      .setPayload(B.TraceStopRequest)
      .addSuccess(B.TraceStopResult)
  )
  .add(
    HttpApiEndpoint.post("dialog", "/hooks/dialog")
      .setUrlParams(ProfileQuery)
      .setPayload(B.DialogHookRequest)
      .addSuccess(B.HookResult)
  )
{}

/** Downloads and uploads, confined to their roots under /tmp/svc. */
export class FilesGroup extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.post("download", "/download")
      .setUrlParams(ProfileQuery)
      .setPayload(B.DownloadRequest)
      .addSuccess(B.DownloadResult)
  )
  .add(
    HttpApiEndpoint.post("waitDownload", "/wait/download")
      .setUrlParams(ProfileQuery)
      .setPayload(B.WaitDownloadRequest)
      .addSuccess(B.DownloadResult)
  )
  .add(
    HttpApiEndpoint.post("fileChooser", "/hooks/file-chooser")
      .setUrlParams(ProfileQuery)
      .setPayload(B.FileChooserRequest)
      .addSuccess(B.HookResult)
  )
{}

const StoragePath = Schema.Struct({ kind: B.StorageKind })

/** Cookies, storage and emulation settings. */
export class StateGroup extends HttpApiGroup.make("state")
  .add(HttpApiEndpoint.get("cookies", "/cookies").setUrlParams(B.TabQueryParams).addSuccess(B.CookiesResult))
  .add(
    HttpApiEndpoint.post("setCookie", "/cookies/set").setUrlParams(ProfileQuery).setPayload(B.SetCookieRequest).addSuccess(
      B.DoneResult
    )
  )
  .add(
    HttpApiEndpoint.post("clearCookies", "/cookies/clear").setUrlParams(ProfileQuery).setPayload(B.TabRequest).addSuccess(
      B.DoneResult
    )
  )
  .add(
    HttpApiEndpoint.get("storage", "/storage/:kind").setPath(StoragePath).setUrlParams(B.TabQueryParams).addSuccess(
      B.StorageResult
    )
  )
  .add(
    HttpApiEndpoint.post("setStorage", "/storage/:kind/set")
      .setPath(StoragePath)
      .setUrlParams(ProfileQuery)
      .setPayload(B.SetStorageRequest)
      .addSuccess(B.DoneResult)
  )
  .add(
    HttpApiEndpoint.post("clearStorage", "/storage/:kind/clear")
      .setPath(StoragePath)
      .setUrlParams(ProfileQuery)
      .setPayload(B.TabRequest)
      .addSuccess(B.DoneResult)
  )
  .add(HttpApiEndpoint.post("offline", "/set/offline").setUrlParams(ProfileQuery).setPayload(B.OfflineRequest).addSuccess(B.DoneResult))
  .add(HttpApiEndpoint.post("headers", "/set/headers").setUrlParams(ProfileQuery).setPayload(B.HeadersRequest).addSuccess(B.DoneResult))
  .add(
    HttpApiEndpoint.post("credentials", "/set/credentials").setUrlParams(ProfileQuery).setPayload(B.CredentialsRequest).addSuccess(
      B.DoneResult
    )
  )
  .add(
    HttpApiEndpoint.post("geolocation", "/set/geolocation").setUrlParams(ProfileQuery).setPayload(B.GeolocationRequest).addSuccess(
      B.DoneResult
    )
  )
  .add(HttpApiEndpoint.post("media", "/set/media").setUrlParams(ProfileQuery).setPayload(B.MediaRequest).addSuccess(B.DoneResult))
  .add(
    HttpApiEndpoint.post("timezone", "/set/timezone").setUrlParams(ProfileQuery).setPayload(B.TimezoneRequest).addSuccess(B.DoneResult)
  )
  .add(HttpApiEndpoint.post("locale", "/set/locale").setUrlParams(ProfileQuery).setPayload(B.LocaleRequest).addSuccess(B.DoneResult))
  .add(HttpApiEndpoint.post("device", "/set/device").setUrlParams(ProfileQuery).setPayload(B.DeviceRequest).addSuccess(B.DoneResult))
  .add(
    HttpApiEndpoint.post("viewport", "/set/viewport").setUrlParams(ProfileQuery).setPayload(B.ViewportRequest).addSuccess(B.DoneResult)
  )
{}

/** The browser's part of the control API. */
export class BrowserApi extends ControlApiBase
  .add(BrowserGroup)
  .add(TabsGroup)
  .add(InspectGroup)
  .add(ActGroup)
  .add(ObserveGroup)
  .add(FilesGroup)
  .add(StateGroup)
{}
