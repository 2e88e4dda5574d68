import { describe, expect, it } from 'vitest';
import { StoreConnectionError } from '../../../../packages/ballast/src/store/errors.ts';
import { connectionError, isConnectionLoss } from '../../../../packages/ballast/src/store/pg/pgTransaction.ts';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('isConnectionLoss', () => {
  it('is true for socket errors, node-postgres connection errors and SQLSTATEs that end the session', () => {
    for (const err of [
      withCode('read ECONNRESET', 'ECONNRESET'),
      withCode('write EPIPE', 'EPIPE'),
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('Query read timeout'),
      withCode('terminating connection due to idle-in-transaction timeout', '25P03'),
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('connection failure', '08006'),
    ]) {
      expect([err.message, isConnectionLoss(err)]).toEqual([err.message, true]);
    }
  });

  it('is false for statements the server refused on a live session', () => {
    for (const err of [
      withCode('canceling statement due to statement timeout', '57014'),
      withCode('canceling statement due to lock timeout', '55P03'),
      withCode('duplicate key value violates unique constraint', '23505'),
      withCode('leader lease ballast expired before the write-ahead committed', 'BL001'),
      new Error('something else'),
    ]) {
      expect([err.message, isConnectionLoss(err)]).toEqual([err.message, false]);
    }
  });
});

describe('connectionError', () => {
  it('wraps a loss in STORE_CONNECTION_LOST naming the phase and the cause, and leaves other errors alone', () => {
    const wrapped = connectionError('postgres://u@db/x', 'commit', withCode('read ECONNRESET', 'ECONNRESET'));
    expect(wrapped).toBeInstanceOf(StoreConnectionError);
    expect(wrapped).toMatchObject({ code: 'STORE_CONNECTION_LOST', phase: 'commit', location: 'postgres://u@db/x' });
    expect((wrapped as Error).message).toMatch(
      /lost \(ECONNRESET: read ECONNRESET\); the COMMIT got no answer: whether it committed is unknown/,
    );
    const refused = withCode('duplicate key', '23505');
    expect(connectionError('postgres://u@db/x', 'transaction', refused)).toBe(refused);
    // What the held client reported through its error event wins over the statement's own error.
    const lost = withCode('read ECONNRESET', 'ECONNRESET');
    expect(connectionError('postgres://u@db/x', 'transaction', new Error('other'), lost)).toMatchObject({
      phase: 'transaction',
      cause: lost,
    });
  });
});
