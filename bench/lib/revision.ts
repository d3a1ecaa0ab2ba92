import { spawnSync } from 'node:child_process'
import { existsSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'

// Another revision of the service, checked out and built beside this one, for `--against`.

function git(root: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8', timeout: 60_000 })
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr.trim()}`)
  return result.stdout.trim()
}

export interface BuiltRevision {
  /** The commit `rev` named, abbreviated. */
  commit: string
  /** Its `dist/amparo.mjs`, the bundle `npm start` runs. */
  cli: string
  /** Removes the worktree (and its build). */
  remove(): void
}

/**
 * `rev` checked out in a detached git worktree at `dir` and built there. It runs with this
 * checkout's node_modules (symlinked): a revision whose dependencies differ is not comparable
 * this way, and the build says so by failing or the comparison by its figures.
 */
export function buildRevision(root: string, rev: string, dir: string): BuiltRevision {
  const commit = git(root, ['rev-parse', '--short', `${rev}^{commit}`])
  git(root, ['worktree', 'add', '--detach', dir, commit])
  const remove = () => {
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root })
    spawnSync('git', ['worktree', 'prune'], { cwd: root })
  }
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
    const build = spawnSync('npm', ['run', 'build'], { cwd: dir, encoding: 'utf8', timeout: 300_000 })
    const cli = join(dir, 'dist/amparo.mjs')
    if (build.status !== 0 || !existsSync(cli))
      throw new Error(
        `npm run build of ${commit} failed:\n${(build.stdout + build.stderr).trim().slice(-2000)}`,
      )
    return { commit, cli, remove }
  } catch (error) {
    remove()
    throw error
  }
}
