/**
 * Which Bitcoin network an Esplora server serves, told by the hash of its block at height 0: each network has
 * its own genesis block (mainnet, testnet3, regtest). A Ballast chain configured for one network and pointed
 * at a server of another would read balances and send deposits on the wrong chain, so the adapter checks this
 * before reading anything else.
 */
import type { EsploraClient } from './esploraClient.ts';
import { HashTextSchema } from './esploraSchemas.ts';
import { BvmWrongNetworkError } from './errors.ts';
import type { BvmNetwork } from './wallet.ts';

/** Genesis block hash of each network Ballast signs on (big-endian hex, as explorers show it). */
export const BVM_GENESIS_HASHES: Readonly<Record<BvmNetwork, string>> = {
  mainnet: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
  testnet: '000000000933ea01ad0ee984209779baaedce6ab4d8aef9b7f4b72e4f2e5a943',
  regtest: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
};

/** The network whose genesis block has `hash`, or undefined for another chain (signet, testnet4, …). */
export function networkOfGenesis(hash: string): BvmNetwork | undefined {
  const lower = hash.toLowerCase();
  return (Object.keys(BVM_GENESIS_HASHES) as BvmNetwork[]).find((n) => BVM_GENESIS_HASHES[n] === lower); // keys of a Record<BvmNetwork, …>
}

/**
 * Checks that the server behind `esplora` serves `network` (GET /block-height/0).
 *
 * @param name config name of the chain, for the message
 * @throws BvmEsploraError when the server cannot be asked
 * @throws BvmWrongNetworkError when its genesis block is another network's, naming `chains.<name>.network` and the fix
 */
export async function checkEsploraNetwork(esplora: EsploraClient, name: string, network: BvmNetwork): Promise<void> {
  const genesis = await esplora.getText('/block-height/0', HashTextSchema);
  if (genesis === BVM_GENESIS_HASHES[network]) return;
  const served = networkOfGenesis(genesis);
  const what = served ? `Bitcoin ${served}` : `a chain whose genesis block is ${genesis} (not mainnet, testnet3 or regtest)`;
  throw new BvmWrongNetworkError(
    `${esplora.at} serves ${what}, but chains.${name}.network is ${network}; point esploraUrl at a ${network} Esplora API` +
      (served ? ` or set chains.${name}.network: ${served}` : ''),
  );
}
