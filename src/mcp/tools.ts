import { browserTool } from "./browserTool.js"
import * as B from "./browserTools.js"
import * as I from "./inspectTools.js"
import * as P from "./pointerTools.js"
import * as R from "./routeTools.js"
import * as S from "./stateTools.js"
import { tabs } from "./tabTools.js"
import type { McpTool } from "./tool.js"

/** Every tool `svc mcp` serves: Playwright MCP's names first, then svc's own, and its agent tool `browser`. */
export const ALL_TOOLS: ReadonlyArray<McpTool> = [
  B.navigate,
  B.navigateBack,
  B.navigateForward,
  B.reload,
  B.snapshot,
  B.find,
  B.click,
  P.clickAt,
  P.mouseWheel,
  P.mouseMove,
  P.mouseDrag,
  P.mouseDown,
  P.mouseUp,
  B.type,
  B.pressKey,
  B.hover,
  B.highlight,
  B.cssStyles,
  B.drag,
  B.drop,
  B.selectOption,
  B.fillForm,
  I.fileUpload,
  I.handleDialog,
  B.evaluate,
  B.waitFor,
  B.takeScreenshot,
  tabs,
  I.consoleMessages,
  I.networkRequests,
  I.networkRequest,
  I.responseBody,
  R.route,
  R.routeList,
  R.unroute,
  B.pdfSave,
  B.close,
  S.resize,
  I.pageErrors,
  I.trace,
  S.status,
  S.profiles,
  S.cookies,
  S.storage,
  S.storageState,
  S.setStorageState,
  S.emulate,
  S.networkState,
  S.emulateMedia,
  S.throttle,
  S.download,
  browserTool
]
