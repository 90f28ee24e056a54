import type { Command, Option } from 'commander';

/**
 * `paygate completion bash|zsh`: a completion script generated from the command tree itself, so
 * it can never list a command or option that does not exist. zsh uses the same script through
 * bashcompinit.
 */
export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const cases: { path: string; words: string[] }[] = [];
  const valueFlags = new Set<string>();
  const flagsOf = (c: Command): string[] =>
    (c.options as readonly Option[]).flatMap((o) => {
      if (o.required || o.optional) for (const f of [o.long, o.short]) if (f) valueFlags.add(f);
      return [o.long, o.short].filter((f): f is string => Boolean(f));
    });
  const globals = flagsOf(program);
  const walk = (c: Command, path: string): void => {
    const subs = c.commands.filter((s) => !(s as unknown as { _hidden?: boolean })._hidden);
    const choices = c.registeredArguments.flatMap((a) => a.argChoices ?? []);
    cases.push({
      path,
      words: [...subs.map((s) => s.name()), ...choices, ...(path === '' ? globals : flagsOf(c)), '--help'],
    });
    for (const s of subs) walk(s, path ? `${path} ${s.name()}` : s.name());
  };
  walk(program, '');
  // Deepest paths first: "sub cancel" must match before "sub".
  cases.sort((a, b) => b.path.split(' ').length - a.path.split(' ').length || b.path.length - a.path.length);
  const arms = cases
    .map(({ path, words }) => {
      const pattern = path === '' ? `''` : `'${path}'|'${path} '*`;
      return `    ${pattern}) opts='${[...new Set(words)].join(' ')}' ;;`;
    })
    .join('\n');
  const bash = `# paygate completion for ${shell}: source <(paygate completion ${shell})
_paygate() {
  local cur prev path w i opts
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    ${[...valueFlags].sort().join('|')}) COMPREPLY=(); return 0 ;;
  esac
  path=''
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${[...valueFlags].sort().join('|')}) ((i++)) ;;
      -*) ;;
      *) path="\${path:+$path }$w" ;;
    esac
  done
  case "$path" in
${arms}
    *) opts='' ;;
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _paygate paygate
`;
  if (shell === 'bash') return bash;
  return `autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash}`;
}
