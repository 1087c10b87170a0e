import { HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ConfigStore } from "../../config/ConfigStore.js"
import { InternalError, InvalidRequest } from "../../domain/errors.js"
import { makeDirsSync } from "../../platform/dirs.js"
import { replacePaths } from "../protocol.js"
import type { DecodedResponse } from "../protocol.js"
import { NodeRegistry } from "./NodeRegistry.js"

// `?node=<id>` on any control route: the whole request (method, path, query, body) goes to that node over
// its socket and the node's answer (status, body) comes back as this route's answer. Files the node produced
// (screenshots, PDFs, downloads, traces) arrive with the answer; they are written under this gateway's media
// folder and the answer names those copies. One rule for every route: no route needs code of its own.

const NODE_PARAM = "node"
const NODE_ID = /^[0-9a-f]{16}$/

/** Routes of the gateway itself, never forwarded. */
const own = (pathname: string) => pathname === "/nodes" || pathname.startsWith("/nodes/") || pathname === "/openapi.json"

const errorResponse = (e: { readonly _tag: string; readonly message: string }, status: number) =>
  HttpServerResponse.unsafeJson({ _tag: e._tag, message: e.message }, { status })

const STATUS: Record<string, number> = { InvalidRequest: 400, Forbidden: 403, NotFound: 404, BrowserUnavailable: 503, InternalError: 500 }

/** A new file in `dir` named like `name` (`name (1).ext` when taken), written owner-only; its path. */
const writeUnique = (dir: string, name: string, data: Uint8Array): string => {
  makeDirsSync(dir)
  const base = path.basename(name).replace(/[\u0000-\u001f]/g, "_") || "file"
  const ext = path.extname(base)
  const stem = base.slice(0, base.length - ext.length)
  for (let i = 0; ; i++) {
    const file = path.join(dir, i === 0 ? base : `${stem} (${i})${ext}`)
    try {
      fs.writeFileSync(file, data, { mode: 0o600, flag: "wx" })
      return file
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || i > 1000) throw e
    }
  }
}

/** The node's answer as this route's: its files copied here and their paths in the body replaced. */
const localAnswer = (mediaDir: string, nodeId: string, answer: DecodedResponse, startedAt: number) =>
  Effect.try({
    try: () => {
      const contentType = answer.header.headers["content-type"] ?? "application/json"
      let body: Uint8Array = answer.body
      if (answer.files.length > 0) {
        const dir = path.join(mediaDir, "browser", "nodes", nodeId)
        const copies = new Map<string, string>()
        for (const f of answer.files) copies.set(f.path, writeUnique(dir, f.path, f.data))
        body = Buffer.from(JSON.stringify(replacePaths(JSON.parse(Buffer.from(body).toString("utf8")), copies)), "utf8")
      }
      // The node's parts, and `hop`: the whole round trip through the node, as this gateway saw it.
      const hop = `hop;dur=${Math.round((performance.now() - startedAt) * 100) / 100}`
      const timing = answer.header.headers["server-timing"]
      const headers: Record<string, string> = { "server-timing": timing !== undefined ? `${timing}, ${hop}` : hop }
      return HttpServerResponse.uint8Array(body, { status: answer.header.status, contentType, headers })
    },
    catch: (e) => new InternalError({ message: `cannot keep the files node ${nodeId} sent: ${(e as Error).message}` })
  })

/** The control server's middleware (inside the guard): requests that name a node go there. */
export const forwardToNodes = HttpMiddleware.make((app) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://gateway")
    const nodeId = url.searchParams.get(NODE_PARAM)
    if (nodeId === null || own(url.pathname)) return yield* app
    if (!NODE_ID.test(nodeId)) {
      return errorResponse(
        new InvalidRequest({ message: `node: expected a node id (16 hex digits, as \`svc nodes list\` shows it), got ${JSON.stringify(nodeId)}` }),
        400
      )
    }
    url.searchParams.delete(NODE_PARAM)
    const registry = yield* NodeRegistry
    const config = yield* ConfigStore
    const body = new Uint8Array(yield* request.arrayBuffer.pipe(Effect.orElseSucceed(() => new ArrayBuffer(0))))
    const headers: Record<string, string> = {}
    for (const name of ["content-type", "accept"]) {
      const value = request.headers[name]
      if (value !== undefined) headers[name] = value
    }
    const startedAt = performance.now()
    return yield* registry.forward(nodeId, { method: request.method, path: `${url.pathname}${url.search}`, headers, body }).pipe(
      Effect.flatMap((answer) => localAnswer(config.paths.mediaDir, nodeId, answer, startedAt)),
      Effect.catchAll((e) => Effect.succeed(errorResponse(e, STATUS[e._tag] ?? 500)))
    )
  })
)
