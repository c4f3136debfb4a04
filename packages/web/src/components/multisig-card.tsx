import { eip1193Signer, type SafeTxProgress } from '@oddsbook/client';
import { useState } from 'preact/hooks';
import { getAddress, isAddress } from 'viem';
import { shortHex } from '../lib/display.js';
import { plainError } from '../lib/errors.js';
import { useAuth, usePolled } from '../lib/hooks.js';
import { tradingClient } from '../lib/session.js';
import { injectedProvider } from '../lib/wallet.js';
import { ErrorLine, Section } from './section.js';

/** How long the page follows an add-signer transaction before telling the user to look again later. */
const FOLLOW_MS = 60_000;

/** The proxy wallet as a multisig: owners and threshold, and adding a signer signed in the wallet. */
export function MultisigCard() {
  const auth = useAuth();
  const safe = usePolled(() => tradingClient().getMultisig(), 3000, [auth.apiKey]);
  const [signer, setSigner] = useState('');
  const [threshold, setThreshold] = useState('');
  const [progress, setProgress] = useState<string>();
  const [error, setError] = useState<unknown>();

  const addSigner = async () => {
    setError(undefined);
    setProgress(undefined);
    const provider = injectedProvider();
    try {
      if (!safe.value?.deployed) throw new Error('Deploy the proxy wallet first.');
      if (!isAddress(signer)) throw new Error('The new signer must be an address (0x and 40 hex digits).');
      if (threshold && !/^[1-9][0-9]{0,2}$/.test(threshold))
        throw new Error('The threshold is a whole number.');
      if (!provider || !auth.address) throw new Error('Connect your wallet first.');
      const client = tradingClient();
      setProgress('Preparing the transaction…');
      const prepared = await client.prepareAddSigner({
        safeAddress: safe.value.safeAddress,
        newSignerAddress: getAddress(signer),
        ...(threshold ? { threshold: Number(threshold) } : {}),
      });
      setProgress('Sign the Safe transaction in your wallet…');
      const signature = await eip1193Signer(provider, auth.address).signTypedData(prepared.typedData);
      const body = {
        safeAddress: safe.value.safeAddress,
        safeTxHash: prepared.safeTxHash,
        safeTransactionData: prepared.safeTransactionData,
        signature,
        signerAddress: auth.address,
      };
      const deadline = Date.now() + FOLLOW_MS;
      for (;;) {
        const p: SafeTxProgress = await client.executeAddSigner(body);
        setProgress(describe(p));
        if (p.isExecuted || !p.isReadyToExecute || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 700));
      }
      safe.reload();
    } catch (e) {
      setError(e);
    }
  };

  const s = safe.value;
  return (
    <Section title="Multisig" testId="multisig-card">
      {s && !s.deployed && <p class="muted">The proxy wallet is not deployed yet.</p>}
      {s?.deployed && (
        <>
          <p data-testid="threshold">
            Threshold: {s.threshold} of {s.owners.length}
          </p>
          <ul class="owners" data-testid="owners">
            {s.owners.map((o) => (
              <li key={o}>
                <code>{o}</code> {o === auth.address && <span class="tag">you</span>}
              </li>
            ))}
          </ul>
          <div class="row">
            <input
              aria-label="New signer address"
              placeholder="New signer 0x…"
              value={signer}
              size={44}
              onInput={(e) => setSigner((e.target as HTMLInputElement).value.trim())}
            />
            <input
              aria-label="New threshold"
              placeholder={`threshold (${s.threshold})`}
              value={threshold}
              size={10}
              onInput={(e) => setThreshold((e.target as HTMLInputElement).value.trim())}
            />
            <button type="button" onClick={addSigner}>
              Add signer
            </button>
          </div>
        </>
      )}
      {progress && (
        <p class="progress" data-testid="multisig-progress">
          {progress}
        </p>
      )}
      <ErrorLine error={error ?? safe.error} text={plainError} />
    </Section>
  );
}

function describe(p: SafeTxProgress): string {
  if (p.isExecuted) return `Executed in transaction ${shortHex(p.executionTxHash ?? '')}.`;
  if (p.isReadyToExecute)
    return `Signed ${p.signedCount} of ${p.requiredThreshold}: submitted, waiting for a block…`;
  return `Signed ${p.signedCount} of ${p.requiredThreshold}: the other owners must sign too.`;
}
