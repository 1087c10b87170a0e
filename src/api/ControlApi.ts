import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
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
import * as Errors from "../domain/errors.js"

// The browser control API. One definition serves the server, the typed client (CLI, node host, agent
// tool) and OpenAPI. Every route takes `?profile=<name>`.

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
  .add(HttpApiEndpoint.post("open", "/tabs/open").setUrlParams(ProfileQuery).setPayload(OpenTabRequest).addSuccess(Tab))
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

export class ControlApi extends HttpApi.make("svc-control")
  .add(BrowserGroup)
  .add(TabsGroup)
  .add(InspectGroup)
  .add(ActGroup)
  .addError(Errors.InvalidRequest)
  .addError(Errors.Unauthorized)
  .addError(Errors.Forbidden)
  .addError(Errors.NotFound)
  .addError(Errors.Conflict)
  .addError(Errors.BrowserUnavailable)
  .addError(Errors.NotImplemented)
  .addError(Errors.InternalError)
{}
