import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { it } from 'vitest'

// Programs some tests need from the machine, not from npm (README, Quick start: what `npm test`
// needs). Absent, their tests are skipped with a line saying what to install; in CI (`CI=true`,
// whose run installs them all) a missing one fails the run instead, so no test is lost unseen.

export interface MachineTool {
  present: boolean
  /** What is missing and how to install it, as the skipped test's name. */
  missing: string
}

const INSTALL = 'see README, Quick start: apt-get install, or brew install on macOS'

function onPath(command: string, versionFlag: string): boolean {
  return spawnSync(command, [versionFlag], { stdio: 'ignore' }).error === undefined
}

/** poppler's `pdftotext`: the certificate tests read the PDF's text with it. */
export const PDFTOTEXT: MachineTool = {
  present: onPath('pdftotext', '-v'),
  missing: `pdftotext is absent: the tests that read a certificate's text are skipped (poppler-utils; ${INSTALL} poppler)`,
}

/** Chromium (Debian's `/usr/bin/chromium`, or `AMPARO_CHROMIUM`): the console's browser tests drive it. */
export function chromiumTool(path: string): MachineTool {
  return {
    present: existsSync(path),
    missing: `${path} is absent: the console's browser tests are skipped (chromium; ${INSTALL} --cask chromium, then AMPARO_CHROMIUM=<its binary>)`,
  }
}

/**
 * Says so when the tool is absent: a skipped test named after what to install, or, in CI, a
 * failing one. Call it beside the tests that need the tool (they `skipIf(!tool.present)`).
 */
export function reportMissing(tool: MachineTool): void {
  if (tool.present) return
  if (process.env.CI === 'true') {
    it(`${tool.missing}; CI installs it (.ci/run)`, () => {
      throw new Error(`${tool.missing}. CI must have it: .ci/run installs it.`)
    })
  } else it.skip(tool.missing, () => {})
}
