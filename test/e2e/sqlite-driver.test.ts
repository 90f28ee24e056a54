import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DRIVER = fileURLToPath(new URL('../../dist/store/sqlite/driver.js', import.meta.url));

/**
 * better-sqlite3 12 aborts a Node 24 process (SIGABRT in RemoveEnvironmentCleanupHook) as soon as
 * the garbage collector frees one of its statements; the driver module loads 13 there. A process
 * that prepares thousands of statements, drops them and collects must end normally on this Node.
 */
describe('the SQLite driver for the running Node', () => {
  it('survives the garbage collector freeing thousands of statements, and exits 0', () => {
    const script = `
      import { Database } from ${JSON.stringify(DRIVER)};
      const db = new Database(':memory:');
      db.exec('CREATE TABLE t (a INTEGER)');
      for (let i = 0; i < 3000; i++) db.prepare('INSERT INTO t VALUES (?)').run(i);
      globalThis.gc();
      for (let i = 0; i < 3000; i++) db.prepare('SELECT count(*) AS n FROM t WHERE a > ' + i).get();
      globalThis.gc();
      console.log(db.prepare('SELECT count(*) AS n FROM t').get().n);
    `;
    const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: r.status, signal: r.signal, stderr: r.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(r.stdout.trim()).toBe('3000');
  });
});
