// Web globals that node defines lazily, kept from loading until something really uses them.

/**
 * HttpApiClient tests `payload instanceof FormData` on every request, and node's `FormData` global loads
 * its whole fetch implementation (undici, and with it `node:http`) on first touch: about 20 ms of a CLI
 * run, and fatal while the snapshot is built. Until something really needs FormData, the global is a
 * stand-in that answers `instanceof` for plain values without loading anything and constructs the real
 * one on `new`. Returns a function that puts the original property back.
 */
export const deferFormDataGlobal = (): (() => void) => {
  const original = Object.getOwnPropertyDescriptor(globalThis, "FormData")
  if (original === undefined || original.get === undefined || !original.configurable) return () => {}
  const restore = () => Object.defineProperty(globalThis, "FormData", original)
  type Constructor = new(...args: Array<unknown>) => object
  let real: Constructor | undefined
  const load = (): Constructor => {
    if (real === undefined) {
      restore()
      real = (globalThis as unknown as { FormData: Constructor }).FormData
    }
    return real
  }
  const StandIn = function FormData(...args: Array<unknown>) {
    return new (load())(...args)
  }
  Object.defineProperty(StandIn, Symbol.hasInstance, {
    value: (value: unknown) =>
      typeof value === "object" && value !== null &&
      Object.prototype.toString.call(value) === "[object FormData]" && value instanceof load()
  })
  Object.defineProperty(globalThis, "FormData", {
    configurable: true,
    enumerable: original.enumerable ?? false,
    get: () => real ?? StandIn,
    set: (value) => Object.defineProperty(globalThis, "FormData", { value, writable: true, configurable: true })
  })
  return () => {
    if (real === undefined) restore()
  }
}
