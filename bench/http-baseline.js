// The baseline of `pnpm bench:http`: a bare Express 5 app answering the same JSON the hub
// answers, with the same body parsing, and nothing else. Prints its URL on standard output.
import express from 'express';

const projects = JSON.parse(process.env.BASELINE_PROJECTS ?? '{"projects":[]}');
const app = express();
app.get('/api/v1/projects', (_req, res) => void res.json(projects));
app.post('/api/v1/configurations/validate', express.json({ limit: '16mb' }), (req, res) => {
  res.json({ projectSlug: req.body.projectSlug, valid: true });
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
