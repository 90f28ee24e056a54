import { existsSync, lstatSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { invalidParam, type PaygateError } from '../domain/errors.js';

/**
 * A file an option names for the command to write (`invoice pdf --out`, `report --html`). Its
 * problems are the operator's to fix, so each is a one-line 1001 naming the option, checked
 * before the database is opened where they can be, and never a raw system error after.
 */
export function outputFile(option: string, file: string, opts: { replace: boolean }): string {
  const target = resolve(file);
  const parent = dirname(target);
  if (!existsSync(parent)) throw invalidParam(option, `directory does not exist: ${parent}`);
  if (!statSync(parent).isDirectory()) throw invalidParam(option, `${parent} is not a directory`);
  if (existsSync(target) && statSync(target).isDirectory())
    throw invalidParam(option, `${target} is a directory: name a file`);
  const taken = alreadyThere(target);
  // A link to nowhere is never written through (the file would appear where it points), --force or not.
  if (taken && (!opts.replace || !existsSync(target)))
    throw invalidParam(option, `${taken}: choose another file, or add --force to replace it`);
  return target;
}

/**
 * "FILE already exists" when anything is at `path`, else undefined. lstat, not existsSync: that
 * follows a link and says no to a link to a missing file, where a new file cannot be created
 * either (paygate never writes through such a link).
 */
export function alreadyThere(path: string): string | undefined {
  try {
    const dangling = lstatSync(path).isSymbolicLink() && !existsSync(path);
    return `${path} already exists${dangling ? ' (a symbolic link to a file that does not exist)' : ''}`;
  } catch {
    return undefined;
  }
}

/**
 * Write it: replacing it only when `replace`; a failure is the same kind of one-line 1001. `mode`
 * is a new file's (a file replaced keeps its own: paygate changes no mode of a file it did not create).
 */
export function writeOutputFile(
  option: string,
  target: string,
  data: string | Uint8Array,
  opts: { replace: boolean; mode?: number },
): void {
  try {
    writeFileSync(target, data, {
      flag: opts.replace ? 'w' : 'wx',
      ...(opts.mode !== undefined ? { mode: opts.mode } : {}),
    });
  } catch (e) {
    throw cannotWrite(option, target, e);
  }
}

function cannotWrite(option: string, target: string, e: unknown): PaygateError {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const why: Record<string, string> = {
    EEXIST: 'it exists (created meanwhile): choose another file, or add --force to replace it',
    EISDIR: 'it is a directory: name a file',
    ENOENT: 'its directory does not exist',
    ENOTDIR: 'a part of its path is not a directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOSPC: 'no space is left on the device',
  };
  return invalidParam(option, `cannot write ${target}: ${(code && why[code]) ?? (e as Error).message}`);
}
