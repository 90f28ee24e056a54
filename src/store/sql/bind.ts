import type { Db } from './db.js';

/** A statement function of this folder: the connection first, then the method's arguments. */
type Statement = (db: Db, ...args: never[]) => unknown;

/** The methods a table of statements gives: each statement without its connection argument. */
export type Bound<T extends Record<string, Statement>> = {
  [K in keyof T]: T[K] extends (db: Db, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/**
 * Give `cls` one method per entry of `statements`: the statement over the object's own
 * connection (`this.sql`). `Reads` and `Tx` name most of their methods after a statement of this
 * folder and add nothing to it; a table of them says so once, where a written-out method would
 * repeat the statement's signature a third time. A method an engine overrides stays written out
 * in its class (TypeScript lets a subclass override a method, not a bound property).
 */
export function bindStatements<T extends Record<string, Statement>>(cls: { prototype: object }, statements: T): void {
  for (const [name, statement] of Object.entries(statements)) {
    const run = statement as (db: Db, ...args: unknown[]) => unknown;
    // A method written out in the class says more than its statement: never replace it silently.
    if (Object.hasOwn(cls.prototype, name)) throw new Error(`store: ${name} is written out and bound`);
    const method = function (this: { sql: Db }, ...args: unknown[]) {
      return run(this.sql, ...args);
    };
    Object.defineProperty(method, 'name', { value: name }); // a stack trace names the method
    Object.defineProperty(cls.prototype, name, { value: method, writable: true, configurable: true });
  }
}
