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
import * as S from "../domain/browserState.js"
import * as R from "../domain/routes.js"
import * as Styles from "../domain/styles.js"
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
  .add(HttpApiEndpoint.get("styles", "/styles").setUrlParams(Styles.StylesQuery).addSuccess(Styles.StylesResult))
{}

/** Console, errors, requests, response bodies, traces and dialogs (the automation library). */
export class ObserveGroup extends HttpApiGroup.make("observe")
  .add(HttpApiEndpoint.get("console", "/console").setUrlParams(S.ConsoleQuery).addSuccess(S.ConsoleResult))
  .add(HttpApiEndpoint.get("errors", "/errors").setUrlParams(S.ErrorsQuery).addSuccess(S.ErrorsResult))
  .add(HttpApiEndpoint.get("requests", "/requests").setUrlParams(S.RequestsQuery).addSuccess(S.RequestsResult))
  .add(HttpApiEndpoint.get("request", "/request").setUrlParams(S.RequestQuery).addSuccess(S.RequestDetail))
  .add(
    HttpApiEndpoint.post("responseBody", "/response/body")
      .setUrlParams(ProfileQuery)
      .setPayload(S.ResponseBodyRequest)
      .addSuccess(S.ResponseBodyResult)
  )
  .add(
    HttpApiEndpoint.post("traceStart", "/trace/start")
      .setUrlParams(ProfileQuery)
      .setPayload(S.TraceStartRequest)
      .addSuccess(S.TraceStartResult)
  )
  .add(
    HttpApiEndpoint.post("traceStop", "/trace/stop")
      .setUrlParams(ProfileQuery)
      .setPayload(S.TraceStopRequest)
      .addSuccess(S.TraceStopResult)
  )
  .add(
    HttpApiEndpoint.post("dialog", "/hooks/dialog")
      .setUrlParams(ProfileQuery)
      .setPayload(S.DialogHookRequest)
      .addSuccess(S.HookResult)
  )
{}

/** Downloads and uploads, confined to their roots under /tmp/svc. */
export class FilesGroup extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.post("download", "/download")
      .setUrlParams(ProfileQuery)
      .setPayload(S.DownloadRequest)
      .addSuccess(S.DownloadResult)
  )
  .add(
    HttpApiEndpoint.post("waitDownload", "/wait/download")
      .setUrlParams(ProfileQuery)
      .setPayload(S.WaitDownloadRequest)
      .addSuccess(S.DownloadResult)
  )
  .add(
    HttpApiEndpoint.post("fileChooser", "/hooks/file-chooser")
      .setUrlParams(ProfileQuery)
      .setPayload(S.FileChooserRequest)
      .addSuccess(S.HookResult)
  )
{}

const StoragePath = Schema.Struct({ kind: S.StorageKind })

/** Cookies, storage and emulation settings. */
export class StateGroup extends HttpApiGroup.make("state")
  .add(HttpApiEndpoint.get("cookies", "/cookies").setUrlParams(S.TabQueryParams).addSuccess(S.CookiesResult))
  .add(
    HttpApiEndpoint.post("setCookie", "/cookies/set").setUrlParams(ProfileQuery).setPayload(S.SetCookieRequest).addSuccess(
      S.DoneResult
    )
  )
  .add(
    HttpApiEndpoint.post("clearCookies", "/cookies/clear").setUrlParams(ProfileQuery).setPayload(S.TabRequest).addSuccess(
      S.DoneResult
    )
  )
  .add(
    HttpApiEndpoint.get("storage", "/storage/:kind").setPath(StoragePath).setUrlParams(S.TabQueryParams).addSuccess(
      S.StorageResult
    )
  )
  .add(
    HttpApiEndpoint.post("setStorage", "/storage/:kind/set")
      .setPath(StoragePath)
      .setUrlParams(ProfileQuery)
      .setPayload(S.SetStorageRequest)
      .addSuccess(S.DoneResult)
  )
  .add(
    HttpApiEndpoint.post("clearStorage", "/storage/:kind/clear")
      .setPath(StoragePath)
      .setUrlParams(ProfileQuery)
      .setPayload(S.TabRequest)
      .addSuccess(S.DoneResult)
  )
  .add(HttpApiEndpoint.post("offline", "/set/offline").setUrlParams(ProfileQuery).setPayload(S.OfflineRequest).addSuccess(S.DoneResult))
  .add(HttpApiEndpoint.post("headers", "/set/headers").setUrlParams(ProfileQuery).setPayload(S.HeadersRequest).addSuccess(S.DoneResult))
  .add(
    HttpApiEndpoint.post("credentials", "/set/credentials").setUrlParams(ProfileQuery).setPayload(S.CredentialsRequest).addSuccess(
      S.DoneResult
    )
  )
  .add(
    HttpApiEndpoint.post("geolocation", "/set/geolocation").setUrlParams(ProfileQuery).setPayload(S.GeolocationRequest).addSuccess(
      S.DoneResult
    )
  )
  .add(
    HttpApiEndpoint.post("saveStorageState", "/storage-state/save").setUrlParams(ProfileQuery).setPayload(S.SaveStorageStateRequest)
      .addSuccess(S.StorageStateResult)
  )
  .add(
    HttpApiEndpoint.post("loadStorageState", "/storage-state/load").setUrlParams(ProfileQuery).setPayload(S.LoadStorageStateRequest)
      .addSuccess(S.StorageStateResult)
  )
  .add(HttpApiEndpoint.get("routes", "/routes").setUrlParams(S.TabQueryParams).addSuccess(R.RoutesResult))
  .add(HttpApiEndpoint.post("addRoute", "/routes/add").setUrlParams(ProfileQuery).setPayload(R.AddRouteRequest).addSuccess(R.AddRouteResult))
  .add(
    HttpApiEndpoint.post("removeRoute", "/routes/remove").setUrlParams(ProfileQuery).setPayload(R.RemoveRouteRequest)
      .addSuccess(R.RemoveRouteResult)
  )
  .add(HttpApiEndpoint.post("media", "/set/media").setUrlParams(ProfileQuery).setPayload(S.MediaRequest).addSuccess(S.DoneResult))
  .add(
    HttpApiEndpoint.post("throttle", "/set/throttle").setUrlParams(ProfileQuery).setPayload(S.ThrottleRequest).addSuccess(S.DoneResult)
  )
  .add(
    HttpApiEndpoint.post("timezone", "/set/timezone").setUrlParams(ProfileQuery).setPayload(S.TimezoneRequest).addSuccess(S.DoneResult)
  )
  .add(HttpApiEndpoint.post("locale", "/set/locale").setUrlParams(ProfileQuery).setPayload(S.LocaleRequest).addSuccess(S.DoneResult))
  .add(HttpApiEndpoint.post("device", "/set/device").setUrlParams(ProfileQuery).setPayload(S.DeviceRequest).addSuccess(S.DoneResult))
  .add(
    HttpApiEndpoint.post("viewport", "/set/viewport").setUrlParams(ProfileQuery).setPayload(S.ViewportRequest).addSuccess(S.DoneResult)
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
