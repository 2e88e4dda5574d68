/**
 * Every call to an async store function is awaited. The store's functions (src/store/) return Promises; a call
 * whose Promise is dropped runs detached: its write may land after the code that depended on it, outside the
 * transaction it was meant for (STORE_TX_FINISHED), or fail with nobody to hear it.
 *
 * The lint rules (eslint.config.js, checked by lintRules.test.ts) report most such calls, for every Promise:
 * a call as a statement (`@typescript-eslint/no-floating-promises`, also an `xs.map(async …)` as a statement),
 * a Promise returned to the callback of `forEach` / `filter` / `some` / `every` / `find` or an async callback
 * there, a Promise as a condition (`@typescript-eslint/no-misused-promises`). What no rule says is left here: a
 * Promise kept in a variable or an array and then forgotten, put in an object, handed to a call that does not
 * await it (`console.log(f())`), or given to `expect(…)` without `.resolves` / `.rejects`. So this test parses
 * src/ (outside src/store/) and test/ with the TypeScript compiler and checks each call of an async store
 * function (collected from src/store/**: `export async function NAME`, or an exported function declared to
 * return a Promise) for what is done with its Promise:
 *
 * - awaited (`await f()`, also through parentheses, `!`, `as`, a `?:` branch or the right side of `??`/`||`/`&&`);
 * - returned (`return f()`, or the body of an arrow function `() => f()`, which returns it to its caller);
 * - marked as deliberately detached with `void f()`, or handled with `.then(` / `.catch(` / `.finally(`;
 * - passed to `Promise.all` / `allSettled` / `race` / `any` (directly or in an array literal, or from an
 *   `xs.map((x) => f(x))` passed to them), the combined Promise itself being awaited or returned;
 * - passed to `expect(…)` followed by `.resolves` / `.rejects`, the assertion awaited or returned (vitest);
 * - kept in a `const` that is later awaited, returned or passed to `Promise.all` in the same function;
 * - passed to a helper call that is itself awaited or returned (`await expectConstraint(f(), 'unique')`: a
 *   helper that expects a plain value instead of a Promise fails to type-check).
 *
 * - a call as a statement, or in (or returned by) a callback of `forEach` / `filter` / `some` / …: left to the
 *   lint rules above.
 *
 * Anything else is reported, notably `expect(f())` without `.resolves`, and a Promise kept and never awaited.
 * A call counts when its callee is a name imported from a module under src/store/ (or a member of a namespace
 * import of one), so a local function that happens to share a store function's name is not confused with it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const storeDir = path.join(root, 'packages/ballast/src', 'store');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') && !full.endsWith('.d.ts') ? [full] : [];
  });
}

const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');
const parse = (file: string, text: string) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
const hasModifier = (node: ts.Node, kind: ts.SyntaxKind) =>
  (ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []) : []).some((m) => m.kind === kind);
const returnsPromise = (type: ts.TypeNode | undefined) => !!type && ts.isTypeReferenceNode(type) && type.typeName.getText() === 'Promise';

/**
 * Names of the async functions a store module exports: `export async function NAME`, an exported function
 * declared to return `Promise<…>`, or `export const NAME = async (…) => …`.
 */
