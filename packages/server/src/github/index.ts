// GitHub (DECISIONS.md, GitHub): the webhook, what its deliveries start, and what the hub reports back.
export { readGitHubConfig, webUrlOf, type GitHubConfig } from './config.js';
export { githubWebhookHandlers } from './webhook/routes.js';
export { startGitHubWorker, type GitHubWorkerOptions } from './worker.js';
export { GitHubClient } from './client.js';
