import { verify } from '@octokit/webhooks-methods';
import type { Request } from 'express';
import { invalidJson, isJsonType, notJson, readBody } from '../../http/body.js';
import { HttpProblem } from '../../problems/problem.js';
import type { GitHubConfig } from '../config.js';

const SIGNATURE = /^sha256=[0-9a-f]{64}$/i;

const unsigned = (why: string) =>
  new HttpProblem('unauthorized', `The delivery is not signed with the hub's webhook secret: ${why}.`, {
    headers: { 'WWW-Authenticate': 'X-Hub-Signature-256' },
  });

export const githubOff = () =>
  new HttpProblem(
    'not_found',
    'GitHub is not configured on this hub: set HUB_GITHUB_APP_ID and the other HUB_GITHUB_* variables (README, Connect GitHub).',
  );

/**
 * DECISIONS.md, GitHub: the signature before anything else. The header is checked before the body
 * is read; the body (at most `limit` bytes) is read whole and its HMAC compared in constant time
 * (by @octokit/webhooks-methods) before it is parsed. Nothing is recorded for a refused delivery.
 */
export function checkSignature(config: GitHubConfig | undefined): (req: Request, limit: number) => Promise<void> {
  return async (req, limit) => {
    if (config === undefined) throw githubOff();
    const signature = req.get('x-hub-signature-256');
    if (signature === undefined) throw unsigned('X-Hub-Signature-256 is missing');
    if (!SIGNATURE.test(signature)) throw unsigned('X-Hub-Signature-256 must be sha256= and 64 hex digits');
    const body = await readBody(req, limit);
    // GitHub signs the bytes it sends, which are UTF-8 JSON: a body that is not UTF-8 cannot match.
    const text = body.toString('utf8');
    if (!(await verify(config.webhookSecret, text, signature.toLowerCase())))
      throw unsigned('X-Hub-Signature-256 does not match the body');
    if (!isJsonType(req.get('content-type'))) throw notJson();
    try {
      req.body = JSON.parse(text);
    } catch {
      throw invalidJson();
    }
  };
}
