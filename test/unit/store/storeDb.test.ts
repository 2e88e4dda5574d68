/**
 * The transaction semantics of both StoreDb implementations (src/store/db.ts), on a real store: a rejected
 * transaction writes nothing; a nested one is a savepoint; a call from outside a running transaction is not part
 * of it (SQLite: it waits for the end; PostgreSQL: it runs on another connection); a statement left running after
 * the end is refused (STORE_TX_FINISHED); `?` in a string literal is not a placeholder.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { StoreTxError, type StoreDb } from '../../../packages/ballast/src/store/db.ts';
import { numberPlaceholders } from '../../../packages/ballast/src/store/pg/pgDb.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';

/** A promise and the function that resolves it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describe('numberPlaceholders (PostgreSQL)', () => {
  it('numbers ? outside literals, quoted identifiers and -- comments only', () => {
    expect(numberPlaceholders(`SELECT '?', "a?b", ? -- what?\n, ?, 'it''s ?', ?`)).toBe(
      `SELECT '?', "a?b", $1 -- what?\n, $2, 'it''s ?', $3`,
    );
  });
});

describeEachEngine('StoreDb transactions', (engine) => {
  let db: StoreDb;
  beforeEach(async () => {
    db = await engine.open();
  });

  const insertCycle = (startedAtMs: number) => db.run("INSERT INTO cycles (mode, started_at_ms) VALUES ('once', ?)", startedAtMs);
  const cycleTimes = async () =>
    (await db.all<{ started_at_ms: number }>('SELECT started_at_ms FROM cycles ORDER BY started_at_ms')).map((r) => r.started_at_ms);

  it('commits what fn wrote and passes its result on; inTransaction() only inside', async () => {
    expect(db.inTransaction()).toBe(false);
    const result = await db.transaction(async () => {
      expect(db.inTransaction()).toBe(true);
      await insertCycle(1);
      return 'done';
    });
    expect(result).toBe('done');
    expect(db.inTransaction()).toBe(false);
    expect(await cycleTimes()).toEqual([1]);
  });

  it('a rejected transaction writes nothing and passes the rejection on', async () => {
    const boom = new Error('boom');
    await expect(
      db.transaction(async () => {
        await insertCycle(1);
        await insertCycle(2);
        expect(await cycleTimes()).toEqual([1, 2]); // visible inside
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await cycleTimes()).toEqual([]);
  });

  it('a failing statement inside rolls the whole transaction back', async () => {
    await expect(
      db.transaction(async () => {
        await insertCycle(1);
        await db.run("INSERT INTO cycles (mode, started_at_ms) VALUES ('weekly', 2)"); // CHECK fails
      }),
    ).rejects.toThrow();
    expect(await cycleTimes()).toEqual([]);
  });

  it('a nested transaction that throws rolls back only its savepoint', async () => {
    await db.transaction(async () => {
      await insertCycle(1);
      await expect(
        db.transaction(async () => {
          await insertCycle(2);
          expect(await cycleTimes()).toEqual([1, 2]);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      expect(await cycleTimes()).toEqual([1]);
      await db.transaction(async () => {
        await insertCycle(3); // a nested one that succeeds is kept
      });
      await insertCycle(4);
    });
    expect(await cycleTimes()).toEqual([1, 3, 4]);
  });

  it('a nested transaction is undone with its outer one', async () => {
    await expect(
      db.transaction(async () => {
        await db.transaction(async () => {
          await insertCycle(1);
        });
        throw new Error('outer');
      }),
    ).rejects.toThrow('outer');
    expect(await cycleTimes()).toEqual([]);
  });

  it('a call from outside a running transaction neither sees nor joins its uncommitted writes', async () => {
    const wrote = gate();
    const finish = gate();
    const tx = db.transaction(async () => {
      await insertCycle(1);
      wrote.open();
      await finish.wait;
      throw new Error('roll back');
    });
    const txDone = tx.catch((err: unknown) => err);
    await wrote.wait;
    expect(db.inTransaction()).toBe(false); // this test's own context is outside
    let readDone = false;
    const outsideRead = db.all<{ started_at_ms: number }>('SELECT started_at_ms FROM cycles').then((rows) => {
      readDone = true;
      return rows.map((r) => r.started_at_ms);
    });
    if (engine.name === 'sqlite') {
      // One connection: outside calls wait until the transaction ends, in the order they were made.
      const outsideWrite = insertCycle(2);
      await sleep(50);
      expect(readDone).toBe(false);
      finish.open();
      expect(await txDone).toMatchObject({ message: 'roll back' });
      expect(await outsideRead).toEqual([]); // ran after the rollback
      await outsideWrite;
    } else {
      // Pooled connections: outside calls run at once, on other connections, without the uncommitted row. The
      // write is made once the read answered (two pooled calls may finish in any order), and the transaction is
      // let go whatever the checks say, so a failure cannot leave its connection idle in the transaction.
      try {
        expect(await outsideRead).toEqual([]);
        await insertCycle(2);
      } finally {
        finish.open();
      }
      expect(await txDone).toMatchObject({ message: 'roll back' });
    }
    expect(await cycleTimes()).toEqual([2]); // the outside write survived the rollback: it was not part of it
  });

  it("outside calls see the transaction's writes once it committed", async () => {
    const wrote = gate();
    const finish = gate();
    const tx = db.transaction(async () => {
      await insertCycle(1);
      wrote.open();
      await finish.wait;
    });
    await wrote.wait;
    const outsideRead = db.all<{ n: number }>('SELECT COUNT(*) AS n FROM cycles');
    try {
      if (engine.name === 'postgres') expect(await outsideRead).toEqual([{ n: 0 }]);
    } finally {
      finish.open(); // whatever the check says, so the transaction's connection is never left idle in it
    }
    await tx;
    if (engine.name === 'sqlite') expect(await outsideRead).toEqual([{ n: 1 }]);
    expect(await cycleTimes()).toEqual([1]);
  });

  it('two transactions from separate tasks do not mix their writes', async () => {
    const results = await Promise.allSettled([
      db.transaction(async () => {
        await insertCycle(1);
        await sleep(20);
        await insertCycle(2);
      }),
      db.transaction(async () => {
        await insertCycle(3);
        await sleep(10);
        throw new Error('second fails');
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(await cycleTimes()).toEqual([1, 2]);
  });

  it('a statement issued after its transaction ended rejects with STORE_TX_FINISHED', async () => {
    let leftover: Promise<unknown> | undefined;
    await db.transaction(async () => {
      await insertCycle(1);
      leftover = (async () => {
        await sleep(30); // still running when the transaction commits
        return insertCycle(2);
      })();
    });
    const err = await leftover!.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreTxError);
    expect(err).toMatchObject({ code: 'STORE_TX_FINISHED' });
    expect(await cycleTimes()).toEqual([1]);
  });

  it('a nested transaction begun after its outer one ended rejects with STORE_TX_FINISHED', async () => {
    let leftover: Promise<unknown> | undefined;
    await db.transaction(async () => {
      leftover = (async () => {
        await sleep(30);
        return db.transaction(async () => insertCycle(2));
      })();
    });
    await expect(leftover!).rejects.toMatchObject({ code: 'STORE_TX_FINISHED' });
    expect(await cycleTimes()).toEqual([]);
  });

  it('does not take ? inside a string literal for a placeholder', async () => {
    expect(await db.get("SELECT 'why?' AS q, ? AS p, 'a''?' AS r", 'x')).toEqual({ q: 'why?', p: 'x', r: "a'?" });
    await db.run("INSERT INTO cycles (mode, started_at_ms, error) VALUES ('once', ?, 'is it ?')", 7);
    expect(await db.get('SELECT started_at_ms, error FROM cycles WHERE error = ?', 'is it ?')).toEqual({
      started_at_ms: 7,
      error: 'is it ?',
    });
  });

  it('binds bigints exactly and reads 64-bit integers as numbers', async () => {
    await db.run("INSERT INTO cycles (mode, started_at_ms) VALUES ('once', ?)", 2n ** 53n - 1n);
    expect(await db.get('SELECT started_at_ms FROM cycles')).toEqual({ started_at_ms: Number.MAX_SAFE_INTEGER });
    expect(await db.get('SELECT COUNT(*) AS n FROM cycles')).toEqual({ n: 1 });
  });

  it('close() waits for a running transaction', async () => {
    const other = await engine.openAgain(db);
    const finish = gate();
    const tx = other.transaction(async () => {
      await other.run("INSERT INTO cycles (mode, started_at_ms) VALUES ('once', 5)");
      await finish.wait;
    });
    await sleep(10);
    const closed = other.close();
    finish.open();
    await tx;
    await closed;
    expect(await cycleTimes()).toEqual([5]);
  });

  it('a COMMIT that fails (a deferred constraint) writes nothing and leaves the store usable', async () => {
    const types = engine.name === 'postgres' ? 'BIGINT' : 'INTEGER';
    await db.run(`CREATE TABLE dparent (id ${types} PRIMARY KEY)`);
    await db.run(`CREATE TABLE dchild (pid ${types} REFERENCES dparent(id) DEFERRABLE INITIALLY DEFERRED)`);
    await expect(
      db.transaction(async () => {
        await insertCycle(1);
        await db.run('INSERT INTO dchild (pid) VALUES (?)', 99); // checked only at COMMIT
      }),
    ).rejects.toThrow(/foreign key/i);
    expect(await cycleTimes()).toEqual([]);
    await db.transaction(async () => insertCycle(2)); // the next transaction begins and commits
    expect(await cycleTimes()).toEqual([2]);
  });
});
