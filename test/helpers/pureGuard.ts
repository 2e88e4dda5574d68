/**
 * vitest setup file of the `pure` project (vitest.config.ts): makes the tier's promise hold at run time. A test
 * file of that project that starts a child process, opens or accepts a socket (HTTP, RPC, PostgreSQL, fetch to
 * loopback) or queries a SQLite database fails with an error naming the file list to move it to.
 *
 * - Child processes: every function of `node:child_process` that starts one (`spawn`, `spawnSync`, `exec`,
 *   `execSync`, `execFile`, `execFileSync`, `fork`) throws; `syncBuiltinESMExports` carries the replacement to
 *   named ESM imports (`import { spawn } from 'node:child_process'`).
 * - Sockets: `net.Socket.prototype.connect` and `net.Server.prototype.listen` throw (http, https, ws, pg and
 *   undici's fetch all go through them).
 * - SQLite: `prepare` and `exec` of better-sqlite3's `Database` throw (a database cannot be used without them).
 *
 * Files and timers stay allowed: a pure test may read fixtures and use fake timers.
 */
import childProcess from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const MOVE =
  'the `pure` test tier has no child process, socket or database: list this file under `integration` (or `e2e`) ' +
  'in vitest.config.ts, or replace the real component with an in-memory one';

function refuse(what: string): never {
  throw new Error(`${what} in a pure test: ${MOVE}`);
}

const cp = childProcess as unknown as Record<string, unknown>; // writable namespace object of a builtin
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  cp[name] = (file: unknown): never => refuse(`child_process.${name}(${JSON.stringify(String(file))})`);
}
syncBuiltinESMExports();

net.Socket.prototype.connect = function connect(): never {
  return refuse('a socket connection (net.Socket.connect)');
};
net.Server.prototype.listen = function listen(): never {
  return refuse('a listening server (net.Server.listen)');
};

// better-sqlite3 is CommonJS; its Database class is shared by every importer, so patching its prototype reaches all.
const Database = createRequire(import.meta.url)('better-sqlite3') as { prototype: Record<string, unknown> };
Database.prototype.prepare = (): never => refuse('a SQLite query (better-sqlite3 prepare)');
Database.prototype.exec = (): never => refuse('a SQLite statement (better-sqlite3 exec)');
