import { Effect } from "effect"
import { makePairingStore } from "../../../src/msgbridge/store/PairingStore.js"

// Child process of pairing.test.ts: request `count` codes for distinct senders as fast as possible.
const [dir, prefix, count] = process.argv.slice(2) as [string, string, string]
const store = makePairingStore({ credentialsDir: dir, maxPending: 10_000 })
const program = Effect.forEach(
  Array.from({ length: Number(count) }, (_, i) => i),
  (i) => store.request(`${prefix}${i}@example.com`, `iMessage;-;${prefix}${i}@example.com`),
  { discard: true }
)
Effect.runPromise(program).then(() => process.exit(0), (e) => {
  console.error(e)
  process.exit(1)
})
