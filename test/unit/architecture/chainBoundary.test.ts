/**
 * Only `src/chains/<vm>/` (and the sandbox, which plays the chains) creates chain clients, connections or
 * signers: viem public/wallet clients and accounts, web3.js `Connection` / `Keypair`, ecpair key pairs, PSBT
 * signing, Esplora calls. The cycle, executor and reconciler reach chains only through the adapter interface
 * (src/chains/adapter.ts), and the wiring (src/app) only builds adapters. Pure helpers (order-id hashing,
 * address encodings, per-VM deposit checks) may use the libraries' pure parts (parsing, hashing).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const src = path.join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');
const outsideChains = sourceFiles(src).filter((f) => !/^src\/(chains|sandbox)\//.test(rel(f)));

/** Named imports of `module` in `text` (value imports only; `import type` is fine). */
function namedImports(text: string, module: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`import\\s+(?!type\\s)\\{([^}]*)\\}\\s+from\\s+'${module.replace(/[/.]/g, '\\$&')}'`, 'g');
  for (const m of text.matchAll(re)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!;
      if (name && !part.trim().startsWith('type ')) out.push(name);
    }
  }
  return out;
}

/** Value imports of `module` in any form (default, namespace, named, side effect). */
function importsModule(text: string, module: string): boolean {
  return new RegExp(`import\\s+(?!type\\s)[^;]*from\\s+'${module.replace(/[/.]/g, '\\$&')}'|import\\s+'${module.replace(/[/.]/g, '\\$&')}'`).test(text);
}

/** What no file outside src/chains and src/sandbox may do, with a check over its text. */
const RULES: { what: string; found: (text: string) => string[] }[] = [
  {
    what: 'viem clients and transports',
    found: (t) => namedImports(t, 'viem').filter((n) => ['createPublicClient', 'createWalletClient', 'createClient', 'createTestClient', 'http', 'webSocket', 'fallback', 'custom'].includes(n)),
  },
  { what: 'viem accounts', found: (t) => (importsModule(t, 'viem/accounts') ? ['viem/accounts'] : []) },
  { what: 'web3.js connections and key pairs', found: (t) => namedImports(t, '@solana/web3.js').filter((n) => ['Connection', 'Keypair'].includes(n)) },
  { what: 'ecpair key pairs', found: (t) => (importsModule(t, 'ecpair') ? ['ecpair'] : []) },
  { what: 'PSBT or raw-key signing', found: (t) => [...t.matchAll(/\.(signInput|signAllInputs|signInputAsync|signAllInputsAsync|signSchnorr)\(/g)].map((m) => m[1]!) },
  { what: 'direct HTTP calls to chain nodes', found: (t) => [...t.matchAll(/\bfetch\(/g)].map(() => 'fetch(') },
];

/** Modules whose own job is HTTP to the Relay API or serving metrics, not chains. */
const HTTP_ALLOWED = /^src\/(relay|metrics)\//;

describe('chain clients and signers live only under src/chains/<vm>/', () => {
  it('finds the files it polices (the scan is not empty)', () => {
    expect(outsideChains.map(rel)).toEqual(expect.arrayContaining(['src/cycle/reconcile.ts', 'src/executor/executeTransfer.ts', 'src/app/createBallast.ts']));
  });

  it.each(RULES.map((r) => [r.what, r] as const))('no %s outside src/chains and src/sandbox', (_what, rule) => {
    const offenders = outsideChains
      .filter((f) => !(rule.what.startsWith('direct HTTP') && HTTP_ALLOWED.test(rel(f))))
      .flatMap((f) => rule.found(readFileSync(f, 'utf8')).map((hit) => `${rel(f)}: ${hit}`));
    expect(offenders).toEqual([]);
  });

  it('the cycle, executor and reconciler import chain code only through the adapter interface', () => {
    const core = outsideChains.filter((f) => /^src\/(cycle|executor)\//.test(rel(f)));
    const offenders = core.flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/from\s+'([^']*chains\/(?:evm|svm|bvm)\/[^']*)'/g)].map((m) => `${rel(f)}: ${m[1]}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the rules catch what they are for (each matches an offending line)', () => {
    const samples = [
      "import { createPublicClient, http } from 'viem';",
      "import { privateKeyToAccount } from 'viem/accounts';",
      "import { Connection, PublicKey } from '@solana/web3.js';",
      "import { ECPairFactory } from 'ecpair';",
      'psbt.signInput(0, signer);',
      "await fetch('http://127.0.0.1:3000/tx');",
    ];
    RULES.forEach((rule, i) => expect(rule.found(samples[i]!).length, rule.what).toBeGreaterThan(0));
    expect(RULES.flatMap((r) => r.found("import type { Connection } from '@solana/web3.js';\nimport { PublicKey } from '@solana/web3.js';"))).toEqual([]);
  });
});