export function asyncStoreExports(text: string, file = 'store.ts'): string[] {
  const out: string[] = [];
  for (const stmt of parse(file, text).statements) {
    if (!hasModifier(stmt, ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isFunctionDeclaration(stmt) && stmt.name && (hasModifier(stmt, ts.SyntaxKind.AsyncKeyword) || returnsPromise(stmt.type))) {
      out.push(stmt.name.text);
    }
    if (ts.isVariableStatement(stmt)) {
      for (const d of stmt.declarationList.declarations) {
        const init = d.initializer;
        if (
          ts.isIdentifier(d.name) &&
          init &&
          (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) &&
          (hasModifier(init, ts.SyntaxKind.AsyncKeyword) || returnsPromise(init.type))
        ) {
          out.push(d.name.text);
        }
      }
    }
  }
  return out;
}

/** Wrappers that pass a value through unchanged: `(x)`, `x!`, `x as T`, `<T>x`, `x satisfies T`. */
function isTransparent(node: ts.Node): node is ts.Expression {
  return (
    ts.isParenthesizedExpression(node) ||
    ts.isNonNullExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isTypeAssertionExpression(node) ||
    ts.isSatisfiesExpression(node)
  );
}

/** The outermost expression that still carries `node`'s value (through wrappers, `?:` branches, `??`/`||`/`&&`). */
function carrier(node: ts.Expression): ts.Expression {
  let cur: ts.Expression = node;
  for (;;) {
    const p = cur.parent;
    if (isTransparent(p)) cur = p;
    else if (ts.isConditionalExpression(p) && p.condition !== cur) cur = p;
    else if (
      ts.isBinaryExpression(p) &&
      p.right === cur &&
      [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.AmpersandAmpersandToken].includes(p.operatorToken.kind)
    )
      cur = p;
    else return cur;
  }
}

const PROMISE_COMBINATORS = new Set(['all', 'allSettled', 'race', 'any']);

function calleeName(call: ts.CallExpression): { object?: string; name: string } | undefined {
  const c = call.expression;
  if (ts.isIdentifier(c)) return { name: c.text };
  if (ts.isPropertyAccessExpression(c)) return { object: c.expression.getText(), name: c.name.text };
  return undefined;
}

const isPromiseCombinator = (call: ts.CallExpression) => {
  const n = calleeName(call);
  return n?.object === 'Promise' && PROMISE_COMBINATORS.has(n.name);
};

/** The `Promise.all(…)`-like call that `expr` is an argument of, directly or as an array literal element. */
function combinatorOf(expr: ts.Expression): ts.CallExpression | undefined {
  let p: ts.Node = expr.parent;
  if (ts.isArrayLiteralExpression(p)) p = carrier(p).parent;
  if (ts.isSpreadElement(p) && ts.isArrayLiteralExpression(p.parent)) p = carrier(p.parent).parent;
  return ts.isCallExpression(p) && isPromiseCombinator(p) && p.arguments.some((a) => a.pos <= expr.pos && expr.end <= a.end)
    ? p
    : undefined;
}

/** The innermost function whose body contains `node`. */
function enclosingFunction(node: ts.Node): ts.Node | undefined {
  for (let p = node.parent; p; p = p.parent) if (ts.isFunctionLike(p) || ts.isSourceFile(p)) return p;
  return undefined;
}

/** References to the `const` that `decl` declares, in the function around it. */
function referencesOf(decl: ts.VariableDeclaration & { name: ts.Identifier }): ts.Identifier[] {
  const out: ts.Identifier[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && n.text === decl.name.text && n !== decl.name) out.push(n);
    ts.forEachChild(n, visit);
  };
  const scope = enclosingFunction(decl);
  if (scope) ts.forEachChild(scope, visit);
  return out;
}

/** Why the array of Promises `expr` (an `xs.map(async …)`) is not handled, or null when it reaches Promise.all. */
function unhandledArray(expr: ts.Expression, depth: number): string | null {
  const node = carrier(expr);
  const combinator = combinatorOf(node);
  if (combinator) return unhandled(combinator, depth + 1);
  const p = node.parent;
  if (ts.isVariableDeclaration(p) && p.initializer === node && ts.isIdentifier(p.name)) {
    const decl = p as ts.VariableDeclaration & { name: ts.Identifier };
    if (referencesOf(decl).some((ref) => combinatorOf(carrier(ref)) && unhandled(combinatorOf(carrier(ref))!, depth + 1) === null))
      return null;
  }
  return 'its Promise is collected by .map() but the array is not passed to Promise.all';
}

/**
 * Why the Promise produced by `expr` is not handled, or null when it is (see the module comment).
 *
 * @param depth guards the recursion through `.map` / `Promise.all` / variables
 */
function unhandled(expr: ts.Expression, depth = 0): string | null {
  if (depth > 8) return null;
  const node = carrier(expr);
  const p = node.parent;
  // A call as a statement: @typescript-eslint/no-floating-promises reports it.
  if (ts.isAwaitExpression(p) || ts.isReturnStatement(p) || ts.isVoidExpression(p) || ts.isExpressionStatement(p)) return null;
  if (
    ts.isPropertyAccessExpression(p) &&
    p.expression === node &&
    ['then', 'catch', 'finally'].includes(p.name.text) &&
    ts.isCallExpression(p.parent)
  )
    return null;
  if (ts.isArrowFunction(p) && p.body === node) {
    const call = carrier(p).parent;
    if (ts.isCallExpression(call) && call.arguments.includes(carrier(p))) {
      const n = calleeName(call);
      if (n?.object !== undefined && n.name === 'map') return unhandledArray(call, depth + 1);
    }
    // The arrow function returns it to its caller (a callback of forEach / filter / … that returns a Promise:
    // @typescript-eslint/no-misused-promises reports it).
    return null;
  }
  const combinator = combinatorOf(node);
  if (combinator) return unhandled(combinator, depth + 1);
  if (ts.isCallExpression(p) && p.arguments.includes(node) && ts.isIdentifier(p.expression) && p.expression.text === 'expect') {
    let top: ts.Expression = p;
    let settles = false;
    while (ts.isPropertyAccessExpression(top.parent) || (ts.isCallExpression(top.parent) && top.parent.expression === top)) {
      if (ts.isPropertyAccessExpression(top.parent) && ['resolves', 'rejects'].includes(top.parent.name.text)) settles = true;
      top = top.parent as ts.Expression;
    }
    return settles ? unhandled(top, depth + 1) : 'it is passed to expect() without .resolves / .rejects (the assertion sees a Promise)';
  }
  if (ts.isCallExpression(p) && p.arguments.includes(node)) {
    // Handed to a helper that takes the Promise (`await expectConstraint(createTransfer(…), 'unique')`): the
    // helper's own result must be awaited or returned. A helper expecting a plain value fails to type-check.
    return unhandled(p, depth + 1) === null && !ts.isExpressionStatement(carrier(p).parent)
      ? null
      : 'it is passed to a call whose result is neither awaited nor returned';
  }
  if (ts.isVariableDeclaration(p) && p.initializer === node && ts.isIdentifier(p.name)) {
    const decl = p as ts.VariableDeclaration & { name: ts.Identifier };
    if (referencesOf(decl).some((ref) => unhandled(ref, depth + 1) === null)) return null;
    return `it is kept in ${decl.name.text}, which is never awaited, returned or passed to Promise.all`;
  }
  return 'its Promise is neither awaited, returned, void-marked nor passed to Promise.all';
}

