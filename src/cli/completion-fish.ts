import type { Command, Option } from 'commander';

/** A fish single-quoted word: only `\` and `'` are special inside. */
const quote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const hidden = (c: Command): boolean => Boolean((c as unknown as { _hidden?: boolean })._hidden);

/** Options whose value is a path: fish offers files for them, nothing else does. */
const takesFile = (o: Option): boolean => /<[^>]*(file|path)[^>]*>/i.test(o.flags);

/**
 * `paygate completion fish`: like bash's, generated from the command tree itself. Where a word
 * stands is decided by `__paygate_path`, which skips option values (so `--db x.db sub` completes
 * `sub`'s subcommands), exactly as the bash script does; fish's own `__fish_use_subcommand`
 * would take `x.db` for a command.
 */
export function fishCompletionScript(program: Command): string {
  const valueFlags = new Set<string>();
  const lines: string[] = [];
  const optionLines = (o: Option, condition: string | undefined): string => {
    const takesValue = o.required || o.optional;
    if (takesValue) for (const f of [o.long, o.short]) if (f) valueFlags.add(f);
    const parts = ['complete -c paygate'];
    if (condition) parts.push(`-n ${quote(condition)}`);
    if (o.long) parts.push(`-l ${o.long.replace(/^--/, '')}`);
    if (o.short) parts.push(`-s ${o.short.replace(/^-/, '')}`);
    if (takesValue) parts.push(takesFile(o) ? '-r -F' : '-r');
    if (o.argChoices) parts.push(`-a ${quote(o.argChoices.join(' '))}`);
    if (o.description) parts.push(`-d ${quote(o.description)}`);
    return parts.join(' ');
  };
  const walk = (c: Command, path: string): void => {
    const at = `__paygate_at ${quote(path)}`;
    const subs = c.commands.filter((s) => !hidden(s));
    // A command's own options also follow its arguments (`sub cancel ID --yes`).
    const within = subs.length === 0 ? `__paygate_in ${quote(path)}` : at;
    for (const s of subs)
      lines.push(`complete -c paygate -n ${quote(at)} -a ${quote(s.name())} -d ${quote(s.description())}`);
    for (const a of c.registeredArguments)
      if (a.argChoices) lines.push(`complete -c paygate -n ${quote(at)} -a ${quote(a.argChoices.join(' '))}`);
    // The root's options are global: offered everywhere.
    for (const o of c.options as readonly Option[]) lines.push(optionLines(o, path === '' ? undefined : within));
    for (const s of subs) walk(s, path ? `${path} ${s.name()}` : s.name());
  };
  walk(program, '');
  return `# paygate completion for fish: paygate completion fish > ~/.config/fish/completions/paygate.fish
function __paygate_path --description 'the paygate command words typed so far, option values left out'
    set -l words (commandline -opc)
    set -e words[1]
    set -l path
    set -l skip 0
    for w in $words
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $w
            case ${[...valueFlags].sort().join(' ')}
                set skip 1
            case '-*'
            case '*'
                set -a path $w
        end
    end
    string join ' ' -- $path
end

function __paygate_at --description 'whether the words typed so far are exactly this command'
    set -l typed (__paygate_path)
    test "$typed" = "$argv[1]"
end

function __paygate_in --description 'whether the words typed so far are this command and its arguments'
    set -l typed (__paygate_path)
    test "$typed" = "$argv[1]"; or string match -q -- "$argv[1] *" "$typed"
end

complete -c paygate -f
complete -c paygate -s h -l help -d 'display help'
${lines.join('\n')}
`;
}
