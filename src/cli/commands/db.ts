import type { Command } from 'commander';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { invalidParam, StoreOpenError } from '../../domain/errors.js';
import { alreadyThere } from '../output-file.js';
import { progressBar } from '../progress.js';
import { action, globalsOf, Interrupted, outputOf, StartupError, withCtx } from '../shell.js';
import { stopSignal } from '../stop-signal.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

/** A server database's URL (the store decides what it can open; this only tells a URL from a path). */
const isUrl = (text: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(text);

const isDirectory = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('database maintenance');
  db.command('backup')
    .argument('<file>', 'where to write the copy (must not exist)')
    .description("copy the database with SQLite's online backup (safe while serve and renew run)")
    .action(
      action(async (file: string, _opts: object, cmd: Command) => {
        const target = resolve(file);
        if (!existsSync(dirname(target))) throw invalidParam('file', `directory does not exist: ${dirname(target)}`);
        const taken = alreadyThere(target);
        if (taken) throw invalidParam('file', taken);
        await withCtx(cmd, async (ctx, out) => {
          const { backupDatabase } = await import('../../services/database.js');
          const { pages } = await backupDatabase(ctx, target);
          out.result({ file: target, pages }, () => `backed up ${pages} pages to ${target}`);
          out.note('The vault key is not inside the copy: keep PAYGATE_VAULT_KEY or the .key file with it.');
        });
      }),
    );

  db.command('migrate')
    .description(
      'bring the database schema up to this version (every command also does it on open); --dry-run lists what is pending',
    )
    .option('--dry-run', 'list pending migrations and change nothing (a missing database is not created)')
    .action(
      action(async (opts: { dryRun?: boolean }, cmd: Command) => {
        const g = globalsOf(cmd);
        const [{ displayDb, loadConfig }, { migrationStatus }] = await Promise.all([
          import('../../config.js'),
          import('../../app.js'),
        ]);
        const db = loadConfig({ db: g.db, tz: g.tz }).dbPath;
        // What is pending is read first, without changing anything (SQLite's __drizzle_migrations,
        // PostgreSQL's drizzle.__drizzle_migrations); opening the store then applies it, on
        // PostgreSQL under the advisory lock every opening process queues on.
        const target = displayDb(db);
        let status;
        try {
          status = await migrationStatus(db);
        } catch (e) {
          if (e instanceof StoreOpenError) throw new StartupError(e.message);
          throw e;
        }
        const list = (tags: string[]): string => (tags.length === 0 ? 'none' : tags.join(', '));
        if (opts.dryRun) {
          outputOf(cmd).result({ database: target, exists: status.exists, pending: status.pending }, () =>
            status.pending.length === 0
              ? `${target} is up to date (${status.known.length} migrations)`
              : `${target}${status.exists ? '' : ' (does not exist yet)'}: pending ${list(status.pending)}`,
          );
          return;
        }
        await withCtx(cmd, (_ctx, out) => {
          out.result({ database: target, applied: status.pending }, () =>
            status.pending.length === 0
              ? `${target} was already up to date`
              : `applied ${list(status.pending)} to ${target}`,
          );
        });
      }),
    );
  db.command('copy')
    .requiredOption('--to <FILE|URL>', 'an empty database: a SQLite file (created if missing) or a postgres:// URL')
    .description('copy the whole database into an empty one of either engine (same vault key), checked by row counts')
    .action(
      action(async (opts: { to: string }, cmd: Command) => {
        const to = opts.to.trim();
        if (to === '') throw invalidParam('to', 'name a SQLite file or a postgres:// URL');
        if (isUrl(to) && !/^postgres(ql)?:\/\//i.test(to)) {
          throw invalidParam('to', 'a URL must be postgres://… or postgresql://…; a SQLite target is a file path');
        }
        const target = isUrl(to) ? to : resolve(to);
        // `--to d/` means a directory: resolve() would drop the slash and the copy would create a
        // file `d` (and `d.key`) beside it.
        if (!isUrl(to) && (to.endsWith('/') || to.endsWith(sep) || isDirectory(target)))
          throw invalidParam(
            'to',
            `${to} is a directory: name the database file, for example ${join(target, 'paygate.db')}`,
          );
        if (!isUrl(to) && !existsSync(dirname(target)))
          throw invalidParam('to', `directory does not exist: ${dirname(target)}`);
        await withCtx(cmd, async (ctx, out) => {
          const { copyDatabase, CopyInterrupted } = await import('../../services/database.js');
          const bar = process.stderr.isTTY ? progressBar(process.stderr) : undefined;
          // Ctrl-C or a SIGTERM stops the copy between batches and undoes it: the target is left
          // as it was (a file the copy created is removed), never half filled.
          const stop = stopSignal();
          let summary;
          try {
            summary = await copyDatabase(ctx, target, (p) => bar?.update(p.copied, p.total), stop.signal);
          } catch (e) {
            if (e instanceof CopyInterrupted) throw new Interrupted(e.message, stop.received() ?? 'SIGINT');
            throw e;
          } finally {
            stop.dispose();
            bar?.done();
          }
          if (stop.requested()) out.note('The copy was complete and checked when the signal came: it is kept.');
          const rows = Object.values(summary.tables).reduce((a, b) => a + b, 0);
          out.result(summary, () =>
            [
              ...Object.entries(summary.tables).map(([table, n]) => `${table.padEnd(18)} ${n}`),
              `copied ${rows} rows in ${Object.keys(summary.tables).length} tables; every table's row count matches`,
            ].join('\n'),
          );
          // The copy is sealed under the same key: it must travel with it.
          const source = ctx.vaultKeySource;
          if (source.kind === 'file' && !isUrl(to) && !existsSync(`${target}.key`)) {
            // Created here, private from its first byte ('wx' never reuses a file someone else made).
            const { readKeyFile } = await import('../../vault/crypto.js');
            writeFileSync(`${target}.key`, readKeyFile(source.path), { mode: 0o600, flag: 'wx' });
            out.note(`The vault key was copied to ${target}.key (mode 0600): the copy opens with the same key.`);
          } else if (source.kind === 'file') {
            out.note(
              `The copy is sealed under the vault key in ${source.path}: set PAYGATE_VAULT_KEY to it to open the copy.`,
            );
          } else {
            out.note('The copy is sealed under the same vault key: open it with the same PAYGATE_VAULT_KEY.');
          }
        });
      }),
    );
}
