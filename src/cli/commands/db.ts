import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { invalidParam } from '../../domain/errors.js';
import { action, withCtx } from '../shell.js';

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
}
