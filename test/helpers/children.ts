import type { ChildProcess } from 'node:child_process';

/**
 * Processes the helpers started (`paygate` runs, `serve`) and that have not exited yet. A test
 * that fails or times out part-way leaves its processes running; their pipes keep the test
 * worker alive after its file ended, and vitest then reports a worker termination timeout on
 * that file instead of the failure. test/setup/children.ts ends them when the file ends.
 */
const live = new Set<ChildProcess>();

export function track<T extends ChildProcess>(child: T): T {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Ends every process still running, and says which, so the test that left it can be found. */
export async function endStrayChildren(): Promise<string[]> {
  const stray = [...live].filter((c) => c.exitCode === null && c.signalCode === null);
  const names = stray.map((c) => c.spawnargs.slice(1, 6).join(' '));
  await Promise.all(
    stray.map(
      (c) =>
        new Promise<void>((resolve) => {
          c.once('exit', () => resolve());
          c.kill('SIGKILL');
        }),
    ),
  );
  live.clear();
  return names;
}
