// A preload that times every SQLite statement a process runs, by its text: better-sqlite3's
// `run`, `get` and `all`, summed per statement, written at exit to STATEMENT_TIMES_OUT (default
// /tmp/statement-times-PID.txt), the 30 dearest first. For one engine run, e.g.
//   node bench/renewals.mjs --child seed /tmp/r.db 20000 1771146000000
//   node --import ./bench/statement-times.mjs bench/renewals.mjs --child engine /tmp/r.db
//   node --import ./bench/statement-times.mjs bench/pay-service.mjs --pays 20000
// The timing itself costs about 1 µs a statement: compare statements with each other, not the
// run's rate with an untimed run.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../package.json', import.meta.url));
const Database = require('better-sqlite3');
const probe = new Database(':memory:');
const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();

const stats = new Map();
for (const method of ['run', 'get', 'all']) {
  const original = Statement[method];
  Statement[method] = function timed(...args) {
    const t0 = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const ns = Number(process.hrtime.bigint() - t0);
      const key = this.source.replace(/\s+/g, ' ').slice(0, 110);
      const s = stats.get(key) ?? { calls: 0, ns: 0 };
      s.calls++;
      s.ns += ns;
      stats.set(key, s);
    }
  };
}

process.on('exit', () => {
  const total = [...stats.values()].reduce((sum, s) => sum + s.ns, 0);
  const lines = [`total statement time ${(total / 1e6).toFixed(0)} ms`, '      ms    calls  µs each  statement'];
  for (const [sql, s] of [...stats].sort((a, b) => b[1].ns - a[1].ns).slice(0, 30)) {
    lines.push(
      `${(s.ns / 1e6).toFixed(1).padStart(8)} ${String(s.calls).padStart(8)} ${(s.ns / s.calls / 1000).toFixed(1).padStart(8)}  ${sql}`,
    );
  }
  writeFileSync(process.env.STATEMENT_TIMES_OUT ?? `/tmp/statement-times-${process.pid}.txt`, `${lines.join('\n')}\n`);
});
