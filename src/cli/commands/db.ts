import type { Command } from 'commander';
import { existsSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { invalidParam } from '../../domain/errors.js';
import { createPrivateFile } from '../../store/files.js';
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
          // The copy is as sensitive as the database: 0600 before the first page is written into it.
          if (!createPrivateFile(target)) throw invalidParam('file', `${target} already exists`);
          let result: { totalPages: number };
          try {
            result = await ctx.sqlite.backup(target);
          } catch (e) {
            rmSync(target, { force: true });
            throw e;
          }
          out.result({ file: target, pages: result.totalPages }, () => `backed up ${result.totalPages} pages to ${target}`);
          out.note('The vault key is not inside the copy: keep PAYGATE_VAULT_KEY or the .key file with it.');
        });
      }),
    );
}
