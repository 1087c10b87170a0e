import type { TabRef } from "../act/Refs.js"
import { tabKey } from "../pages/PageRegistry.js"
import type { Credentials, Geolocation } from "./emulationInput.js"
import type { NetworkThrottle } from "./throttle.js"

// What a user asked to emulate, kept apart from the page objects and CDP sessions it was applied through, so
// it can be applied again when those are replaced (a re-made connection to the browser). Tab settings are
// keyed by profile + targetId (a tab keeps its targetId across connections), profile-wide ones by profile.
// Bounded: a closed tab's settings are forgotten, and beyond MAX_EMULATED_TABS the least recently set tab's.
// Also keeps, per profile, what could not be applied again, until the next emulation call reports it.

/** Profile-wide settings (the library's context setters). */
export interface ProfileSettings {
  readonly offline?: true | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly credentials?: Credentials | undefined
  readonly geolocation?: Geolocation | undefined
}

/** Per-tab settings (emulateMedia, and overrides on the tab's own CDP session). */
export interface TabSettings {
  readonly media?: "dark" | "light" | "no-preference" | undefined
  readonly reducedMotion?: "reduce" | "no-preference" | undefined
  readonly forcedColors?: "active" | undefined
  readonly contrast?: "more" | "no-preference" | undefined
  readonly mediaType?: "screen" | "print" | undefined
  readonly timezone?: string | undefined
  readonly locale?: string | undefined
  /** The user agent sent with the override: a device's, or the tab's own when only the locale is set. */
  readonly userAgent?: string | undefined
  readonly scale?: number | undefined
  readonly mobile?: boolean | undefined
  readonly touch?: boolean | undefined
  readonly size?: { readonly width: number; readonly height: number } | undefined
  /** A slower network for the tab (sent with the profile's offline state, which it would otherwise hide). */
  readonly network?: NetworkThrottle | undefined
  readonly cpuRate?: number | undefined
}

export const MAX_EMULATED_TABS = 256
/** Notes kept per profile until reported; older ones beyond this are dropped. */
export const MAX_LOST_NOTES = 20

const isEmpty = (s: object) => Object.values(s).every((v) => v === undefined)

/** The settings without the given keys. */
export const without = <S extends object>(s: S, keys: ReadonlyArray<keyof S>): S => {
  const out = { ...s }
  for (const k of keys) delete out[k]
  return out
}

export const makeEmulationSettings = (maxTabs = MAX_EMULATED_TABS) => {
  const profiles = new Map<string, ProfileSettings>()
  /** Insertion order is recency of the last change: the first entry is the oldest. */
  const tabs = new Map<string, { readonly tab: TabRef; readonly settings: TabSettings }>()
  const notes = new Map<string, Array<string>>()

  const profile = (name: string): ProfileSettings | undefined => profiles.get(name)

  const setProfile = (name: string, settings: ProfileSettings) => {
    if (isEmpty(settings)) profiles.delete(name)
    else profiles.set(name, settings)
  }

  const tab = (ref: TabRef): TabSettings | undefined => tabs.get(tabKey(ref))?.settings

  const setTab = (ref: TabRef, settings: TabSettings) => {
    const key = tabKey(ref)
    tabs.delete(key)
    if (isEmpty(settings)) return
    tabs.set(key, { tab: { profile: ref.profile, targetId: ref.targetId }, settings })
    while (tabs.size > maxTabs) tabs.delete(tabs.keys().next().value!)
  }

  const forgetTab = (ref: TabRef) => void tabs.delete(tabKey(ref))

  /** The tabs of a profile that have settings. */
  const tabsOf = (name: string): ReadonlyArray<TabRef> => [...tabs.values()].filter((e) => e.tab.profile === name).map((e) => e.tab)

  /** Everything about a profile: the gateway let go of its browser. */
  const forgetProfile = (name: string) => {
    profiles.delete(name)
    notes.delete(name)
    for (const ref of tabsOf(name)) forgetTab(ref)
  }

  const note = (name: string, text: string) => {
    const list = notes.get(name) ?? []
    list.push(text)
    if (list.length > MAX_LOST_NOTES) list.splice(0, list.length - MAX_LOST_NOTES)
    notes.set(name, list)
  }

  /** The profile's notes, once: they are cleared as they are read. */
  const takeNotes = (name: string): ReadonlyArray<string> => {
    const list = notes.get(name) ?? []
    notes.delete(name)
    return list
  }

  return {
    profile,
    setProfile,
    tab,
    setTab,
    forgetTab,
    tabsOf,
    forgetProfile,
    note,
    takeNotes,
    size: () => ({ profiles: profiles.size, tabs: tabs.size })
  } as const
}

export type EmulationSettings = ReturnType<typeof makeEmulationSettings>
