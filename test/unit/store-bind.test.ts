import { describe, expect, it } from 'vitest';
import { bindStatements, type Bound } from '../../src/store/sql/bind.js';
import type { Db } from '../../src/store/sql/db.js';

const seen = (db: Db, ...args: unknown[]) => Promise.resolve({ db, args });
const statements = { lookUp: seen, keep: seen };

class Repo {
  constructor(readonly sql: Db) {}
}
bindStatements(Repo, statements);

const db = { dialect: { name: 'sqlite' } } as unknown as Db;
const repo = new Repo(db) as Repo & Bound<typeof statements>;

describe('statements bound as repository methods (store/sql/bind.ts)', () => {
  it("a bound method calls its statement with the object's own connection and every argument", async () => {
    expect(await repo.lookUp('a', 2, undefined, null, { x: 1 }, 6, 7)).toEqual({
      db,
      args: ['a', 2, undefined, null, { x: 1 }, 6, 7],
    });
  });

  it('a statement is never bound over a method the class writes out', () => {
    class Written {
      keep() {
        return 'written';
      }
    }
    expect(() => bindStatements(Written, statements)).toThrow('store: keep is written out and bound');
  });

  it('a bound method carries its name (stack traces name it)', () => {
    expect(repo.lookUp.name).toBe('lookUp');
  });
});
