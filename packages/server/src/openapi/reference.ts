import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { handle, type Handlers } from '../http/operation.js';
import { HttpProblem } from '../problems/problem.js';
import { problemIndex, problemPage } from '../problems/routes.js';

// Swagger UI's files, served from the hub's own origin: the reference loads nothing from
// anywhere else (no CDN, no font service, no online validator).
const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Hub API reference</title>
  <link rel="icon" type="image/png" href="/api/reference/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/api/reference/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/api/reference/assets/swagger-ui-bundle.js"></script>
  <script src="/api/reference/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
`;

// Only this origin: Swagger UI's styles are partly inline, its images data URLs.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const loaded = new Map<string, Buffer>();

/** An asset's bytes, read once: a few files, the largest about 1.5 MB. */
function asset(file: string): Buffer {
  let bytes = loaded.get(file);
  if (bytes === undefined) {
    bytes = readFileSync(join(dist, file));
    loaded.set(file, bytes);
  }
  return bytes;
}

/** The documentation: GET /api/reference (the interactive reference of the document) and the problem pages. */
export function documentationHandlers(): Handlers {
  return {
    getReference: handle(({ res }) => void res.setHeader('Content-Security-Policy', CSP).type('html').send(PAGE)),
    getReferenceScript: handle(
      ({ res }) => void res.setHeader('Content-Security-Policy', CSP).type('text/javascript').send(INIT),
    ),
    getReferenceAsset: handle(({ res, params }) => {
      const { file } = params;
      const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      if (type === undefined) throw new HttpProblem('not_found', 'No reference asset has that name.');
      res.setHeader('Content-Security-Policy', CSP);
      res.setHeader('Cache-Control', 'public, max-age=86400');
      res.type(type).send(asset(file));
    }),
    listProblemTypes: handle(({ req, res }) => problemIndex(req, res)),
    getProblemType: handle(({ req, res }) => problemPage(req, res)),
  };
}
