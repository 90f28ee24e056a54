/**
 * The official client sends `application/x-www-form-urlencoded` bodies with bracketed keys
 * (`card[number]=…`, `payment_method_types[0]=card`, `metadata[k]=v`). This turns them back into
 * the nested object the API sees, so the stand-in can compare parameters as Stripe's
 * idempotency layer does.
 */
export type FormValue = string | FormObject | FormValue[];
export interface FormObject {
  [key: string]: FormValue;
}

function pathOf(key: string): string[] {
  const head = key.split('[', 1)[0] ?? key;
  const rest = [...key.slice(head.length).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1] ?? '');
  return [head, ...rest];
}

function arrays(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => arrays(value[k] as FormValue));
  }
  const out: FormObject = {};
  for (const k of keys) out[k] = arrays(value[k] as FormValue);
  return out;
}

export function parseForm(raw: string): FormObject {
  const root: FormObject = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    const path = pathOf(key);
    let node: FormObject = root;
    path.forEach((segment, i) => {
      const name = segment === '' ? String(Object.keys(node).length) : segment;
      if (i === path.length - 1) {
        node[name] = value;
        return;
      }
      const next = node[name];
      if (next === undefined || typeof next === 'string' || Array.isArray(next)) node[name] = {};
      node = node[name] as FormObject;
    });
  }
  return arrays(root) as FormObject;
}

/** Key-sorted JSON: two requests with the same parameters in another order compare equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function str(o: FormObject | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
}

export function obj(o: FormObject | undefined, key: string): FormObject | undefined {
  const v = o?.[key];
  return v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

export function stringMap(o: FormObject | undefined, key: string): Record<string, string> {
  const m = obj(o, key) ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) if (typeof v === 'string') out[k] = v;
  return out;
}
