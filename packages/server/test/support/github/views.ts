// What tests read back: the comments, reactions and check runs the hub wrote, in plain data.
import { key, type World } from './state.js';

export interface CommentView {
  id: number;
  body: string;
  /** The author's login: `<slug>[bot]` for the app. */
  user: string;
  /** The previous bodies, oldest first. */
  edits: string[];
}

export interface ReactionView {
  subject: 'issue' | 'issue_comment' | 'pull_request_review_comment';
  /** The number, or the comment's id. */
  id: number;
  content: string;
  user: string;
  repository: string;
}

export interface CheckRunView {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  details_url: string | null;
  output: Record<string, unknown> | null;
  /** Each status the run was given, in order. */
  history: string[];
}

export class Views {
  constructor(protected readonly world: World) {}

  /** The comments on an issue or pull request (review comments included), oldest first. */
  comments(repository: string, number: number): CommentView[] {
    return [...this.world.comments.values()]
      .filter((comment) => key(comment.repository) === key(repository) && comment.number === number)
      .sort((a, b) => a.id - b.id)
      .map(({ id, body, user, edits }) => ({ id, body, user, edits: [...edits] }));
  }

  reactions(): ReactionView[] {
    return this.world.reactions.map(({ subject, id, content, user, repository }) => ({
      subject,
      id,
      content,
      user,
      repository,
    }));
  }

  checkRuns(repository: string): CheckRunView[] {
    return [...this.world.checkRuns.values()]
      .filter((run) => key(run.repository) === key(repository))
      .map(({ id, name, head_sha, status, conclusion, details_url, output, history }) => ({
        id,
        name,
        head_sha,
        status,
        conclusion,
        details_url,
        output,
        history: [...history],
      }));
  }
}
