import chalk, { supportsColor } from 'chalk';

export type ColourLevel = 0 | 1 | 2 | 3;

/**
 * Whether human output is coloured, decided once per run:
 * `--no-color` always wins; then `FORCE_COLOR` (`0`/`false` off, `1`–`3` or empty on, even on a
 * terminal that does not announce colours, e.g. TERM=dumb) — the more specific request beats a
 * shell-wide preference; then `NO_COLOR` (any non-empty value: off, https://no-color.org);
 * otherwise colour on a terminal that supports it. JSON output is never coloured.
 */
export function colourLevel(flag: boolean, env: NodeJS.ProcessEnv, tty: boolean): ColourLevel {
  if (!flag) return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    if (force === '' || force === 'true') return 1;
    const n = Number.parseInt(force, 10);
    return (Number.isNaN(n) ? 1 : Math.min(Math.max(n, 1), 3)) as ColourLevel;
  }
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  if (!tty || env.TERM === 'dumb') return 0;
  return supportsColor ? (Math.max(1, supportsColor.level) as ColourLevel) : 1;
}

/**
 * Apply the level to chalk (tables, notes) and to the environment the prompt library reads when
 * it is loaded, so prompts follow the same decision.
 */
export function applyColour(level: ColourLevel): void {
  chalk.level = level;
  if (level === 0) {
    process.env.NO_COLOR = '1';
    delete process.env.FORCE_COLOR;
  } else {
    process.env.FORCE_COLOR = String(level);
    delete process.env.NO_COLOR;
  }
}
