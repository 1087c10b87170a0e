import { Effect, Layer } from "effect"
import { Actions } from "./act/Actions.js"
import { Automate } from "./act/Automate.js"
import { BrowserManager } from "./launch/BrowserManager.js"
import { BrowserState } from "./inspect/BrowserState.js"
import { Capture } from "./snapshot/Capture.js"
import { Cdp } from "./cdp/Cdp.js"
import { DiscoveryHttpClient } from "./cdp/discovery.js"
import { ChromeLauncher } from "./launch/ChromeLauncher.js"
import { ChromeLocator } from "./launch/ChromeLocator.js"
import { Dialogs } from "./inspect/Dialogs.js"
import { Emulation } from "./inspect/Emulation.js"
import { Files } from "./inspect/Files.js"
import { HeldChoosers } from "./inspect/HeldChoosers.js"
import { Inspector } from "./inspect/Inspector.js"
import { StorageStates } from "./inspect/StorageStates.js"
import { Routes } from "./routes/Routes.js"
import { Observe } from "./inspect/Observe.js"
import { PlaywrightSessions } from "./pages/Playwright.js"
import { NavigationPolicy } from "./policy/NavigationPolicy.js"
import { PolicyRouting } from "./policy/PolicyRouting.js"
import { Profiles } from "./launch/Profiles.js"
import { LocalRelay } from "./relay/LocalRelay.js"
import { Refs } from "./act/Refs.js"
import { SideEffects } from "./act/SideEffects.js"
import { SafePaths } from "./inspect/SafePaths.js"
import { BrowserMediaPruning } from "./snapshot/mediaPruning.js"
import { Snapshots } from "./snapshot/Snapshots.js"
import { TabPages } from "./pages/TabPages.js"
import { TabTurns } from "./pages/TabTurns.js"
import { SnapshotWarmUp } from "./snapshot/warmUp.js"
import { Tabs } from "./pages/Tabs.js"
import { Trash } from "./launch/Trash.js"

/**
 * What the browser services stand on: the outside world (executables, processes, CDP, the trash), with the
 * HTTP client their /json requests go out on. One layer graph, so the launcher and Cdp share one discovery.
 */
export const BrowserLeavesLive = Layer.mergeAll(ChromeLocator.Default, ChromeLauncher.Default, Cdp.Default, Trash.Default)
  .pipe(Layer.provide(DiscoveryHttpClient))

/**
 * A profile that is stopped or deleted loses its automation library connection at once, so a browser started
 * again on the same port gets a fresh one rather than a connection to the browser that is gone.
 */
const DropConnectionOnStop = Layer.scopedDiscard(
  Effect.gen(function*() {
    const browsers = yield* BrowserManager
    const sessions = yield* PlaywrightSessions
    yield* browsers.onStop((profile) => Effect.asVoid(sessions.disconnect(profile)))
  })
)

/**
 * A managed browser takes a few hundred ms to open its DevTools port, on other cores: the automation library
 * is loaded meanwhile (it blocks this thread about as long), and connected as soon as the port answers, not
 * when the first request needs it.
 */
const LibraryReadyWithBrowser = Layer.scopedDiscard(
  Effect.gen(function*() {
    const browsers = yield* BrowserManager
    const sessions = yield* PlaywrightSessions
    yield* browsers.whileStarting(() => sessions.preload)
    yield* browsers.whenStarted((profile, endpoint) => Effect.ignore(sessions.attach(profile, endpoint)))
  })
)

/** The browser services over the given leaves (tests swap in fakes), on top of a ConfigStore. */
export const browserServices = <E, R>(leaves: Layer.Layer<ChromeLocator | ChromeLauncher | Cdp | Trash, E, R>) =>
  Layer.mergeAll(Automate.Default, Inspector.Default, StorageStates.Default, Routes.Default, BrowserMediaPruning, SnapshotWarmUp).pipe(
    Layer.provideMerge(SideEffects.Default),
    Layer.provideMerge(Layer.merge(HeldChoosers.Default, Capture.Default)),
    Layer.provideMerge(
      Layer.mergeAll(
        Refs.Default,
        Snapshots.Default,
        Actions.Default,
        TabPages.Default,
        Observe.Default,
        Dialogs.Default,
        Files.Default,
        BrowserState.Default,
        Emulation.Default,
        SafePaths.Default
      )
    ),
    Layer.provideMerge(Layer.mergeAll(Tabs.Default, DropConnectionOnStop, LibraryReadyWithBrowser, TabTurns.Default, PolicyRouting)),
    Layer.provideMerge(Layer.merge(PlaywrightSessions.Default, NavigationPolicy.Default)),
    Layer.provideMerge(BrowserManager.Default),
    Layer.provideMerge(Layer.merge(Profiles.Default, LocalRelay.Default)),
    Layer.provideMerge(leaves)
  )

export const BrowserServicesLive = browserServices(BrowserLeavesLive)
