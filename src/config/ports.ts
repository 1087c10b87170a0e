import { DEFAULT_GATEWAY_PORT } from "./SvcConfig.js"

export interface Ports {
  readonly gateway: number
  readonly control: number
  readonly relay: number
}

/** The control server sits two above the gateway port and the relay one above that. */
export const derivePorts = (gateway: number = DEFAULT_GATEWAY_PORT): Ports => ({
  gateway,
  control: gateway + 2,
  relay: gateway + 3
})

export const parsePortEnv = (raw: string | undefined): number | undefined | string => {
  if (raw === undefined || raw.trim() === "") return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1 || n > 65532) {
    return `SVC_GATEWAY_PORT must be a whole number from 1 to 65532 (the control and relay ports sit 2 and 3 above it), got ${JSON.stringify(raw)}`
  }
  return n
}
