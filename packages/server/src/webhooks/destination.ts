import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

// Where webhooks may go (DECISIONS.md, Outbound webhooks): `https://` to public addresses. Checked
// when an endpoint is registered, for the field issue that says why; each delivery checks again,
// on the address it actually connects to (send.ts: request-filtering-agent), so that a name that
// resolves elsewhere later (DNS rebinding) is refused then.

/** ipaddr.js's ranges, as the field issue names them. */
const RANGES: Readonly<Record<string, string>> = {
  private: 'a private address (10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16)',
  loopback: 'a loopback address (this machine)',
  linkLocal: 'a link-local address (169.254.0.0/16 or fe80::/10, where clouds serve instance metadata)',
  uniqueLocal: 'a private address (fc00::/7)',
  unspecified: 'the unspecified address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  ipv4Mapped: 'an IPv4-mapped address',
};

/** Why a connection to `address` is refused, or undefined when it is a public (unicast) address. */
export function addressRefusal(address: string): string | undefined {
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return RANGES[range] ?? `a non-public address (${range})`;
}

/**
 * Why the hub will not send to `url`, as a sentence for the field issue, or undefined. Names are
 * resolved: each address they resolve to must be public.
 */
export async function destinationRefusal(url: string, allowPrivate: boolean): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not an absolute URL, such as https://hooks.example.com/hub.`;
  }
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:'))
    return allowPrivate
      ? `The URL must start with https:// or http://, not ${parsed.protocol}//.`
      : `The URL must start with https://, not ${parsed.protocol}// (http:// only on a hub started with HUB_WEBHOOK_ALLOW_PRIVATE=true).`;
  if (parsed.hash !== '') return 'The URL must have no #fragment: it is never sent.';
  if (allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const allowing = ' This hub sends to public addresses only (HUB_WEBHOOK_ALLOW_PRIVATE=true allows others).';
  if (ipaddr.isValid(host)) {
    const refusal = addressRefusal(host);
    return refusal === undefined ? undefined : `The host ${host} is ${refusal}.${allowing}`;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'an error';
    return `The host ${host} does not resolve (${code}): the hub could not send to it.`;
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address);
    if (refusal !== undefined) return `The host ${host} resolves to ${address}, ${refusal}.${allowing}`;
  }
  return undefined;
}
