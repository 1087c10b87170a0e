import * as path from "node:path"

/** Where svc keeps its state, under the state dir (locate.ts finds it; tests always set SVC_STATE_DIR). */
export interface StatePaths {
  readonly stateDir: string
  readonly configFile: string
  readonly browserDir: string
  readonly credentialsDir: string
  readonly msgbridgeDir: string
  readonly mediaDir: string
  readonly trashDir: string
  readonly profileDir: (profile: string) => string
  readonly userDataDir: (profile: string) => string
}

export const makeStatePaths = (stateDir: string): StatePaths => ({
  stateDir,
  configFile: path.join(stateDir, "svc.json"),
  browserDir: path.join(stateDir, "browser"),
  credentialsDir: path.join(stateDir, "credentials"),
  msgbridgeDir: path.join(stateDir, "msgbridge"),
  mediaDir: path.join(stateDir, "media"),
  trashDir: path.join(stateDir, "trash"),
  profileDir: (profile) => path.join(stateDir, "browser", profile),
  userDataDir: (profile) => path.join(stateDir, "browser", profile, "user-data")
})
