// A local GitHub for tests (no test reaches github.com): the stand-in and webhook deliveries.
//
//   const gh = await startGitHubStandIn({ appId: '12345', slug: 'hub-bot', setupUrl });
//   gh.addInstallation({ id: 42, account: { login: 'octo-org', type: 'Organization' }, repositories: ['octo-org/app'] });
//   gh.addIssue('octo-org/app', { number: 7, title: 'Crash' });
//   … the hub runs with HUB_GITHUB_API_URL = gh.apiUrl and the key gh.privateKeyPem …
//   await deliver(hookUrl, signedDelivery(gh.webhookSecret, 'issue_comment', issueCommentCreated({ … }).payload));
//   expect(gh.rejected).toEqual([]);
export { startGitHubStandIn, GitHubStandIn } from './standin.js';
export type { StandInOptions, RequestRecord, Rejection } from './standin.js';
export { githubDescription, GitHubDescription } from './description.js';
export type { Operation, Match } from './description.js';
export type { FailOptions, RateLimitOptions } from './faults.js';
export type { InstallationSpec, IssueSpec, PullRequestSpec, Permissions } from './state.js';
export type { CommentView, ReactionView, CheckRunView } from './views.js';
export {
  issueCommentCreated,
  pullRequestReviewCommentCreated,
  issuesOpened,
  issuesLabeled,
  pullRequestOpened,
  pullRequestLabeled,
  signedDelivery,
  deliver,
} from './webhooks.js';
export type {
  WebhookEvent,
  WebhookEventName,
  PayloadBase,
  ThreadFields,
  CommentFields,
  PullFields,
  Delivery,
} from './webhooks.js';
