/**
 * anvil's `anvil_reorg` over JSON-RPC: replaces the last `depth` blocks with as many empty ones, so the
 * transactions they held are gone from the chain.
 *
 * @throws Error with anvil's message when it refuses
 */
export async function anvilReorg(rpcUrl: string, depth: number): Promise<void> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_reorg', params: [depth, []] }),
  });
  const body = (await res.json()) as { error?: { message: string } };
  if (body.error) throw new Error(`anvil_reorg: ${body.error.message}`);
}
