import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { invalidParam } from '../../domain/errors.js';
import { migrationStatus } from '../../app.js';
import { loadConfig } from '../../config.js';
import { StoreOpenError } from '../../store/store.js';
import { action, globalsOf, outputOf, StartupError, withCtx } from '../shell.js';

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('database maintenance');
  db.command('backup')
    .argument('<file>', 'where to write the copy (must not exist)')
    .description("copy the database with SQLite's online backup (safe while serve and renew run)")
    .action(
      action(async (file: string, _opts: object, cmd: Command) => {
        const target = resolve(file);
        if (!existsSync(dirname(target))) throw invalidParam('file', `directory does not exist: ${dirname(target)}`);
        if (existsSync(target)) throw invalidParam('file', `${target} already exists`);
        await withCtx(cmd, async (ctx, out) => {
          const { pages } = await ctx.store.backup(target);
          out.result({ file: target, pages }, () => `backed up ${pages} pages to ${target}`);
          out.note('The vault key is not inside the copy: keep PAYGATE_VAULT_KEY or the .key file with it.');
        });
      }),
    );

  db.command('migrate')
    .description('bring the database schema up to this version (every command also does it on open); --dry-run lists what is pending')
    .option('--dry-run', 'list pending migrations and change nothing (a missing database is not created)')
    .action(
      action(async (opts: { dryRun?: boolean }, cmd: Command) => {
        const g = globalsOf(cmd);
        const target = loadConfig({ db: g.db, tz: g.tz }).dbPath;
        let status;
        try {
          status = migrationStatus(target);
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
            status.pending.length === 0 ? `${target} was already up to date` : `applied ${list(status.pending)} to ${target}`,
          );
        });
      }),
    );
}
