/**
 * What `make` gives for this owner (a connection, a table) and key (a statement's text), made
 * once and kept as long as the owner lives.
 */
export function cached<O extends object, T>(kept: WeakMap<O, Map<string, T>>, owner: O, key: string, make: () => T): T {
  let perOwner = kept.get(owner);
  if (!perOwner) {
    perOwner = new Map();
    kept.set(owner, perOwner);
  }
  let made = perOwner.get(key);
  if (made === undefined) {
    made = make();
    perOwner.set(key, made);
  }
  return made;
}
