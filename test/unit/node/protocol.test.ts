import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { openNodeStore, MAX_PENDING, type NodeRecord } from "../../../src/node/gateway/NodeStore.js"
import { answerFiles } from "../../../src/node/host/files.js"
import { loadOrCreateIdentity } from "../../../src/node/host/identity.js"
import { socketUrl } from "../../../src/node/host/NodeHost.js"
import {
  decodeResponse,
  encodeResponse,
  filePathsIn,
  nodeIdOf,
  PROTOCOL,
  replacePaths,
  verifyHello
} from "../../../src/node/protocol.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "svc-node-unit-"))

describe("node identity and hello", () => {
  it("a node keeps its key pair: the same id after a restart, a signature only its key makes", () => {
    const dir = tmp()
    const a = loadOrCreateIdentity(dir)
    const again = loadOrCreateIdentity(dir)
    expect(again.id).toBe(a.id)
    expect(a.id).toMatch(/^[0-9a-f]{16}$/)
    expect(a.id).toBe(nodeIdOf(a.publicKey))
    expect(fs.statSync(a.file).mode & 0o077).toBe(0)

    const nonce = crypto.randomBytes(32).toString("base64")
    expect(verifyHello({ publicKey: a.publicKey, signature: a.sign(nonce) }, nonce)).toBe(true)
    // Another nonce (a replayed hello), another key claiming the id, or junk: refused.
    expect(verifyHello({ publicKey: a.publicKey, signature: a.sign(nonce) }, "other")).toBe(false)
    const b = loadOrCreateIdentity(tmp())
    expect(b.id).not.toBe(a.id)
    expect(verifyHello({ publicKey: a.publicKey, signature: b.sign(nonce) }, nonce)).toBe(false)
    expect(verifyHello({ publicKey: "junk", signature: "junk" }, nonce)).toBe(false)
    expect(PROTOCOL).toBe("svc-node-1")
  })

  it("the socket URL gets the node path unless it has one, and must be ws or wss", () => {
    expect(socketUrl("ws://127.0.0.1:18789")).toBe("ws://127.0.0.1:18789/node")
    expect(socketUrl("wss://gw.example:443/custom")).toBe("wss://gw.example/custom")
    expect(() => socketUrl("http://127.0.0.1:18789")).toThrow(/ws:\/\/ or wss:\/\//)
  })
})

describe("node answers", () => {
  it("a response frame carries its body and files and comes back whole", () => {
    const body = Buffer.from(JSON.stringify({ path: "/n/shot.png", targetId: "T" }))
    const png = crypto.randomBytes(100_000)
    const frame = encodeResponse({ id: 7, status: 200, headers: { "content-type": "application/json" } }, body, [
      { path: "/n/shot.png", data: png }
    ])
    const decoded = decodeResponse(frame)!
    expect(decoded.header).toMatchObject({ id: 7, status: 200, bodyBytes: body.byteLength, files: [{ path: "/n/shot.png", bytes: png.byteLength }] })
    expect(Buffer.from(decoded.body).equals(body)).toBe(true)
    expect(Buffer.from(decoded.files[0]!.data).equals(png)).toBe(true)
    // A cut frame is not taken for an answer.
    expect(decodeResponse(frame.subarray(0, frame.byteLength - 1))).toBeUndefined()
    expect(decodeResponse(Buffer.from("nonsense"))).toBeUndefined()
  })

  it("file paths are found under path and labelsPath keys, and replaced by the gateway's copies", () => {
    const answer = { path: "/a.png", downloads: [{ path: "/b.bin", url: "x" }], snapshot: { labelsPath: "/c.png" }, cookies: [{ path: "/" }] }
    expect([...filePathsIn(answer)].sort()).toEqual(["/", "/a.png", "/b.bin", "/c.png"])
    expect(replacePaths(answer, new Map([["/a.png", "/gw/a.png"], ["/b.bin", "/gw/b.bin"]]))).toEqual({
      ...answer,
      path: "/gw/a.png",
      downloads: [{ path: "/gw/b.bin", url: "x" }]
    })
  })

  it("only regular files under the node's roots are sent: not a cookie's path, not a file elsewhere, not a symlink out", () => {
    const root = tmp()
    const elsewhere = tmp()
    fs.writeFileSync(path.join(root, "shot.png"), "png")
    fs.writeFileSync(path.join(elsewhere, "secret"), "secret")
    fs.symlinkSync(path.join(elsewhere, "secret"), path.join(root, "link"))
    const files = answerFiles(
      {
        path: path.join(root, "shot.png"),
        other: { path: path.join(elsewhere, "secret") },
        linked: { path: path.join(root, "link") },
        cookie: { path: "/" },
        dir: { path: root }
      },
      [root]
    )
    expect(files.map((f) => f.path)).toEqual([path.join(root, "shot.png")])
    expect(Buffer.from(files[0]!.data).toString()).toBe("png")
  })
})

describe("the node store", () => {
  const record = (id: string, over: Partial<NodeRecord> = {}): NodeRecord => ({
    id,
    publicKey: `key-${id}`,
    status: "pending",
    name: id,
    capabilities: ["browser"],
    profiles: ["svc"],
    firstSeenAt: 1,
    lastSeenAt: 1,
    ...over
  })

  it("persists pending and approved nodes owner-only, and reads them back after a restart", () => {
    const dir = tmp()
    const store = openNodeStore(dir)
    store.put(record("a"))
    store.put(record("b", { status: "approved", approvedAt: 5 }))
    expect(fs.statSync(store.file).mode & 0o077).toBe(0)
    const again = openNodeStore(dir)
    expect(again.get("b")).toMatchObject({ status: "approved", approvedAt: 5 })
    expect(again.get("a")?.status).toBe("pending")
    expect(again.remove("a")).toBe(true)
    expect(openNodeStore(dir).all().map((n) => n.id)).toEqual(["b"])
  })

  it("keeps at most MAX_PENDING pending nodes (the oldest seen go), never an approved one", () => {
    const store = openNodeStore(tmp())
    store.put(record("approved", { status: "approved", lastSeenAt: 0 }))
    for (let i = 0; i < MAX_PENDING + 5; i++) store.put(record(`p${i}`, { lastSeenAt: 10 + i }))
    const pending = store.all().filter((n) => n.status === "pending")
    expect(pending).toHaveLength(MAX_PENDING)
    expect(store.get("p0")).toBeUndefined()
    expect(store.get("approved")).toBeDefined()
  })

  it("a file it cannot read is reported, never replaced", () => {
    const dir = tmp()
    fs.writeFileSync(path.join(dir, "nodes.json"), "{ not json")
    expect(() => openNodeStore(dir)).toThrow(/move it away/)
    expect(fs.readFileSync(path.join(dir, "nodes.json"), "utf8")).toBe("{ not json")
  })
})