/**
 * Calls in one source file of the async store functions `storeFns` whose Promise is not handled.
 *
 * @param file the file's path (relative to the repository root or absolute), used to resolve its imports
 * @param text its source
 * @param storeFns names exported by store modules that return a Promise
 * @returns one line per offending call: `file:line: name(…): why`
 */
export function unawaitedStoreCalls(file: string, text: string, storeFns: ReadonlySet<string>): string[] {
  const abs = path.resolve(root, file);
  const sf = parse(abs, text);
  const direct = new Map<string, string>(); // local name → store function name
  const namespaces = new Set<string>();
  for (const stmt of sf.statements) {
    if (!ts.isImportDeclaration(stmt) || !ts.isStringLiteral(stmt.moduleSpecifier) || stmt.importClause?.isTypeOnly) continue;
    const spec = stmt.moduleSpecifier.text;
    if (!spec.startsWith('.')) continue;
    const target = path.resolve(path.dirname(abs), spec);
    if (!target.startsWith(storeDir + path.sep)) continue;
    const bindings = stmt.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const el of bindings.elements) {
        const imported = (el.propertyName ?? el.name).text;
        if (!el.isTypeOnly && storeFns.has(imported)) direct.set(el.name.text, imported);
      }
    }
  }
  if (direct.size === 0 && namespaces.size === 0) return [];
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const c = n.expression;
      let name: string | undefined;
      if (ts.isIdentifier(c)) name = direct.get(c.text);
      else if (
        ts.isPropertyAccessExpression(c) &&
        ts.isIdentifier(c.expression) &&
        namespaces.has(c.expression.text) &&
        storeFns.has(c.name.text)
      )
        name = c.name.text;
      if (name) {
        const why = unhandled(n);
        if (why) out.push(`${rel(abs)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${name}(…): ${why}`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const storeFns = new Set(sourceFiles(storeDir).flatMap((f) => asyncStoreExports(readFileSync(f, 'utf8'), f)));
const scanned = ['packages/ballast/src', 'packages/protocol/src', 'packages/sandbox/src', 'test']
  .flatMap((dir) => sourceFiles(path.join(root, dir)))
  .filter((f) => !f.startsWith(storeDir + path.sep));

describe('every call of an async store function is awaited', () => {
  it('finds the async store functions (the scan is not empty)', () => {
    for (const name of ['createTransfer', 'getTransfer', 'transitionTransfer', 'startCycle', 'createWithdrawal', 'acquireRunLock']) {
      expect(storeFns.has(name), name).toBe(true);
    }
    expect(storeFns.has('amountToText')).toBe(false); // pure helpers stay synchronous
    expect(storeFns.has('isAllowedTransition')).toBe(false);
  });

  it('no call outside src/store drops the Promise of a store function', () => {
    expect(scanned.length).toBeGreaterThan(100);
    const found = scanned.flatMap((f) => unawaitedStoreCalls(f, readFileSync(f, 'utf8'), storeFns));
    expect(found).toEqual([]);
  });
});

describe('the checker', () => {
  const fns = new Set(['getTransfer', 'markTxSent', 'createTransfer']);
  const check = (body: string, imports = "import { createTransfer, getTransfer, markTxSent } from '../store/transfers.ts';") =>
    unawaitedStoreCalls('packages/ballast/src/cycle/example.ts', `${imports}\n${body}`, fns).map((line) =>
      line.replace(/^packages\/ballast\/src\/cycle\/example\.ts:\d+: /, ''),
    );

  it('collects exported async functions and functions declared to return a Promise, not synchronous ones', () => {
    const text = [
      'export async function a(db: StoreDb): Promise<void> {}',
      'export function b(db: StoreDb): Promise<number> { return db.get(1); }',
      'export function c(x: bigint): string { return String(x); }',
      'async function d() {}',
      'export const e = async (db: StoreDb) => db.all("x");',
    ].join('\n');
    expect(asyncStoreExports(text)).toEqual(['a', 'b', 'e']);
  });

  it('reports a Promise kept and forgotten, with the line', () => {
    expect(
      unawaitedStoreCalls(
        'packages/ballast/src/cycle/example.ts',
        "import { markTxSent } from '../store/transfers.ts';\n\nasync function f(db) {\n  const done = markTxSent(db, 1, 2);\n}",
        fns,
      ),
    ).toEqual([
      'packages/ballast/src/cycle/example.ts:4: markTxSent(…): it is kept in done, which is never awaited, returned or passed to Promise.all',
    ]);
  });

  it('leaves a call as a statement and the callbacks of forEach / filter to the lint rules (lintRules.test.ts)', () => {
    expect(check('export async function f(db) {\n  markTxSent(db, 1, 2);\n}')).toEqual([]);
    expect(check('async function f(db, ids) { ids.forEach((id) => markTxSent(db, id, 0)); }')).toEqual([]);
    expect(check('async function f(db, ids) { return ids.filter(async (id) => (await getTransfer(db, id)) !== undefined); }')).toEqual([]);
  });

  it('reports a .map not passed to Promise.all, expect() without .rejects, a Promise kept, stored or handed on and forgotten', () => {
    expect(check('async function f(db, ids) { const ps = ids.map((id) => getTransfer(db, id)); return ps; }')).toHaveLength(1);
    expect(check('it("x", () => { expect(getTransfer(db, 1)).toBeDefined(); });')).toHaveLength(1);
    expect(check('async function f(db) { const p = getTransfer(db, 1); return 1; }')).toHaveLength(1);
    expect(check('async function f(db) { const t = { row: getTransfer(db, 1) }; return t; }')).toHaveLength(1);
    expect(check('async function f(db) { console.log(getTransfer(db, 1)); }')).toEqual([
      'getTransfer(…): it is passed to a call whose result is neither awaited nor returned',
    ]);
  });

  it('accepts awaited, returned, void-marked, combined and chained calls', () => {
    const ok = [
      'async function f(db) { await markTxSent(db, 1, 2); const row = (await getTransfer(db, 1))!; return row; }',
      'function f(db) { return getTransfer(db, 1); }',
      'const f = (db) => getTransfer(db, 1);',
      'async function f(db) { await db.transaction(async () => { await markTxSent(db, 1, 2); }); }',
      'function f(db) { void markTxSent(db, 1, 2); }',
      'async function f(db, ids) { await Promise.all([getTransfer(db, 1), getTransfer(db, 2)]); }',
      'async function f(db, ids) { return Promise.all(ids.map((id) => getTransfer(db, id))); }',
      'async function f(db, ids) { await Promise.all(ids.map(async (id) => { await markTxSent(db, id, 0); })); }',
      'async function f(db) { await db.transaction(async () => { await markTxSent(db, 1, 2); }); }',
      'function f(db) { markTxSent(db, 1, 2).catch(() => undefined); }',
      'async function f(db, c) { return c ? getTransfer(db, 1) : undefined; }',
      'it("x", async () => { await expect(createTransfer(db, t)).rejects.toThrow(/x/); });',
      'it("x", async () => { expect((await failure(createTransfer(db, t))).code).toBe("X"); });',
      'async function f(db) { const p = getTransfer(db, 1); other(); return await p; }',
      'async function f(db, ids) { const ps = ids.map((id) => getTransfer(db, id)); other(); const rows = await Promise.all(ps); return rows; }',
    ];
    for (const body of ok) expect(check(body), body).toEqual([]);
  });

  it('follows imports: a local function of the same name, or one imported from elsewhere, is not a store call', () => {
    expect(check('function getTransfer() { return Promise.resolve(1); }\nconst p = getTransfer();', '')).toEqual([]);
    expect(check('const p = getTransfer();', "import { getTransfer } from '../relay/client.ts';")).toEqual([]);
    expect(
      check(
        'async function f(db) { const p = getTransfer(db, 1); }',
        "import { getTransfer as readOne } from '../store/transfers.ts';\nimport { getTransfer } from '../relay/x.ts';",
      ),
    ).toEqual([]);
    expect(
      check('async function f(db) { const p = readOne(db, 1); }', "import { getTransfer as readOne } from '../store/transfers.ts';"),
    ).toHaveLength(1);
    expect(
      check('async function f(db) { const p = transfers.markTxSent(db, 1, 2); }', "import * as transfers from '../store/transfers.ts';"),
    ).toHaveLength(1);
  });
});
