import { Data, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { NodeInfo } from "../../domain/nodes.js"
import { writeFileAtomicSync } from "../../platform/atomicWrite.js"

// The nodes the gateway knows, pending or approved, in `<state dir>/credentials/nodes.json` (owner-only,
// replaced whole by an atomic rename). Approval is once per identity: a node is its public key, so an
// approved node stays approved across its restarts, and another process cannot claim its id. Only the
// gateway writes the file (the CLI asks the gateway), so there is one writer and no lock.

export const NODES_FILE = "nodes.json"
/** Pending nodes kept at most (the oldest unseen go first): a token holder cannot fill the disk. */
export const MAX_PENDING = 50

// What is stored of a node: what `svc nodes list` shows of it, its public key instead of whether it is
// connected now.
const { connected: _connected, ...shown } = NodeInfo.fields
const NodeRecord = Schema.Struct({ ...shown, publicKey: Schema.String })
export type NodeRecord = typeof NodeRecord.Type

const NodesFile = Schema.Struct({ version: Schema.Literal(1), nodes: Schema.Array(NodeRecord) })
const decodeFile = Schema.decodeUnknownEither(Schema.parseJson(NodesFile))

export class NodeStoreError extends Data.TaggedError("NodeStoreError")<{ readonly message: string }> {}


export interface NodeStore {
  readonly file: string
  readonly all: () => ReadonlyArray<NodeRecord>
  readonly get: (id: string) => NodeRecord | undefined
  /** Insert or replace one record (and drop the oldest pending ones beyond MAX_PENDING); persisted before it returns. */
  readonly put: (record: NodeRecord) => void
  readonly remove: (id: string) => boolean
}

/** Loads the file (a missing one is empty; one that does not parse is an error, never overwritten). */
export const openNodeStore = (credentialsDir: string): NodeStore => {
  const file = path.join(credentialsDir, NODES_FILE)
  let text: string | undefined
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new NodeStoreError({ message: `cannot read ${file}: ${(e as Error).message}` })
    }
  }
  const nodes = new Map<string, NodeRecord>()
  if (text !== undefined) {
    const decoded = decodeFile(text)
    if (decoded._tag === "Left") {
      throw new NodeStoreError({ message: `${file} is not a nodes file svc can read; move it away to start with no nodes` })
    }
    for (const n of decoded.right.nodes) nodes.set(n.id, n)
  }
  const save = () => writeFileAtomicSync(file, JSON.stringify({ version: 1, nodes: [...nodes.values()] }, null, 2) + "\n")
  return {
    file,
    all: () => [...nodes.values()],
    get: (id) => nodes.get(id),
    put: (record) => {
      nodes.set(record.id, record)
      const pending = [...nodes.values()].filter((n) => n.status === "pending").sort((a, b) => a.lastSeenAt - b.lastSeenAt)
      for (const old of pending.slice(0, Math.max(0, pending.length - MAX_PENDING))) nodes.delete(old.id)
      save()
    },
    remove: (id) => {
      const had = nodes.delete(id)
      if (had) save()
      return had
    }
  }
}
