import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Router } from 'express';

const ASSETS = [
  { path: '/assets/dashboard.css', file: 'dashboard.css', type: 'text/css; charset=utf-8' },
  { path: '/assets/dashboard.js', file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
] as const;

/** The stylesheet and the script, read once (from ../assets beside both src/ and dist/), cached an hour and revalidated by ETag (their URLs carry no version). */
export function assetRoutes(router: Router): void {
  for (const asset of ASSETS) {
    const body = readFileSync(new URL(`../assets/${asset.file}`, import.meta.url));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    router.get(asset.path, (req, res) => {
      res.set({
        'Content-Type': asset.type,
        'Cache-Control': 'public, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
        ETag: etag,
      });
      if (req.get('if-none-match') === etag) return void res.status(304).end();
      res.send(body);
    });
  }
}
