// A local GitHub for tests (no test reaches github.com): the stand-in and webhook deliveries.
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
